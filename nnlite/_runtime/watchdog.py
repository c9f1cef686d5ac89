"""A worker's view of its parent: still alive, or gone (killed, crashed) so the worker should exit."""

import os


class ParentWatchdog:
    """Tells whether the process that started this worker is still alive.

    A forked worker's parent process is the parent itself: when it dies, the worker is re-parented
    and ``getppid()`` changes. A worker started by a fork server has the server as its parent, so
    the parent's pid is also checked directly.

    Args:
        parent_pid (int): the pid of the process that owns the worker.

    Examples:
        >>> watchdog = ParentWatchdog(os.getppid())  # as a worker started by this process
        >>> watchdog.parent_alive()
        True
    """

    def __init__(self, parent_pid: int) -> None:
        self.parent_pid = parent_pid
        self.ppid = os.getppid()

    def parent_alive(self) -> bool:
        if os.getppid() != self.ppid:
            return False
        return self.ppid == self.parent_pid or pid_alive(self.parent_pid)


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (a zombie counts as existing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
