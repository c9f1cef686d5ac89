"""What each rank runs when ``spawn`` starts its processes as an MPI job.

``python -m nnlite.multiprocessing._spawned_rank FOLDER``: read the parent's preparation (its
``sys.path``, main script and authentication key, as multiprocessing's own spawned children do),
then the pickled ``fn`` and ``args``, and run ``fn(rank, *args)`` with the rank mpirun gave this
process. The folder also receives, per rank, ``started-R`` (the pid), then ``done-R`` or
``error-R`` (the traceback), which the parent reads.
"""

import multiprocessing.spawn
import os
import pickle
import sys
import traceback
from typing import NoReturn

from .._runtime.atomic_file import write_atomically


def _write(folder: str, name: str, text: str) -> None:
    """Write a small file atomically (the parent may read it at any moment)."""
    write_atomically(os.path.join(folder, name), text)


def _end_job() -> NoReturn:
    """A failed rank ends the job: MPI_Abort once MPI runs (the others may be waiting in a
    collective), else a non-zero exit, after which mpirun stops the others."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        mpi.COMM_WORLD.Abort(1)
    os._exit(1)


def main(folder: str) -> None:
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ["PMI_RANK"])
    _write(folder, f"started-{rank}", str(os.getpid()))
    try:
        with open(os.path.join(folder, "preparation"), "rb") as f:
            multiprocessing.spawn.prepare(pickle.load(f))
        with open(os.path.join(folder, f"call-{rank}"), "rb") as f:
            fn, args = pickle.load(f)  # noqa: S301  (written by this job's parent)
        fn(rank, *args)
    except KeyboardInterrupt:
        os._exit(1)
    except BaseException as ex:  # noqa: BLE001  (reported to the parent, which raises it)
        if isinstance(ex, SystemExit) and ex.code in (0, None):
            _write(folder, f"done-{rank}", "")
            raise
        _write(folder, f"error-{rank}", traceback.format_exc())
        sys.stderr.flush()
        _end_job()
    _write(folder, f"done-{rank}", "")


if __name__ == "__main__":
    main(sys.argv[1])
