"""Thread-count query shared by the kernels (the count itself is set elsewhere)."""

import numba


def num_threads():
    """Threads numba's pool will use for the next parallel kernel."""
    return numba.get_num_threads()
