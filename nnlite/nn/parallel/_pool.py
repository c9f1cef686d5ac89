"""The parent's side of DataParallel: worker processes, shared segments and the step protocol.

A ``WorkerPool`` is built for one module layout. It

* moves the module's parameters and buffers into one shared segment (each parent tensor's
  ``_data`` becomes a view into it, values copied), so optimizer updates reach the workers with
  no copy;
* gives every worker a gradient segment (one slot per parameter plus "has a gradient" flags) and
  two exchange segments, ``inbox`` (input chunks, output gradients) and ``outbox`` (outputs,
  input gradients), which grow when a step needs more room;
* starts the workers (``fork`` when that is safe, ``forkserver`` otherwise) and runs the forward and
  backward phases, each a message to every worker and one reply from each, on the workers'
  channels (``nnlite._runtime.worker_channel``, shared with the DataLoader's workers).

Every wait watches the workers' process sentinels with their channels, so a dead worker is reported
at once, and has a deadline (``timeout``). After a fault, ``KeyboardInterrupt`` or ``close()`` no process is left:
workers are asked to exit, then terminated and killed if they do not. Segments have no name (see
``_shared``), so not even a SIGKILL of every process leaves one in ``/dev/shm``.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

import numpy as np

from ..._runtime.processes import signal_name, stop_processes
from ..._runtime.threads import THREAD_ENV_VARS, set_thread_env
from ..._runtime.worker_channel import WorkerChannel, wait
from . import _shared, _worker

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from ..._runtime.errors import ExceptionWrapper
    from ..._typing import Array
    from ...autograd.tensor import Tensor
    from ..modules.module import Module
    from ..parameter import Parameter

#: a worker's answer: ``("ok", result, stdout, stderr)`` or ``("err", ExceptionWrapper, ...)``
Reply: TypeAlias = "tuple[str, Any, str, str]"
#: what ``signature`` returns: the module tree and the parameters' and buffers' shapes
Signature: TypeAlias = "tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]"
#: what says whether a forward or backward of this kind already ran (numba kernels compiled)
CallKey: TypeAlias = "tuple[Any, ...]"

# Seconds a worker gets to exit after "exit" before it is terminated, then killed.
EXIT_GRACE = 2.0
# Start-up and the first call of each kind may compile numba kernels: they get at least this long.
FIRST_CALL_TIMEOUT = 600.0


class WorkerError(RuntimeError):
    """A DataParallel worker died or stopped answering."""


def fork_is_safe() -> bool:
    """False when numba's GNU OpenMP threading layer already runs in this process.

    GNU OpenMP does not survive ``fork``: a forked child that launches a parallel kernel is
    terminated. Workers are then started by a fork server (a clean process that forks them).
    """
    if "numba" not in sys.modules:
        return True
    from numba.np.ufunc import parallel

    try:
        layer = parallel.threading_layer()
    except ValueError:  # not started yet
        return True
    if layer != "omp":
        return True
    try:
        # a compiled extension that numba ships without type information
        from numba.np.ufunc import omppool  # type: ignore[attr-defined]

        vendor: str = omppool.openmp_vendor
        return vendor != "GNU"
    except Exception:  # noqa: BLE001
        return False


def signature(module: Module) -> Signature:
    """What the workers' replicas are built from: the module tree and the tensor shapes."""
    mods = tuple((name, id(m), type(m)) for name, m in module.named_modules())
    params = tuple((name, p._data.shape, p._data.dtype) for name, p in module.named_parameters())
    buffers = tuple((name, b._data.shape, b._data.dtype) for name, b in module.named_buffers())
    return mods, params, buffers


class WorkerPool:
    """``workers`` processes, each with a replica of ``module``, and their shared memory."""

    # set up by _setup_memory
    state_layout: _shared.Layout
    state: _shared.Segment
    param_views: list[Array]
    buffer_views: list[Array]
    staging: list[Array]
    grad_layout: _shared.Layout
    grad_segments: list[_shared.Segment]
    grad_views: list[list[Array]]
    grad_flags: list[Array]
    inboxes: list[_shared.Segment]
    outboxes: list[_shared.Segment]
    new_segments: list[dict[str, _shared.Segment]]
    outbox_need: list[int]
    start_method: str

    def __init__(
        self,
        module: Module,
        workers: int,
        threads: int,
        timeout: float | None,
        start_method: str | None = None,
        inbox_bytes: int = 0,
    ) -> None:
        self.module = module
        self.n = workers
        self.threads = threads
        self.timeout = timeout
        self.owner = os.getpid()
        self.closed = False
        self.procs: list[BaseProcess] = []
        self.channels: list[WorkerChannel] = []
        self.segments: list[_shared.Segment] = []
        self.call_ids = itertools.count()
        # per worker: call ids whose graphs can go
        self.pending_free: list[list[int]] = [[] for _ in range(workers)]
        # Per worker: inbox byte ranges holding the inputs of calls whose graphs the worker keeps
        # (it computes on them in place, so they are not overwritten until the graph is released).
        self.regions: list[dict[int, tuple[int, int]]] = [{} for _ in range(workers)]
        self.warm: set[CallKey] = set()
        self.busy = False  # a step is under way
        self.lock = threading.RLock()  # one call at a time talks to the workers
        self.signature = signature(module)

        self.modules = [m for _, m in module.named_modules()]
        named_params = list(module.named_parameters())
        named_buffers = list(module.named_buffers())
        self.params: list[Parameter] = [p for _, p in named_params]
        self.buffers: list[Tensor] = [b for _, b in named_buffers]
        self.buffer_owners = _worker._buffer_owners(module)
        self.names = [n for n, _ in named_params] + [n for n, _ in named_buffers]
        try:
            self._setup_memory(inbox_bytes)
            self._start(start_method)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ setup
    def _new_segment(self, nbytes: int) -> _shared.Segment:
        seg = _shared.Segment(nbytes)
        self.segments.append(seg)
        return seg

    def _drop_segment(self, seg: _shared.Segment) -> None:
        if seg in self.segments:
            self.segments.remove(seg)
        seg.release()

    def _setup_memory(self, inbox_bytes: int) -> None:
        tensors = self._tensors()
        entries = [(t._data.shape, t._data.dtype) for t in tensors]
        entries += [
            (b._data.shape, b._data.dtype) for b in self.buffers
        ]  # replica 0's staging area
        self.state_layout = _shared.Layout(entries)
        self.state = self._new_segment(self.state_layout.nbytes)
        views = self.state_layout.views(self.state)
        n, m = len(self.params), len(self.buffers)
        self.param_views = views[:n]
        self.buffer_views = views[n : n + m]
        self.staging = views[n + m :]
        for t, v in zip(tensors, self.param_views + self.buffer_views):
            np.copyto(v, t._data)
            t._data = v

        grad_entries: list[tuple[tuple[int, ...], np.dtype[Any] | type[np.uint8]]] = [
            (p._data.shape, p._data.dtype) for p in self.params
        ]
        grad_entries.append(((len(self.params),), np.uint8))
        self.grad_layout = _shared.Layout(grad_entries)
        self.grad_segments, self.grad_views, self.grad_flags = [], [], []
        for _ in range(self.n):
            seg = self._new_segment(self.grad_layout.nbytes)
            views = self.grad_layout.views(seg)
            self.grad_segments.append(seg)
            self.grad_flags.append(views.pop())
            self.grad_views.append(views)
        self.inboxes = [self._new_segment(_shared.grow(inbox_bytes)) for _ in range(self.n)]
        self.outboxes = [self._new_segment(_shared.grow(0)) for _ in range(self.n)]
        self.new_segments = [{} for _ in range(self.n)]
        self.outbox_need = [
            0
        ] * self.n  # per worker: bytes of the larger outbox its next command brings

    def _tensors(self) -> list[Tensor]:
        """The parameters, then the buffers."""
        tensors: list[Tensor] = list(self.params)
        return tensors + self.buffers

    def _start(self, start_method: str | None) -> None:
        # a forked child of a process whose pool runs on GNU OpenMP runs its kernels on one thread
        # (``threads.configure_threading_layer``), which is safe; more threads need a clean process
        method = start_method or ("fork" if self.threads == 1 or fork_is_safe() else "forkserver")
        if method not in multiprocessing.get_all_start_methods():
            raise RuntimeError(
                f"DataParallel needs the '{method}' start method, which this platform lacks"
            )
        self.start_method = method
        ctx = multiprocessing.get_context(method)
        # numba is imported here, once, so that every worker can choose and size its thread pool
        # before its first kernel (see ``_worker.limit_threads``) without importing it itself.
        try:
            import numba  # noqa: F401
        except ImportError:
            pass
        if method == "forkserver":
            # the server imports these once; each worker is then a cheap fork of it
            ctx.set_forkserver_preload(["nnlite.nn.parallel._worker", "nnlite.nn", "numba"])
        seed = _seed_from_parent()
        base: dict[str, Any] = {
            "parent_pid": os.getpid(),
            "threads": self.threads,
            "seed": seed,
            "names": self.names,
            "state": self.state,
            "state_layout": self.state_layout,
            "grad_layout": self.grad_layout,
        }
        module: Module | bytes = self.module
        if method != "fork":
            try:
                module = pickle.dumps(self.module, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as ex:  # noqa: BLE001
                raise RuntimeError(
                    "DataParallel cannot fork its workers here: numba's GNU OpenMP threading layer already "
                    "runs in this process and does not survive fork, so the workers must be started with "
                    f"'{method}', which needs a picklable module ({type(ex).__name__}: {ex}). Create and run the "
                    "DataParallel model before running numba kernels in this process, or set "
                    "NUMBA_THREADING_LAYER=workqueue."
                ) from ex
        saved_env = {k: os.environ.get(k) for k in THREAD_ENV_VARS}
        try:
            if method != "fork":
                set_thread_env(self.threads)  # read by a newly started interpreter's libraries
            for rank in range(self.n):
                channel = WorkerChannel()
                self.channels.append(channel)
                setup = dict(
                    base,
                    module=module,
                    grads=self.grad_segments[rank],
                    inbox=self.inboxes[rank],
                    outbox=self.outboxes[rank],
                )
                # typeshed types get_context(str) as BaseContext, which lacks the Process that
                # every real context has
                proc = ctx.Process(  # type: ignore[attr-defined]
                    target=_worker.main,
                    args=(rank, channel.worker_end, setup),
                    daemon=True,
                    name=f"DataParallel-{rank}",
                )
                proc.start()
                channel.started(proc)
                self.procs.append(proc)
        finally:
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        # Each worker reports once it has mapped every segment, or why it could not start.
        replies = self._collect(range(self.n), "start-up", first=True)
        self._raise_first_error(replies)

    # ------------------------------------------------------------------ state
    def sync(self) -> bool:
        """Make sure the module's parameters and buffers still live in the shared block.

        A tensor whose array was replaced (``.data = ...``, ``load_state_dict(assign=True)``, a
        new ``Parameter`` object) is copied into its slot and pointed at it again. Returns False
        when the layout itself changed (new or reshaped tensors, replaced submodules): the pool
        must then be rebuilt.
        """
        if signature(self.module) != self.signature:
            return False
        params = [p for _, p in self.module.named_parameters()]
        buffers = [b for _, b in self.module.named_buffers()]
        tensors: list[Tensor] = [*params, *buffers]
        for t, v in zip(tensors, self.param_views + self.buffer_views):
            if t._data is not v:
                np.copyto(v, t._data)
                t._data = v
        self.params, self.buffers = params, buffers
        return True

    def restore(self) -> None:
        """Give the module's tensors private arrays again (values copied out of shared memory)."""
        views = {
            id(v) for v in getattr(self, "param_views", []) + getattr(self, "buffer_views", [])
        }
        tensors: list[Tensor] = list(getattr(self, "params", [])) + list(
            getattr(self, "buffers", [])
        )
        try:
            tensors += [p for p in self.module.parameters()] + [b for b in self.module.buffers()]
        except Exception:  # noqa: BLE001  (a module left half-built by an exception)
            pass
        for t in tensors:
            if id(t._data) in views:
                t._data = t._data.copy()

    # ------------------------------------------------------------------ messages
    def _send(self, rank: int, msg: tuple[Any, ...]) -> None:
        try:
            self.channels[rank].send(msg)
        except OSError as ex:
            self._dead(rank, "while sending it a command", ex)

    def _header(self, rank: int, frees: Sequence[tuple[int, ...]]) -> dict[str, Any]:
        h: dict[str, Any] = {}
        if frees[rank]:
            h["free"] = frees[rank]
        if self.outbox_need[rank]:
            # created only now, and sent with the command that announces it
            old = self.outboxes[rank]
            self.outboxes[rank] = self._new_segment(self.outbox_need[rank])
            self.new_segments[rank]["outbox"] = self.outboxes[rank]
            self.outbox_need[rank] = 0
            self._drop_segment(old)
        if self.new_segments[rank]:
            h["segments"] = self.new_segments[rank]
            self.new_segments[rank] = {}
        return h

    def defer_free(self, call_id: int, ranks: Iterable[int]) -> None:
        """Workers ``ranks`` may drop their graphs of call ``call_id``; they hear it with their next
        command (this only appends to lists, so it is safe from a finaliser)."""
        if not self.closed:
            for r in ranks:
                self.pending_free[r].append(call_id)
                self.regions[r].pop(call_id, None)

    def _collect(self, ranks: Iterable[int], phase: str, first: bool = False) -> dict[int, Reply]:
        """Wait for one reply from each worker in ``ranks``; dead workers and timeouts raise."""
        pending = set(ranks)
        replies: dict[int, Reply] = {}
        timeout = self.timeout
        if first and timeout is not None:
            timeout = max(timeout, FIRST_CALL_TIMEOUT)
        deadline = None if timeout is None else time.monotonic() + timeout
        while pending:
            ranks_of = {self.channels[r]: r for r in sorted(pending)}
            ready = wait(list(ranks_of), deadline, flushing=self.channels)
            for channel in ready:
                r = ranks_of[channel]
                try:
                    replies[r] = channel.receive()
                except (EOFError, OSError) as ex:
                    self._dead(r, f"during {phase}", ex)
                pending.discard(r)
            if not ready:
                r = min(pending)
                self.close()
                raise WorkerError(
                    f"DataParallel worker {r} did not finish its {phase} within {timeout} "
                    "seconds; the workers were shut down"
                )
        return replies

    def _dead(self, rank: int, when: str, cause: BaseException | None = None) -> NoReturn:
        proc = self.procs[rank]
        proc.join(0.5)
        code, pid = proc.exitcode, proc.pid
        if code is None:
            how = "stopped answering"
        elif code < 0:
            how = f"was killed by signal {signal_name(code)}"
        else:
            how = f"exited unexpectedly with exit code {code}"
        self.close()
        raise WorkerError(
            f"DataParallel worker {rank} (pid {pid}) {how} {when}; the workers were shut "
            "down (they restart at the next forward)"
        ) from cause

    def _run(
        self,
        ranks: list[int],
        message: Callable[[int], tuple[Any, ...]],
        phase: str,
        serial: bool,
        frees: Sequence[tuple[int, ...]],
    ) -> dict[int, Reply]:
        """Send ``message(rank)`` to each worker and collect the replies.

        Each message is built (its arrays copied into shared memory) just before it is sent, so
        the first workers start while the parent prepares the others. The first call of a kind
        runs on worker 0 alone before the others start: it compiles or loads the numba kernels
        and writes their cache, which concurrent writers would race on.
        """
        replies: dict[int, Reply] = {}
        self.busy = True
        try:
            if serial and len(ranks) > 1:
                first, rest = ranks[:1], ranks[1:]
                self._send(first[0], message(first[0]))
                replies.update(self._collect(first, phase, first=True))
            else:
                rest = ranks
            for r in rest:
                self._send(r, message(r))
            replies.update(self._collect(rest, phase, first=serial))
        except BaseException:
            # KeyboardInterrupt or a fault: the protocol is out of step, so start afresh next time.
            self.close()
            raise
        self.busy = False
        for r in ranks:
            del self.pending_free[r][: len(frees[r])]  # finalisers may have added more meanwhile
        for r in ranks:
            _, _, out, err = replies[r]
            if out:
                sys.stdout.write(out)
            if err:
                sys.stderr.write(err)
        return replies

    @staticmethod
    def _raise_first_error(replies: dict[int, Reply]) -> None:
        errors: list[ExceptionWrapper] = [
            replies[r][1] for r in sorted(replies) if replies[r][0] == "err"
        ]
        if errors:
            raise errors[0].exception()

    def _place(self, rank: int, nbytes: int) -> int:
        """A byte offset in worker ``rank``'s inbox where ``nbytes`` fit without touching the
        inputs of pending graphs (first fit); the inbox grows when they do not fit."""
        offset = 0
        for start, end in sorted(self.regions[rank].values()):
            if offset + nbytes <= start:
                break
            offset = max(offset, end)
        if offset + nbytes > self.inboxes[rank].size:
            # A new, larger inbox; the worker keeps the old one mapped while its graphs use it.
            old = self.inboxes[rank]
            self.inboxes[rank] = self._new_segment(_shared.grow(offset + nbytes))
            self.new_segments[rank]["inbox"] = self.inboxes[rank]
            self._drop_segment(old)
            self.regions[rank].clear()
            offset = 0
        return offset

    def _read_results(self, rank: int, result: dict[str, Any]) -> list[Array | None]:
        """Arrays a worker sent: from its outbox, or inline (then the outbox grows with the next
        command, see ``_header``)."""
        if result["inline"] is not None:
            self.outbox_need[rank] = max(self.outbox_need[rank], _shared.grow(result["need"]))
            inline: list[Array | None] = result["inline"]
            return inline
        return _shared.unpack(self.outboxes[rank], result["descriptors"], copy=False)

    # ------------------------------------------------------------------ phases
    def forward(
        self,
        chunks: Sequence[Sequence[Array]],
        input_requires_grad: Sequence[bool],
        structure: object,
        grad_enabled: bool,
    ) -> tuple[int, list[tuple[Any, list[Array | None], list[bool]]], CallKey]:
        """Run the module on ``chunks[rank]`` (lists of input arrays) in workers ``0..len-1``.

        Returns ``(call_id, results)`` with, per worker, the output structure, the output arrays
        (views into the outboxes, valid until the next phase) and their ``requires_grad`` flags.
        """
        call_id = next(self.call_ids)
        train = tuple(m.training for m in self.modules)
        requires_grad = tuple(p._requires_grad for p in self.params)
        frees = [tuple(f) for f in self.pending_free]
        placed: dict[int, tuple[int, int]] = {}

        def message(rank: int) -> tuple[Any, ...]:
            arrays = chunks[rank]
            nbytes = _shared.pack_size(arrays)
            offset = self._place(rank, nbytes)
            placed[rank] = (offset, offset + nbytes)
            h = self._header(rank, frees)
            h.update(
                inputs=_shared.pack(self.inboxes[rank], arrays, offset),
                input_requires_grad=input_requires_grad,
                structure=structure,
                grad=grad_enabled,
                train=train,
                requires_grad=requires_grad,
            )
            return ("fwd", call_id, h)

        key = ("fwd", grad_enabled, train, tuple((a.dtype.str, a.ndim) for a in chunks[0]))
        replies = self._run(
            list(range(len(chunks))), message, "forward", key not in self.warm, frees
        )
        self.warm.add(key)
        for rank, reply in replies.items():
            if reply[0] == "ok" and reply[1]["kept"]:
                self.regions[rank][call_id] = placed[rank]
        if any(replies[r][0] == "err" for r in replies):
            self.defer_free(call_id, replies)  # replicas that succeeded kept a graph
            self._raise_first_error(replies)
        if self.staging:
            for stage, view in zip(self.staging, self.buffer_views):
                np.copyto(view, stage)
            for b in self.buffers:
                b._bump_version()
        results = []
        for rank in sorted(replies):
            res = replies[rank][1]
            results.append((res["structure"], self._read_results(rank, res), res["requires_grad"]))
        return call_id, results, key

    def backward(
        self,
        call_id: int,
        grads: Sequence[Sequence[Array | None]],
        param_indices: Sequence[int],
        key: CallKey,
        retain: bool = True,
    ) -> tuple[list[Array | None], list[list[Array | None]]]:
        """Backpropagate ``grads[rank]`` (one array or None per output) through each worker's graph
        of call ``call_id`` (kept afterwards if ``retain``). Returns the summed gradients of
        ``params[i]`` for ``i`` in ``param_indices`` (None where no worker produced one) and, per
        worker, its input gradients.
        """
        frees = [tuple(f) for f in self.pending_free]

        def message(rank: int) -> tuple[Any, ...]:
            arrays = grads[rank]
            offset = self._place(rank, _shared.pack_size(arrays))
            h = self._header(rank, frees)
            h.update(grads=_shared.pack(self.inboxes[rank], arrays, offset), retain=retain)
            return ("bwd", call_id, h)

        bkey = ("bwd",) + key
        replies = self._run(
            list(range(len(grads))), message, "backward", bkey not in self.warm, frees
        )
        self.warm.add(bkey)
        self._raise_first_error(replies)
        ranks = sorted(replies)
        param_grads: list[Array | None] = []
        for i in param_indices:
            parts = [self.grad_views[r][i] for r in ranks if self.grad_flags[r][i]]
            if not parts:
                param_grads.append(None)
                continue
            total = (
                parts[0].copy() if len(parts) == 1 else np.add(parts[0], parts[1])
            )  # a fresh array
            for g in parts[2:]:
                np.add(total, g, out=total)
            param_grads.append(total)
        input_grads = [
            self._read_results(r, replies[r][1]) for r in ranks
        ]  # views: copy before the next call
        return param_grads, input_grads

    # ------------------------------------------------------------------ shutdown
    def close(self) -> None:
        """Stop the workers, give the module private arrays again and release every segment."""
        if self.closed or os.getpid() != self.owner:
            return
        self.closed = True
        try:
            for channel, proc in zip(self.channels, self.procs):
                if proc.is_alive():
                    try:
                        channel.send(("exit",))
                    except OSError:
                        pass
            # Workers in the middle of a step (interrupted, timed out) are not waited for.
            stop_processes(self.procs, 0.0 if self.busy else EXIT_GRACE)
            for channel in self.channels:
                channel.close()
            for proc in self.procs:
                try:
                    proc.close()
                except ValueError:
                    pass
        finally:
            self.restore()
            for seg in self.segments:
                seg.release()
            self.segments = []


def _seed_from_parent() -> int:
    """A seed for the workers' generators derived from nnlite's generator without drawing from it
    (so the parent's random stream is the same with or without DataParallel)."""
    from ...autograd.random import get_rng_state

    state = get_rng_state()
    inner = state.get("state", {})
    value = inner.get("state", 0) if isinstance(inner, dict) else 0
    return int(value) % (1 << 128)
