"""``python -m nnlite.distributed.run``: torchrun's command line, starting the ranks through mpirun.

    python -m nnlite.distributed.run --nproc-per-node=2 train.py --epochs 3

starts ``mpirun -n 2`` on this machine; every rank runs ``train.py --epochs 3`` with torchrun's
variables set (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``,
``MASTER_ADDR``, ``MASTER_PORT``, ``TORCHELASTIC_RUN_ID``) and calls ``init_process_group``.
The launcher exits with the job's exit status; a rank that raises ends the job (its traceback on
stderr, a non-zero status).

Across machines (``--nnodes=M``), Open MPI starts every rank from the first machine (over ssh):
run the launcher there with ``--hostfile FILE`` naming the machines; on the other machines
(``--node-rank`` > 0) it has nothing to start and says so.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import _mpirun

__all__ = ["get_args_parser", "main", "parse_args", "run"]


def get_args_parser() -> argparse.ArgumentParser:
    """The argument parser: torchrun's options (both spellings) and nnlite's ``--hostfile``."""
    parser = argparse.ArgumentParser(
        prog="python -m nnlite.distributed.run",
        description="Start a training script on several processes (ranks) through mpirun, "
        "with torchrun's options and environment variables.",
    )

    def option(*names: str, **kwargs: Any) -> None:
        spelled = []
        for name in names:
            spelled.append(name)
            if name.startswith("--") and "-" in name[2:]:
                spelled.append("--" + name[2:].replace("-", "_"))
        parser.add_argument(*spelled, **kwargs)

    option("--nnodes", default="1", help="number of machines, N or MIN:MAX with MIN == MAX")
    option(
        "--nproc-per-node",
        default="1",
        help="ranks per machine: a number, or auto/cpu (one per CPU)",
    )
    option("--node-rank", type=int, default=0, help="this machine's index (0 starts the job)")
    option("--master-addr", default="127.0.0.1", help="address of rank 0's machine")
    option("--master-port", type=int, default=29500, help="port on rank 0's machine")
    option(
        "--standalone",
        action="store_true",
        help="one machine: MASTER_ADDR localhost and a free MASTER_PORT",
    )
    option("--rdzv-id", "--rdzv-run-id", default="none", help="the job's id (TORCHELASTIC_RUN_ID)")
    option("--rdzv-backend", default="static", help="accepted; MPI does the rendezvous")
    option("--rdzv-endpoint", default="", help="HOST[:PORT] of rank 0 (as --master-addr/port)")
    option("--rdzv-conf", default="", help="accepted, unused")
    option("--max-restarts", type=int, default=0, help="must be 0: ranks are not restarted")
    option("--monitor-interval", type=float, default=0.1, help="accepted, unused")
    option("--start-method", default="spawn", help="accepted, unused (mpirun starts the ranks)")
    option("--role", default="default", help="accepted, unused")
    option("--log-dir", default=None, help="accepted, unused (output goes to the terminal)")
    option("--redirects", "-r", default="0", help="accepted, unused")
    option("--tee", "-t", default="0", help="accepted, unused")
    option("--local-addr", default=None, help="accepted, unused")
    option("--module", "-m", action="store_true", help="run the target as a module (python -m)")
    option("--no-python", action="store_true", help="run the target as a program, not Python")
    option("--run-path", action="store_true", help="accepted (scripts always run by path)")
    option(
        "--hostfile",
        default=None,
        help="nnlite: Open MPI hostfile naming the machines (with --nnodes > 1)",
    )
    option(
        "--mpirun-args",
        default="",
        help='nnlite: further mpirun arguments, e.g. "--mca btl_tcp_if_include eth0"',
    )
    parser.add_argument("training_script", help="the script (or module, with -m) every rank runs")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the launcher's command line (``sys.argv[1:]`` by default)."""
    return get_args_parser().parse_args(args)


def _nproc(text: str) -> int:
    if text in ("auto", "cpu"):
        return os.cpu_count() or 1
    if text == "gpu":
        raise ValueError("--nproc-per-node=gpu: nnlite runs on the CPU; give a number or cpu")
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"--nproc-per-node must be a number, auto or cpu, got {text!r}") from None
    if n < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {n}")
    return n


def _nnodes(text: str) -> int:
    low, _, high = str(text).partition(":")
    try:
        low_n, high_n = int(low), int(high or low)
    except ValueError:
        raise ValueError(f"--nnodes must be N or MIN:MAX, got {text!r}") from None
    if low_n != high_n or low_n < 1:
        raise ValueError(
            f"--nnodes={text}: an elastic range is not supported; give a fixed number of machines"
        )
    return low_n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _environment(args: argparse.Namespace, nproc: int, nnodes: int) -> dict[str, str]:
    env = dict(os.environ)
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, endpoint_port = args.rdzv_endpoint.rpartition(":")
        addr, port = (host, int(endpoint_port)) if host else (endpoint_port, port)
    if args.standalone:
        addr, port = "localhost", _free_port()
    env.update(MASTER_ADDR=str(addr), MASTER_PORT=str(port), TORCHELASTIC_RUN_ID=args.rdzv_id)
    env["GROUP_WORLD_SIZE"] = str(nnodes)
    if nproc > 1 and "OMP_NUM_THREADS" not in env:
        # as torchrun: the ranks share the cores, so one thread each unless told otherwise
        print(
            "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
            "to avoid your system being overloaded, please further tune the variable for "
            "optimal performance in your application as needed.",
            file=sys.stderr,
        )
        env["OMP_NUM_THREADS"] = "1"
    return env


_PASSED = ("MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "GROUP_WORLD_SIZE")
_PASSED_IF_SET = ("OMP_NUM_THREADS", "PYTHONPATH")


def run(args: argparse.Namespace) -> int:
    """Start the job described by parsed ``args``; returns its exit status."""
    nproc, nnodes = _nproc(args.nproc_per_node), _nnodes(args.nnodes)
    if args.max_restarts:
        raise ValueError("--max-restarts: nnlite does not restart ranks; use 0")
    if args.module and args.no_python:
        raise ValueError(
            "Don't use both the '--no-python' flag and the '--module' flag at the same time."
        )
    if nnodes > 1:
        if args.node_rank != 0:
            print(
                f"node {args.node_rank}: nothing to start here; the launcher on node 0 starts "
                f"every machine's ranks through mpirun (see --hostfile)",
                file=sys.stderr,
            )
            return 0
        if args.hostfile is None:
            raise ValueError(
                f"--nnodes={nnodes} needs --hostfile FILE naming the machines (one line each, "
                f"e.g. `node1 slots={nproc}`): mpirun starts every rank from this machine"
            )
    env = _environment(args, nproc, nnodes)
    mode = ["--module"] if args.module else ["--no-python"] if args.no_python else []
    program = _mpirun.python_argv("nnlite.distributed._rank_main", *mode, args.training_script)
    names = list(_PASSED) + [n for n in _PASSED_IF_SET if n in env]
    cmd = _mpirun.mpirun_command(
        nproc * nnodes,
        program + list(args.training_script_args),
        env_names=names,
        hostfile=args.hostfile,
        per_node=nproc if args.hostfile is not None else None,
        extra=args.mpirun_args.split(),
    )
    return _mpirun.run_to_end(cmd, env)


def main(args: Sequence[str] | None = None) -> NoReturn:
    """Entry point: parse the command line, run the job, exit with its status."""
    parsed = parse_args(args)
    try:
        code = run(parsed)
    except (ValueError, RuntimeError) as ex:
        print(f"python -m nnlite.distributed.run: error: {ex}", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
