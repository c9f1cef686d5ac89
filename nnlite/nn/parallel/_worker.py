"""The DataParallel worker process: one replica of the module, driven by commands from the parent.

A worker holds a replica whose parameters are views into the parent's shared parameter block, so
it always computes with the current weights. Its buffers (BatchNorm running statistics) are
private copies, refreshed from the shared block before every forward; replica 0 hands its updated
buffers back through a staging area that the parent copies into the shared block once every
replica has finished the step.

Commands arrive on the worker's channel (``nnlite._runtime.worker_channel``, shared with the
DataLoader's workers) as small tuples; arrays travel through shared segments (see ``_shared``). The input chunks are used in place in the inbox segment (the parent does not
overwrite them while a graph needs them). Per call the worker keeps the autograd graph of its
forward (keyed by the call id) until a backward that does not retain it, or until the parent
reports, with a later command, that the caller dropped it; so several forwards may be pending
before their backwards, as with an ordinary module.

The worker sizes its BLAS and numba thread pools at start; if numba's pool is not running yet it
also picks the OpenMP layer (a worker never forks), and it ignores SIGINT and exits when its
parent is gone (the channel watches the parent while the worker waits).

Everything the worker prints during a command is captured and sent back, and the parent prints it
in replica order, so output is deterministic.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..._runtime.errors import ExceptionWrapper
from ..._runtime.seeding import seed_process
from ..._runtime.threads import limit_threads
from ..._runtime.worker_channel import ChannelClosed

if TYPE_CHECKING:
    from ..._runtime.worker_channel import WorkerEnd
    from ...autograd.tensor import Tensor
    from ..modules.module import Module
    from ._shared import Segment


def where(rank: int, phase: str) -> str:
    """How an error message names a replica's step."""
    return f"DataParallel worker {rank} ({phase})"


def main(rank: int, channel: WorkerEnd, setup: dict[str, Any]) -> None:
    """Entry point of a worker process.

    ``setup`` holds the module (the object itself when forked, its pickle when spawned), the shared
    segments and their layouts.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if sys.platform.startswith("linux"):
        # numba's thread-pool start takes a multiprocessing lock; under "fork" its semaphore is
        # unlinked at once, otherwise it would stay registered after os._exit below and be
        # reported as leaked when the program ends.
        import multiprocessing

        multiprocessing.set_start_method("fork", force=True)
    channel.open()
    code = 0
    try:
        try:
            replica = _Replica(rank, channel, setup)
        except BaseException:  # noqa: BLE001  (reported to the parent, which re-raises it)
            channel.send(("err", ExceptionWrapper.from_current(where(rank, "start-up")), "", ""))
            return
        channel.send(("ok", None, "", ""))
        replica.serve()
    except ChannelClosed:  # the parent is gone or closed the channel
        pass
    except BaseException:  # noqa: BLE001  (the parent learns of it through the closed pipe)
        code = 1
        try:
            traceback.print_exc()
        except Exception:  # noqa: BLE001
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        os._exit(code)  # no inherited finalisers or atexit handlers may run here


class _Replica:
    def __init__(self, rank: int, channel: WorkerEnd, setup: dict[str, Any]) -> None:
        self.rank = rank
        self.channel = channel
        limit_threads(setup["threads"], never_forks=True)

        import numpy as np

        from ...autograd import random  # noqa: F401  (loaded, so that seed_process seeds it)
        from ...autograd.tensor import _make
        from . import _shared

        self.np, self._make, self._shared = np, _make, _shared

        seed = np.random.SeedSequence(setup["seed"], spawn_key=(rank,))
        state = seed.generate_state(2, np.uint64)
        seed_process(int(state[0]) & 0x7FFFFFFFFFFFFFFF, int(state[1]), int(state[1]))

        module = setup["module"]
        if isinstance(module, bytes):
            module = pickle.loads(module)
        self.module: Module = module
        self.modules = [m for _, m in module.named_modules()]
        self.params = [p for _, p in module.named_parameters()]
        self.buffer_owners = _buffer_owners(module)
        names = [n for n, _ in module.named_parameters()] + [n for n, _ in module.named_buffers()]
        if names != setup["names"]:
            raise RuntimeError("the replica's parameters and buffers differ from the parent's")

        self.state = setup["state"]
        views = setup["state_layout"].views(self.state)
        n = len(self.params)
        for p, v in zip(self.params, views[:n]):
            p._data = v
            p._grad = None
        self.shared_buffers = views[n : n + len(self.buffer_owners)]
        self.staging = views[n + len(self.buffer_owners) :]
        for (mod, name), v in zip(self.buffer_owners, self.shared_buffers):
            buffer = mod._buffers[name]
            if buffer is not None:  # (always: _buffer_owners lists the buffers that are set)
                buffer._data = v.copy()
        self.grads = setup["grads"]
        self.grad_views = setup["grad_layout"].views(self.grads)
        self.grad_flags = self.grad_views.pop()
        self.inbox = setup["inbox"]
        self.outbox = setup["outbox"]
        # call id -> (the outputs that need a gradient, the inputs that do)
        self.graphs: dict[int, tuple[list[Tensor], list[Tensor]]] = {}
        self.last_train: object = None

    # ------------------------------------------------------------------ loop
    def serve(self) -> None:
        """Answer commands until "exit"; ``ChannelClosed`` once the parent is gone."""
        channel = self.channel
        while True:
            msg = channel.receive()
            kind = msg[0]
            if kind == "exit":
                return
            phase = "forward" if kind == "fwd" else "backward"
            out, err = io.StringIO(), io.StringIO()
            saved = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = out, err
            try:
                self._free(msg[2].get("free", ()))
                self._attach(msg[2].get("segments"))
                result = (
                    self._forward(msg[1], msg[2])
                    if kind == "fwd"
                    else self._backward(msg[1], msg[2])
                )
                reply = ("ok", result)
            except BaseException:  # noqa: BLE001  (reported to the parent, which re-raises it)
                reply = ("err", ExceptionWrapper.from_current(where(self.rank, phase)))
            finally:
                sys.stdout, sys.stderr = saved
            try:
                channel.send((*reply, out.getvalue(), err.getvalue()))
            except ChannelClosed:
                raise
            except Exception:  # noqa: BLE001  (e.g. an exception class that cannot be pickled)
                err_info = ExceptionWrapper(
                    RuntimeError, traceback.format_exc(), where(self.rank, phase)
                )
                channel.send(("err", err_info, out.getvalue(), err.getvalue()))

    def _free(self, call_ids: Iterable[int]) -> None:
        for k in call_ids:
            self.graphs.pop(k, None)

    def _attach(self, segments: dict[str, Segment] | None) -> None:
        if not segments:
            return
        for which, segment in segments.items():
            old = getattr(self, which)
            setattr(self, which, segment)
            old.release()

    # ------------------------------------------------------------------ forward
    def _forward(self, call_id: int, h: dict[str, Any]) -> dict[str, Any]:
        from ...autograd import grad_mode

        np, _make = self.np, self._make
        train = h["train"]
        if train != self.last_train:
            for m, flag in zip(self.modules, train):
                m.__dict__["training"] = flag
            self.last_train = train
        for p, flag in zip(self.params, h["requires_grad"]):
            p._requires_grad = flag
        # Fresh buffer tensors with the parent's current values (graphs still pending from earlier
        # calls keep the tensors they saved).
        for (mod, name), shared in zip(self.buffer_owners, self.shared_buffers):
            mod._buffers[name] = _make(shared.copy())

        # The inputs are used in place: the parent does not overwrite them while a graph needs them.
        arrays = self._shared.unpack(self.inbox, h["inputs"], copy=False)
        tensors = []
        for a, rg in zip(arrays, h["input_requires_grad"]):
            t = _make(a)
            if rg and h["grad"]:
                t._requires_grad = True
            tensors.append(t)
        from ..._runtime.nested import from_slots

        args, kwargs = from_slots(h["structure"], tensors)

        with grad_mode.set_grad_enabled(h["grad"]):
            output = self.module(*args, **kwargs)

        if self.rank == 0 and self.staging:
            for (mod, name), stage in zip(self.buffer_owners, self.staging):
                buffer = mod._buffers[name]
                if buffer is not None and buffer._data.shape == stage.shape:
                    np.copyto(stage, buffer._data, casting="unsafe")

        from ..._runtime.nested import to_slots
        from ...autograd.tensor import Tensor

        structure, outs = to_slots(output, lambda x: isinstance(x, Tensor))
        out_arrays = [t._data for t in outs]
        requires = [bool(t._requires_grad) for t in outs]
        need = self._shared.pack_size(out_arrays)
        if need <= self.outbox.size:
            descriptors, inline = self._shared.pack(self.outbox, out_arrays), None
        else:
            descriptors, inline = None, out_arrays
        if any(requires):
            diff_inputs = [t for t in tensors if t._requires_grad]
            self.graphs[call_id] = (outs, diff_inputs)
        return {
            "structure": structure,
            "descriptors": descriptors,
            "inline": inline,
            "need": need,
            "requires_grad": requires,
            "kept": any(requires),
        }

    # ------------------------------------------------------------------ backward
    def _backward(self, call_id: int, h: dict[str, Any]) -> dict[str, Any]:
        from ...autograd.engine import backward

        np, _make = self.np, self._make
        graph = self.graphs.get(call_id)
        if graph is None:
            raise RuntimeError(
                "DataParallel worker has no graph for this output (it was freed or never built)"
            )
        outs, diff_inputs = graph
        grads = self._shared.unpack(self.inbox, h["grads"])
        roots, seeds = [], []
        for t, g in zip(outs, grads):
            if g is not None and t._requires_grad:
                roots.append(t)
                seeds.append(_make(g))
        for p in self.params:
            p._grad = None
        for t in diff_inputs:
            t._grad = None
        retain = h.get("retain", True)
        if roots:
            backward(roots, seeds, retain_graph=retain)
        if not retain:
            self.graphs.pop(call_id, None)
        flags = self.grad_flags
        for i, (p, view) in enumerate(zip(self.params, self.grad_views)):
            g = p._grad
            if g is None:
                flags[i] = 0
            else:
                np.copyto(view, g._data, casting="unsafe")
                flags[i] = 1
                p._grad = None
        input_grads = []
        for t in diff_inputs:
            input_grads.append(None if t._grad is None else t._grad._data)
            t._grad = None
        need = self._shared.pack_size(input_grads)
        if need <= self.outbox.size:
            descriptors, inline = self._shared.pack(self.outbox, input_grads), None
        else:
            descriptors, inline = None, input_grads
        return {"descriptors": descriptors, "inline": inline, "need": need}


def _buffer_owners(module: Module) -> list[tuple[Module, str]]:
    """``(owning module, name)`` for each buffer, in ``named_buffers()`` order (no duplicates)."""
    owners: list[tuple[Module, str]] = []
    seen: set[int] = set()
    for _, mod in module.named_modules():
        for name, b in mod._buffers.items():
            if b is not None and id(b) not in seen:
                seen.add(id(b))
                owners.append((mod, name))
    return owners
