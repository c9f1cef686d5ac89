"""What each rank runs under the launcher: set torchrun's variables from MPI's, then run the script.

``python -m nnlite.distributed._rank_main [--module | --no-python] target args...`` sets ``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``ROLE_RANK`` and
``ROLE_WORLD_SIZE`` from the variables mpirun gives every rank (Open MPI's ``OMPI_COMM_WORLD_*``,
else PMI's), then runs ``target`` as ``__main__`` (a script path, a module with ``--module``, or a program
with ``--no-python``),
with ``sys.argv`` as the script would see it. MPI itself starts only when the script calls
``init_process_group``.
"""

from __future__ import annotations

import os
import runpy
import sys
from collections.abc import Iterable, Sequence

# (torchrun's variable, MPI launchers' variables in order of preference)
_FROM_MPI = (
    ("RANK", ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK")),
    ("WORLD_SIZE", ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")),
    ("LOCAL_RANK", ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID")),
    ("LOCAL_WORLD_SIZE", ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")),
)


def _first(names: Iterable[str]) -> str | None:
    for name in names:
        if os.environ.get(name):
            return os.environ[name]
    return None


def set_rank_environment() -> None:
    """Set torchrun's per-rank variables from the MPI launcher's."""
    for torch_name, mpi_names in _FROM_MPI:
        value = _first(mpi_names)
        if value is None:
            raise RuntimeError(
                f"nnlite.distributed._rank_main runs under mpirun (started by python -m "
                f"nnlite.distributed.run); none of {', '.join(mpi_names)} is set"
            )
        os.environ[torch_name] = value
    rank, local_size = int(os.environ["RANK"]), int(os.environ["LOCAL_WORLD_SIZE"])
    os.environ["GROUP_RANK"] = str(rank // max(local_size, 1))
    os.environ["ROLE_RANK"] = os.environ["RANK"]
    os.environ["ROLE_WORLD_SIZE"] = os.environ["WORLD_SIZE"]


def main(argv: Sequence[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    mode = argv[0] if argv and argv[0] in ("--module", "--no-python") else None
    if mode is not None:
        argv = argv[1:]
    set_rank_environment()
    target, args = argv[0], argv[1:]
    if mode == "--no-python":
        os.execvp(target, [target, *args])
    elif mode == "--module":
        sys.argv = [target, *args]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [target, *args]
        sys.path[0] = os.path.dirname(os.path.abspath(target))
        runpy.run_path(target, run_name="__main__")


if __name__ == "__main__":
    main()
