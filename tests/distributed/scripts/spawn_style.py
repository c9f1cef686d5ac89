"""``python spawn_style.py OUT N [FAIL_RANK]``: ``mp.spawn`` starts N processes, each sets the
master address and calls ``init_process_group("gloo", rank=rank, world_size=world_size)``, as
in PyTorch's DDP tutorial. With FAIL_RANK, that rank raises after joining the group."""

import os
import sys

from _body import run

import nnlite.distributed as dist
import nnlite.multiprocessing as mp


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def main(rank, world_size, out, fail_rank):
    setup(rank, world_size)
    if rank == fail_rank:
        raise RuntimeError(f"rank {rank} fails on purpose")
    run(rank, world_size, out)
    dist.destroy_process_group()


if __name__ == "__main__":
    out, world_size = sys.argv[1], int(sys.argv[2])
    fail_rank = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    mp.spawn(main, args=(world_size, out, fail_rank), nprocs=world_size, join=True)
