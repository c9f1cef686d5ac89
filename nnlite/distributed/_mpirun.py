"""Starting ranks through ``mpirun``: the command line, and running it with signals passed on.

Used by the launcher (``python -m nnlite.distributed.run``) and by
``nnlite.multiprocessing.spawn``: both start their processes as one MPI job, so that
``init_process_group`` finds them in ``MPI.COMM_WORLD``.
"""

import functools
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping
from types import FrameType

INSTALL_MPIRUN = (
    "mpirun was not found on PATH: install Open MPI from your system's packages (Debian/Ubuntu: "
    "`apt-get install openmpi-bin libopenmpi-dev`) and mpi4py with `pip install 'nnlite[mpi]'`"
)


def find_mpirun() -> str | None:
    """The path of ``mpirun`` (or ``mpiexec``), or None."""
    return shutil.which("mpirun") or shutil.which("mpiexec")


@functools.cache
def is_open_mpi(exe: str) -> bool:
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    text = done.stdout + done.stderr
    return "Open MPI" in text or "OpenRTE" in text


def mpirun_command(
    nprocs: int,
    argv: Iterable[str],
    env_names: Iterable[str] = (),
    hostfile: str | os.PathLike[str] | None = None,
    per_node: int | None = None,
    extra: Iterable[str] = (),
) -> list[str]:
    """``mpirun`` starting ``nprocs`` copies of ``argv``.

    ``env_names``: variables passed to every rank (Open MPI passes the launching environment only
    to the ranks on this machine; ``-x`` sends them to the other machines too). ``hostfile`` and
    ``per_node`` (ranks per machine) place the ranks on several machines. ``extra``: further
    mpirun arguments, placed before the program.
    """
    exe = find_mpirun()
    if exe is None:
        raise RuntimeError(INSTALL_MPIRUN)
    cmd = [exe]
    if is_open_mpi(exe):
        # more ranks than cores is allowed (a laptop, CI); the ranks share the cores
        cmd.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            # torchrun and torch.multiprocessing.spawn run as root (containers, CI); Open MPI
            # refuses root unless told, which would make the same script fail here
            cmd.append("--allow-run-as-root")
        for name in env_names:
            cmd += ["-x", name]
        if hostfile is not None:
            cmd += ["--hostfile", str(hostfile)]
            if per_node is not None:
                cmd += ["--map-by", f"ppr:{per_node}:node"]
    elif hostfile is not None:  # MPICH and others: Hydra's spelling
        cmd += ["-f", str(hostfile)]
        if per_node is not None:
            cmd += ["-ppn", str(per_node)]
    cmd += list(extra)
    cmd += ["-n", str(nprocs)]
    return cmd + list(argv)


def start(cmd: list[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start ``cmd`` (mpirun) in this process group: whatever stops this process's group
    (Ctrl-C in a terminal, a job controller) reaches mpirun, which passes it on to the ranks."""
    return subprocess.Popen(cmd, env=env)


def stop(process: subprocess.Popen[bytes], grace: float = 3.0) -> None:
    """End a started job: SIGTERM to mpirun (it ends its ranks), SIGKILL after ``grace`` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_to_end(cmd: list[str], env: Mapping[str, str]) -> int:
    """Run ``cmd``; a SIGTERM sent to this process alone is passed on. Returns its exit status.

    Ctrl-C reaches mpirun directly (same process group); here it only stops the wait.
    """
    process = start(cmd, env)

    def forward(signum: int, frame: FrameType | None) -> None:
        if process.poll() is None:
            process.send_signal(signum)

    previous = signal.signal(signal.SIGTERM, forward)
    try:
        while True:
            try:
                return process.wait()
            except KeyboardInterrupt:
                continue  # mpirun got the same Ctrl-C and is ending the job
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop(process)


def python_argv(module: str, *args: str) -> list[str]:
    """``python -m module args`` with this interpreter."""
    return [sys.executable, "-m", module, *args]
