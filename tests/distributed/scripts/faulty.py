"""``faulty.py raise|hang-before-init|hang-in-collective|wrong-rank``, under the launcher with 2
ranks: rank 1 raises after joining the group; or sleeps before init_process_group (timeout 2 s);
or sleeps while rank 0 waits in an all_reduce on a group with a 2 s timeout; or every rank claims
to be rank 0. (Only the waits under test get the short timeout: a loaded machine may start the
ranks seconds apart.)"""

import datetime
import os
import sys
import time

import nnlite as nl
import nnlite.distributed as dist

SHORT, LONG = datetime.timedelta(seconds=2), datetime.timedelta(seconds=60)

if __name__ == "__main__":
    mode, rank = sys.argv[1], int(os.environ["RANK"])
    if mode == "hang-before-init" and rank == 1:
        time.sleep(120)
    if mode == "wrong-rank":
        dist.init_process_group("gloo", rank=0, world_size=2)
    dist.init_process_group("gloo", timeout=SHORT if mode == "hang-before-init" else LONG)
    if mode == "raise" and rank == 1:
        raise ValueError("rank 1 cannot go on")
    group = dist.new_group(timeout=SHORT)
    if mode == "hang-in-collective" and rank == 1:
        time.sleep(120)
    dist.all_reduce(nl.ones(2), group=group)  # rank 0 waits here
    dist.destroy_process_group()
