"""DistributedSampler under MPI. Usage: mpirun -n N python sampler_shards.py OUT_DIR

For several settings, every rank's indices are gathered; rank 0 writes them to OUT_DIR/shards.json
as {setting name: [indices of rank 0, indices of rank 1, ...]}."""

import json
import os
import sys

from mpi4py import MPI

from nnlite.data import DistributedSampler

out_dir = sys.argv[1]
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

SETTINGS = {
    # name: (dataset length, keyword arguments, epoch)
    "plain_10": (10, dict(shuffle=False), 0),
    "plain_11": (11, dict(shuffle=False), 0),
    "plain_2": (2, dict(shuffle=False), 0),
    "shuffle_11_e0": (11, dict(shuffle=True, seed=3), 0),
    "shuffle_11_e1": (11, dict(shuffle=True, seed=3), 1),
    "shuffle_100_e0": (100, dict(shuffle=True, seed=0), 0),
    "shuffle_100_e5": (100, dict(shuffle=True, seed=0), 5),
    "droplast_11": (11, dict(shuffle=True, seed=1, drop_last=True), 0),
    "droplast_plain_11": (11, dict(shuffle=False, drop_last=True), 0),
}

result = {}
for name, (n, kwargs, epoch) in SETTINGS.items():
    # defaults for num_replicas and rank come from MPI.COMM_WORLD
    sampler = DistributedSampler(range(n), **kwargs)
    assert sampler.num_replicas == size and sampler.rank == rank, (
        sampler.num_replicas,
        sampler.rank,
    )
    sampler.set_epoch(epoch)
    indices = [int(i) for i in sampler]
    assert len(indices) == len(sampler)
    result[name] = comm.gather(indices, root=0)
if rank == 0:
    with open(os.path.join(out_dir, "shards.json"), "w") as f:
        json.dump({"world_size": size, "settings": SETTINGS, "shards": result}, f)
print(f"rank {rank} done", flush=True)
