"""Started by ``mpirun -n N python mpirun_style.py OUT BACKEND``."""

import sys

from _body import run

import nnlite.distributed as dist

if __name__ == "__main__":
    dist.init_process_group(sys.argv[2])
    run(dist.get_rank(), dist.get_world_size(), sys.argv[1])
    dist.destroy_process_group()
