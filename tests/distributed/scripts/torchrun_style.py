"""Started by ``python -m nnlite.distributed.run --nproc-per-node=N torchrun_style.py OUT [CODE]``:
the rank and world size come from the environment, as under torchrun. Exits with CODE."""

import os
import sys

from _body import run

import nnlite.distributed as dist

if __name__ == "__main__":
    dist.init_process_group(backend="gloo")
    run(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), sys.argv[1])
    dist.destroy_process_group()
    sys.exit(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
