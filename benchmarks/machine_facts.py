"""What every benchmark prints first: the machine its figures come from, and ``--load N``.

The ratios between nnlite and PyTorch depend on the CPU (its vector instructions), on the BLAS
kernel numpy runs (OpenBLAS picks one per CPU unless ``OPENBLAS_CORETYPE`` pins it) and on PyTorch's
own kernel choice, so a figure without them cannot be compared with another machine's. Time with
``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` unset, so that numpy runs the kernel it would choose.

``--load N`` starts N busy-loop processes for the benchmark's duration: a busy machine.
"""

import importlib.util
import multiprocessing
import os
import platform
import subprocess
import sys

ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "amx_tile")
PINNING_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def _cpuinfo(key):
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith(key):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model():
    return _cpuinfo("model name") or platform.processor() or platform.machine()


def vector_isa():
    """The CPU's vector instruction sets that matter to BLAS and PyTorch kernels."""
    flags = set((_cpuinfo("flags") or "").split())
    return [f for f in ISA_FLAGS if f in flags] or ["unknown (no /proc/cpuinfo flags)"]


def numpy_blas():
    """numpy's BLAS as threadpoolctl sees it: library, version, kernel (architecture), threads."""
    import numpy  # noqa: F401  (loads the BLAS threadpoolctl inspects)
    from threadpoolctl import threadpool_info

    rows = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return [
        f"{i.get('internal_api')} {i.get('version')}, kernel {i.get('architecture')}, "
        f"{i.get('num_threads')} threads ({os.path.basename(i.get('filepath', ''))})"
        for i in rows
    ] or ["none found"]


def torch_capability():
    """PyTorch's CPU capability (the kernel family it dispatches to), or None without PyTorch.

    Asked in a child process unless PyTorch is already imported here, so that a benchmark of
    nnlite alone keeps PyTorch out of its memory and threads.
    """
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        return f"{torch.__version__}, {torch.backends.cpu.get_cpu_capability()}"
    if importlib.util.find_spec("torch") is None:
        return None
    code = "import torch; print(f'{torch.__version__}, {torch.backends.cpu.get_cpu_capability()}')"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return "installed, capability not read"
    return proc.stdout.strip() or "installed, capability not read"


def nnlite_threads():
    import nnlite as nl
    from nnlite._runtime import threads

    try:
        import numba

        layer = numba.config.THREADING_LAYER
    except ImportError:
        layer = "-"
    spin = (
        "short OpenMP spin, products on numba's pool"
        if threads.pool_spins_briefly()
        else "products on helper threads"
    )
    return f"{nl.get_num_threads()} threads (numba layer setting: {layer}; {spin})"


def machine_lines():
    threads = nnlite_threads()  # imports nnlite, which sets numpy's BLAS threads
    lines = [
        f"CPU: {cpu_model()}, {os.cpu_count()} CPUs, vector ISA: {' '.join(vector_isa())}",
        f"numpy BLAS: {'; '.join(numpy_blas())}",
        f"PyTorch: {torch_capability() or 'not installed'}",
        f"nnlite: {threads}",
        "load average: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()),
    ]
    pinned = [f"{v}={os.environ[v]}" for v in PINNING_VARS if v in os.environ]
    if pinned:
        lines.append(
            f"note: {' '.join(pinned)} pins numpy's OpenBLAS kernel; unset them to time the "
            "kernel numpy would choose on this CPU"
        )
    return lines


def print_machine():
    """Print the machine the figures come from."""
    for line in machine_lines():
        print(line)
    print(flush=True)


def add_load_option(parser):
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="N",
        help="run N busy-loop processes meanwhile (a busy machine)",
    )


def _busy():
    while True:
        pass


def start_load(n):
    """Start ``n`` busy-loop processes; they end with this process."""
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_busy, daemon=True, name=f"load-{i}") for i in range(n)]
    for p in procs:
        p.start()
    if n:
        print(f"load: {n} busy-loop processes running during the measurement\n", flush=True)
    return procs


def setup(args):
    """Print the machine, then start ``args.load`` busy loops (after the figures of load)."""
    print_machine()
    return start_load(getattr(args, "load", 0))
