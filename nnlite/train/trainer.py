"""The training loop: a run directory, epochs of training and evaluation, checkpoints, metrics,
the final report; resume, finetuning, DataParallel and MPI.

Reproducibility: ``seed`` seeds nnlite's, numpy's and python's generators before the model is
built. Epoch ``e``'s data order and the loader workers' seeds are functions of ``(seed, e)``
alone (a loader is made for each epoch), and every checkpoint, written at the end of an epoch,
holds the generators' states. Resuming from it therefore replays the remaining epochs exactly:
the final weights equal those of an uninterrupted run, bit for bit.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import os
import random
import shutil
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import numpy as np

from .._runtime.atomic_file import replace_atomically
from .._runtime.threads import set_num_threads
from ..autograd.grad_mode import no_grad
from ..autograd.random import manual_seed
from . import checkpoint as ckpt_io
from .builders import (
    TrainError,
    apply_finetune,
    build_datasets,
    build_loss,
    build_model,
    build_optimizer,
    build_scheduler,
    check_model_output,
    scheduler_steps,
)
from .config import ConfigError, TrainConfig, dump_config
from .metrics import ClassificationMeter, MetricsLog, accuracy_lines, write_json_atomic
from .model_summary_file import write_model_summary
from .predictions import FILE_NAME, write_predictions
from .signals import Stopped, requested_signal, stop_message, stop_on_signals

if TYPE_CHECKING:
    from ..autograd.tensor import Tensor
    from ..data import DataLoader
    from ..nn.modules.module import Module

__all__ = ["Trainer", "NonFiniteLossError", "TrainError", "seed_everything", "new_run_dir"]


#: ``observer(run_dir, state, message)``, told when a run's folder changes (the run report)
Observer = Callable[[str, str, str | None], object]

_T = TypeVar("_T")


class NonFiniteLossError(TrainError):
    """The loss became NaN or infinite.

    Examples:
        >>> from nnlite.train import NonFiniteLossError, TrainError
        >>> issubclass(NonFiniteLossError, TrainError)  # the run stops with exit code 3
        True
    """


def seed_everything(seed: int) -> None:
    """Seed nnlite's, numpy's global and python's generators."""
    manual_seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002  (seeding the global generator is the point)
    random.seed(seed)


def _epoch_seed(seed: int, epoch: int) -> int:
    """The data loader seed of one epoch: a function of ``(seed, epoch)`` only."""
    return int(
        np.random.SeedSequence([int(seed), int(epoch), 0x7A11]).generate_state(1, np.uint64)[0] >> 2
    )


def new_run_dir(output_dir: str, name: str) -> str:
    """Create ``output_dir/<name>-<YYYYmmdd-HHMMSS>`` (``-1``, ``-2``, ... if taken) and return it."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = os.path.join(output_dir, f"{name}-{stamp}")
    os.makedirs(output_dir, exist_ok=True)
    for i in range(10000):
        path = base if i == 0 else f"{base}-{i}"
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        return path
    raise TrainError(f"cannot create a run directory under {output_dir}")


def _link_latest(run_dir: str, output_dir: str, name: str) -> None:
    """``output_dir/<name>-latest``: a symlink to the newest run of that name."""
    link = os.path.join(output_dir, f"{name}-latest")
    tmp = f"{link}.{os.getpid()}.tmp"
    try:
        if os.path.lexists(link) and not os.path.islink(link):
            return
        os.symlink(os.path.basename(run_dir), tmp)
        os.replace(tmp, link)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _all_finite(arr: np.ndarray) -> bool:
    """Whether ``arr`` holds no inf or nan: one sum (inf or nan if any entry is), and only
    when that is not finite (an overflowing sum) a check of every entry."""
    return math.isfinite(float(np.add.reduce(arr, axis=None))) or bool(np.isfinite(arr).all())


@contextlib.contextmanager
def _writing(what: str, path: str, kept: str | None = None) -> Iterator[None]:
    """Turn a failed write (full disk, read-only folder, ...) into one ``TrainError`` line."""
    try:
        yield
    except OSError as e:
        reason = e.strerror or str(e)
        raise TrainError(
            f"cannot write {what} {path}: {reason}" + (f"; {kept}" if kept else "")
        ) from None


class _EpochProgress:
    """The running figures of one training epoch (losses, images, time) and its progress bar."""

    def __init__(self, epoch: int, epochs: int, batches: int, show_bar: bool) -> None:
        self.epoch = epoch
        self.running = self.total = 0.0
        self.images = self.batches = 0
        self.t0 = time.perf_counter()
        self._next_postfix = 0.0
        self.bar: Any = None  # a tqdm bar (tqdm ships no types)
        if show_bar:
            from tqdm import tqdm

            self.bar = tqdm(
                total=batches,
                desc=f"epoch {epoch + 1}/{epochs}",
                unit="batch",
                position=1,
                leave=False,
                dynamic_ncols=True,
            )

    def add(self, loss: float, images: int) -> None:
        self.running += loss
        self.total += loss
        self.images += images
        self.batches += 1

    def take_running(self) -> float:
        """The loss summed since the last call (the tutorial's running loss)."""
        running, self.running = self.running, 0.0
        return running

    def seconds(self) -> float:
        return time.perf_counter() - self.t0

    def refresh_bar(self, i: int) -> None:
        if self.bar is None:
            return
        self.bar.update(1)
        now = time.perf_counter()
        if now >= self._next_postfix:
            self._next_postfix = now + 0.5
            self.bar.set_postfix(
                {
                    "loss": f"{self.total / (i + 1):.3f}",
                    "img/s": f"{self.images / max(now - self.t0, 1e-9):.0f}",
                },
                refresh=False,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class _Distributed:
    """Rank, size and communicator of an MPI job (a single process without one)."""

    def __init__(self, backend: str | None) -> None:
        self.comm: Any = None  # an mpi4py communicator (an optional package)
        self.rank, self.size = 0, 1
        if backend == "mpi":
            try:
                from mpi4py import MPI
            except ImportError:
                raise ConfigError(
                    "parallel.backend: mpi needs mpi4py: pip install 'nnlite[mpi]' (with Open MPI "
                    "from your system's packages), then launch with mpirun -n N python train.py ...",
                    "parallel.backend",
                ) from None
            self.comm = MPI.COMM_WORLD
            self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
            self._max = MPI.MAX

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def bcast(self, obj: _T) -> _T:
        shared: _T = obj if self.comm is None else self.comm.bcast(obj, root=0)
        return shared

    def sum(self, value: _T) -> _T:
        total: _T = value if self.comm is None else self.comm.allreduce(value)
        return total

    def max(self, value: _T) -> _T:
        largest: _T = value if self.comm is None else self.comm.allreduce(value, op=self._max)
        return largest

    def barrier(self) -> None:
        if self.comm is not None:
            self.comm.Barrier()


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Trainer:
    """Trains the model a resolved config describes.

    Args:
        config: a resolved config (``load_config``'s result).
        run_dir: the run directory to resume (``None``: a new one under ``output_dir``).
        progress: show tqdm progress bars (``None``: only when stdout and stderr are terminals).
        observers: callables ``observer(run_dir, state, message)`` run on the main process after
            every epoch (state ``running``) and when training ends (``finished``, ``interrupted``,
            ``nonfinite``, ``failed``); ``train.py`` passes the run report's writer.

    ``fit()`` trains the remaining epochs and returns the report (also written to
    ``report.json``).

    Examples:
        >>> write_fake_mnist("mnist", train=8, test=4)  # tiny MNIST files
        >>> config = {
        ...     "name": "demo",
        ...     "model": {"name": "mlp", "args": {"in_features": 784, "hidden": [16]}},
        ...     "data": {"dataset": "mnist", "root": "mnist", "batch_size": 4,
        ...              "train_transforms": [{"name": "to_tensor"}], "test_transforms": [{"name": "to_tensor"}]},
        ...     "optimizer": {"name": "sgd", "lr": 0.1},
        ...     "epochs": 1,
        ... }
        >>> from nnlite.train import Trainer, load_config
        >>> report = Trainer(load_config(raw=config), progress=False).fit()
        Run directory: runs/demo-...
        >>> report["epochs"], report["test_images"]
        (1, 4)
    """

    def __init__(
        self,
        config: TrainConfig,
        run_dir: str | None = None,
        progress: bool | None = None,
        observers: Iterable[Observer] = (),
    ) -> None:
        self.cfg = config
        self.observers = list(observers)
        self.resume_dir = run_dir
        self.dist = _Distributed(config.parallel.backend)
        self.progress = _stdout_is_terminal() if progress is None else bool(progress)
        self.progress = self.progress and self.dist.is_main
        # tqdm bars (tqdm ships no types)
        self._bar_epochs: Any = None
        self._bar_batches: Any = None
        self.net: Module | None = None

    # ------------------------------------------------------------------ output

    def print(self, *parts: object) -> None:
        """Print a progress line (on the main process only; above the progress bars when shown).

        Args:
            *parts: printed separated by spaces.

        Examples:
            >>> write_fake_mnist("mnist", train=8, test=4)  # tiny MNIST files
            >>> config = {
            ...     "name": "demo",
            ...     "model": {"name": "mlp", "args": {"in_features": 784, "hidden": [16]}},
            ...     "data": {"dataset": "mnist", "root": "mnist", "batch_size": 4,
            ...              "train_transforms": [{"name": "to_tensor"}], "test_transforms": [{"name": "to_tensor"}]},
            ...     "optimizer": {"name": "sgd", "lr": 0.1},
            ...     "epochs": 1,
            ... }
            >>> from nnlite.train import Trainer, load_config
            >>> Trainer(load_config(raw=config), progress=False).print("epoch", 1, "done")
            epoch 1 done
        """
        if not self.dist.is_main:
            return
        text = " ".join(str(p) for p in parts)
        if self._bar_epochs is not None or self._bar_batches is not None:
            from tqdm import tqdm

            tqdm.write(text, file=sys.stdout)
            sys.stdout.flush()
        else:
            print(text, flush=True)

    # ------------------------------------------------------------------ set-up

    def _setup(self) -> None:
        cfg = self.cfg
        if cfg.threads is not None:
            cpus = os.cpu_count() or 1
            if cfg.threads > cpus and self.dist.is_main:
                warnings.warn(
                    f"threads: {cfg.threads} is more than the {cpus} CPUs of this machine; the extra "
                    "threads only compete for them",
                    UserWarning,
                    stacklevel=2,
                )
            set_num_threads(cfg.threads)
        seed_everything(cfg.seed)
        self.train_set, self.test_set = build_datasets(cfg.data)
        self.classes = [str(c) for c in getattr(self.train_set, "classes", [])]
        if not self.classes:
            raise TrainError(f"data: {type(self.train_set).__name__} has no class names")
        num_classes = len(self.classes)

        model = build_model(cfg.model)
        self.frozen: list[Module] = []
        ft = cfg.finetune
        resuming = self.resume_dir is not None and os.path.exists(self._last_path(self.resume_dir))
        if ft is not None:
            self.frozen = apply_finetune(
                model, ft, num_classes, load_weights=not resuming, log=self.print
            )
        check_model_output(model, self.test_set, num_classes)
        self.model = model
        self.criterion = build_loss(cfg.loss, num_classes)

        params = [p for p in model.parameters() if p.requires_grad]
        self._param_names = {id(p): name for name, p in model.named_parameters()}
        self.optimizer = build_optimizer(cfg.optimizer, params)
        self.scheduler = build_scheduler(
            cfg.scheduler, self.optimizer, cfg.epochs, len(self._loader(True, 0))
        )
        self.scheduler_steps = scheduler_steps(cfg.scheduler)
        self.start_epoch, self.global_step, self.best_accuracy, self.seconds = 0, 0, -1.0, 0.0
        self.best_epoch = 0
        self.last_meter: ClassificationMeter | None = None
        state = (
            self._restore(self._last_path(self.resume_dir))
            if resuming and self.resume_dir is not None
            else None
        )

        # the run directory, once everything above has been checked
        if self.resume_dir is not None:
            self.run_dir = self.resume_dir
        else:
            run_dir: str | None = None
            if self.dist.is_main:
                with _writing("the run directory", cfg.output_dir):
                    run_dir = new_run_dir(cfg.output_dir, cfg.run_name)
                    try:
                        with replace_atomically(os.path.join(run_dir, "config.yaml")) as f:
                            f.write(dump_config(cfg).encode("utf-8"))
                    except OSError:
                        shutil.rmtree(
                            run_dir, ignore_errors=True
                        )  # no empty run folder left behind
                        raise
                _link_latest(run_dir, cfg.output_dir, cfg.run_name)
            shared_dir = self.dist.bcast(run_dir)
            assert shared_dir is not None  # the main process made it
            self.run_dir = shared_dir
        if self.dist.is_main:
            with _writing("the run directory", self.run_dir):
                os.makedirs(os.path.join(self.run_dir, "checkpoints"), exist_ok=True)
            if self.observers:  # the page's model summary, while the model and kernels are at hand
                write_model_summary(self.run_dir, model, self.test_set)
        self.metrics = MetricsLog(os.path.join(self.run_dir, "metrics.jsonl"))
        if self.dist.is_main and self.resume_dir is not None:
            with _writing("metrics", self.metrics.path):
                self.metrics.truncate_after(self.start_epoch)  # lines written after the checkpoint
        if state is not None:
            self.print(
                f"Resuming {self.run_dir} after epoch {self.start_epoch} (checkpoints/last.npz)"
            )
        elif self.resume_dir is not None:
            self.print(f"No checkpoint in {self.run_dir} yet: starting it from the beginning")

        # parallel wrapping (the plain model keeps the parameters the optimizer steps)
        workers = cfg.parallel.workers
        if cfg.parallel.backend == "mpi":
            # looked up on the package at run time: nn.parallel provides it when distributed.py
            # is there
            if TYPE_CHECKING:
                from ..nn.parallel.distributed import DistributedDataParallel
            else:
                from ..nn.parallel import DistributedDataParallel

            self.net = DistributedDataParallel(
                model, comm=self.dist.comm, timeout=cfg.parallel.timeout_seconds
            )
        elif workers > 1:
            from ..nn.parallel import DataParallel

            self.net = DataParallel(model, workers=workers)
        else:
            self.net = model
        if state is not None:  # last, so that nothing above draws from the restored generators
            ckpt_io.set_rng_state(state["rng"])

    def _restore(self, path: str) -> dict[str, Any]:
        """Load model, optimizer, scheduler and counters from the checkpoint ``path``."""
        try:
            state = ckpt_io.load_checkpoint(path)
        except ckpt_io.CheckpointFileError as e:
            raise TrainError(str(e)) from None
        try:
            self.model.load_state_dict(state["model"])
        except (KeyError, RuntimeError, ValueError) as e:
            raise TrainError(f"checkpoint {path} does not fit the model: {e}") from None
        try:
            self.optimizer.load_state_dict(state["optimizer"])
            if self.scheduler is not None and state.get("scheduler") is not None:
                self.scheduler.load_state_dict(state["scheduler"])
        except (KeyError, ValueError, RuntimeError) as e:
            raise TrainError(f"checkpoint {path}: cannot restore the optimizer: {e}") from None
        self.start_epoch = int(state["epoch"])
        self.global_step = int(state["global_step"])
        self.best_accuracy = float(state["best_accuracy"])
        self.best_epoch = int(state.get("best_epoch", 0))
        self.seconds = float(state.get("seconds", 0.0))
        return state

    @staticmethod
    def _last_path(run_dir: str) -> str:
        return os.path.join(run_dir, "checkpoints", "last.npz")

    def _loader(self, train: bool, epoch: int) -> DataLoader[Any]:
        from ..data import DataLoader, DistributedSampler, Subset

        data = self.cfg.data
        seed = _epoch_seed(self.cfg.seed, epoch if train else 0)
        if train:
            if self.dist.size > 1:
                sampler = DistributedSampler(
                    self.train_set,
                    num_replicas=self.dist.size,
                    rank=self.dist.rank,
                    shuffle=True,
                    seed=self.cfg.seed,
                )
                sampler.set_epoch(epoch)
                return DataLoader(
                    self.train_set,
                    batch_size=data.batch_size,
                    sampler=sampler,
                    num_workers=data.num_workers,
                    seed=seed,
                )
            return DataLoader(
                self.train_set,
                batch_size=data.batch_size,
                shuffle=True,
                num_workers=data.num_workers,
                seed=seed,
            )
        test_set = self.test_set
        if self.dist.size > 1:  # a disjoint shard per rank, no padding: counts add up exactly
            test_set = Subset(
                self.test_set, list(range(self.dist.rank, len(self.test_set), self.dist.size))
            )
        return DataLoader(
            test_set,
            batch_size=data.test_batch_size,
            shuffle=False,
            num_workers=data.num_workers,
            seed=seed,
        )

    # ------------------------------------------------------------------ loop

    def fit(self) -> dict[str, Any]:
        """Train the remaining epochs, evaluate, write checkpoints, metrics and the report.

        Returns:
            dict: the final report (``accuracy``, ``per_class_accuracy``, ``test_loss``, ``epochs``, ...).

        Examples:
            >>> write_fake_mnist("mnist", train=8, test=4)  # tiny MNIST files
            >>> config = {
            ...     "name": "demo",
            ...     "model": {"name": "mlp", "args": {"in_features": 784, "hidden": [16]}},
            ...     "data": {"dataset": "mnist", "root": "mnist", "batch_size": 4,
            ...              "train_transforms": [{"name": "to_tensor"}], "test_transforms": [{"name": "to_tensor"}]},
            ...     "optimizer": {"name": "sgd", "lr": 0.1},
            ...     "epochs": 1,
            ... }
            >>> from nnlite.train import Trainer, load_config
            >>> report = Trainer(load_config(raw=config), progress=False).fit()
            Run directory: runs/demo-...
            >>> sorted(report)[:4]
            ['accuracy', 'best_accuracy', 'best_epoch', 'epochs']
        """
        # the run checks losses, gradients, outputs and weights itself and stops with one line
        # naming the epoch and batch: numpy's own warnings about them would only add noise
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"), stop_on_signals():
            return self._fit()

    def _fit(self) -> dict[str, Any]:
        t_start = time.perf_counter()
        try:
            self._setup()
            self.print(f"Run directory: {self.run_dir}")
            epochs = self.cfg.epochs
            if self.progress:
                from tqdm import tqdm

                self._bar_epochs = tqdm(
                    total=epochs,
                    initial=self.start_epoch,
                    desc="epochs",
                    unit="epoch",
                    position=0,
                    dynamic_ncols=True,
                )
            for epoch in range(self.start_epoch, epochs):
                self._run_epoch(epoch)
                if self._bar_epochs is not None:
                    meter = self.last_meter
                    assert meter is not None  # the epoch evaluated
                    self._bar_epochs.set_postfix(
                        {"test_acc": f"{100 * meter.accuracy:.2f}%"}, refresh=False
                    )
                    self._bar_epochs.update(1)
            self._close_bars()
            if self.last_meter is None:  # nothing left to train: evaluate what the checkpoint holds
                self.last_meter = self._evaluate()
            self._check_stop()
            self.print("Finished Training")
            report = self._report(time.perf_counter() - t_start)
            self._notify("finished")
            return report
        except KeyboardInterrupt as e:
            self._notify("interrupted", stop_message(getattr(e, "signum", signal.SIGINT)))
            raise
        except Exception as e:
            signum = requested_signal()
            if signum is not None:  # e.g. a loader worker the same SIGTERM ended: the stop it was
                self._notify("interrupted", stop_message(signum))
                raise Stopped(signum) from e
            if isinstance(e, NonFiniteLossError):
                self._notify("nonfinite", str(e))
            else:
                self._notify("failed", f"{type(e).__name__}: {e}")
            raise
        finally:
            self._close_bars()
            self._close_net()

    def _check_stop(self) -> None:
        """Raise ``Stopped`` if Ctrl-C or SIGTERM asked the run to stop. The MPI ranks decide
        together (a signal to any rank stops them all at the same batch), so no rank is left
        waiting in a collective for one that stopped."""
        signum = requested_signal()
        if self.dist.size > 1:
            signum = self.dist.max(signum or 0) or None
        if signum is not None:
            raise Stopped(signum)

    def _notify(self, state: str, message: str | None = None) -> None:
        """Tell the observers (the run report) that the run folder changed."""
        if getattr(self, "run_dir", None) is not None and self.dist.is_main:
            for observer in self.observers:
                observer(self.run_dir, state, message)

    def _close_bars(self) -> None:
        for name in ("_bar_batches", "_bar_epochs"):
            bar = getattr(self, name)
            if bar is not None:
                bar.close()
                setattr(self, name, None)

    def _close_net(self) -> None:
        net = self.net
        self.net = None
        if net is not None and net is not getattr(self, "model", None):
            close = getattr(net, "close", None)
            if callable(close):
                close()

    def _run_epoch(self, epoch: int) -> None:
        """Train one epoch, step the scheduler, evaluate, then ``_end_epoch``."""
        net = self.net
        assert net is not None  # made by _setup
        loader = self._loader(True, epoch)
        lr = float(self.optimizer.param_groups[0]["lr"])
        net.train()
        for m in self.frozen:
            m.eval()
        progress = _EpochProgress(epoch, self.cfg.epochs, len(loader), self.progress)
        self._bar_batches = progress.bar
        for i, (images, labels) in enumerate(loader):
            self._check_stop()  # Ctrl-C and SIGTERM stop here, between batches
            value = self._train_step(images, labels, epoch, i)
            progress.add(value, labels.shape[0])
            self._log_step(progress, i, value)
        self._check_stop()
        train_seconds = progress.seconds()
        self.global_step += progress.batches
        in_sync = getattr(net, "parameters_in_sync", None) if self.dist.size > 1 else None
        if in_sync is not None and not in_sync():
            raise TrainError(f"epoch {epoch + 1}: the MPI ranks' parameters differ after training")
        progress.close()
        self._bar_batches = None
        if self.scheduler is not None and self.scheduler_steps == "epoch":
            self.scheduler.step()

        t1 = time.perf_counter()
        meter = self._evaluate(epoch)
        eval_seconds = time.perf_counter() - t1
        if self.scheduler is not None and self.scheduler_steps == "metric":
            self.scheduler.step(meter.loss)
        self.last_meter = meter
        self.seconds += train_seconds + eval_seconds

        images_all = self.dist.sum(progress.images)
        record: dict[str, float] = {
            "epoch": epoch + 1,
            "train_loss": self.dist.sum(progress.total) / max(self.dist.sum(progress.batches), 1),
            "test_loss": meter.loss,
            "test_accuracy": meter.accuracy,
            "epoch_seconds": train_seconds,
            "images_per_second": images_all / max(train_seconds, 1e-9),
            "lr": lr,
            "eval_seconds": eval_seconds,
            "global_step": self.global_step,
        }
        self._end_epoch(epoch, record, meter, progress.batches)

    def _train_step(self, images: Tensor, labels: Tensor, epoch: int, i: int) -> float:
        """One optimizer step on a batch; returns the batch's loss. The loss and every gradient
        are checked to be finite before the optimizer may use them."""
        net, optimizer, criterion = self.net, self.optimizer, self.criterion
        assert net is not None  # made by _setup
        # DistributedDataParallel averages the gradients of the ranks when asked, after backward
        sync = getattr(net, "allreduce_gradients", None) if self.dist.size > 1 else None
        first_value: list[float] = []

        def closure() -> Tensor:  # LBFGS calls it several times; the others once
            optimizer.zero_grad()
            loss: Tensor = criterion(net(images), labels)
            value: float = loss.item()
            if not math.isfinite(value):
                self._non_finite(f"the loss is {value}", epoch, i)
            loss.backward()
            if sync is not None:
                sync()
            self._check_gradients(epoch, i)
            first_value.append(value)
            return loss

        optimizer.step(closure)
        if self.scheduler is not None and self.scheduler_steps == "batch":
            self.scheduler.step()
        return first_value[0]

    def _check_gradients(self, epoch: int, i: int) -> None:
        for group in self.optimizer.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None or _all_finite(grad._data):
                    continue
                bad = "nan" if np.isnan(grad._data).any() else "inf"
                self._non_finite(
                    f"the gradient of {self._param_names.get(id(p), 'a parameter')} holds {bad}",
                    epoch,
                    i,
                )

    def _log_step(self, progress: _EpochProgress, i: int, value: float) -> None:
        """After each training step: the tutorial's running-loss line (and a per-step
        ``metrics.jsonl`` line) every ``log_every`` batches, and the progress bar's figures."""
        log_every = self.cfg.log_every
        if (i + 1) % log_every == 0:
            running = progress.take_running() / log_every
            self.print(f"[{progress.epoch + 1}, {i + 1:5d}] loss: {running:.3f}")
            if self.dist.is_main:  # a per-step line: the report's running-loss curve
                with _writing("metrics", self.metrics.path):
                    self.metrics.append(
                        {
                            "epoch": progress.epoch + 1,
                            "step": self.global_step + i + 1,
                            "train_loss": running,
                            "lr": float(self.optimizer.param_groups[0]["lr"]),
                        }
                    )
        progress.refresh_bar(i)

    def _end_epoch(
        self, epoch: int, record: dict[str, float], meter: ClassificationMeter, batches: int
    ) -> None:
        """After each epoch's evaluation: the best accuracy so far, the epoch's line, its
        ``metrics.jsonl`` record and the checkpoints (weights checked to be finite first)."""
        improved = meter.accuracy > self.best_accuracy
        if improved:
            self.best_accuracy, self.best_epoch = meter.accuracy, epoch + 1
        self.print(
            f"epoch {epoch + 1}/{self.cfg.epochs}: train loss {record['train_loss']:.3f}, "
            f"test loss {meter.loss:.3f}, test accuracy {100 * meter.accuracy:.2f} %, "
            f"{record['epoch_seconds']:.1f} s ({record['images_per_second']:,.0f} img/s)"
        )
        self._check_weights(epoch, batches)
        if self.dist.is_main:
            with _writing("metrics", self.metrics.path):
                self.metrics.append(record)
            self._save(epoch + 1, meter.accuracy, improved)
            self._notify("running")
        self.dist.barrier()

    def _check_weights(self, epoch: int, batches: int) -> None:
        for name, value in self.model.state_dict().items():
            arr = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
            if arr.dtype.kind == "f" and not _all_finite(arr):
                self._non_finite(f"the weights {name} hold non-finite values", epoch, batches - 1)

    def _non_finite(self, what: str, epoch: int, i: int, batch_kind: str = "batch") -> NoReturn:
        last = self._last_path(self.run_dir)
        if os.path.exists(last):
            kept = f"the last good checkpoint ({last}, after epoch {epoch}) is kept"
        else:
            kept = "no checkpoint was written (the first epoch did not finish)"
        raise NonFiniteLossError(
            f"{what} at epoch {epoch + 1}, {batch_kind} {i + 1}; training stopped and "
            f"{kept}. Try a smaller optimizer.lr."
        )

    def _evaluate(self, epoch: int | None = None) -> ClassificationMeter:
        """Evaluate on the test set; a non-finite output or loss stops the run (during
        training, naming the epoch and the test batch)."""
        net, criterion = self.net, self.criterion
        assert net is not None  # made by _setup
        # one process sees the whole test set: its predictions are the run page's
        meter = ClassificationMeter(len(self.classes), keep_predictions=self.dist.size == 1)
        net.eval()
        with no_grad():
            for b, (images, labels) in enumerate(self._loader(False, 0)):
                if self.dist.size == 1:  # MPI ranks may have a test batch more or less
                    self._check_stop()
                outputs: Tensor = net(images)
                loss: Tensor = criterion(outputs, labels)
                value: float = loss.item()
                logits = outputs.numpy()
                if not (math.isfinite(value) and _all_finite(logits)):
                    what = f"the evaluation gives a {'loss of ' + str(value) if not math.isfinite(value) else 'non-finite output'}"
                    if epoch is None:
                        raise NonFiniteLossError(
                            f"{what} at test batch {b + 1}: the checkpoint holds unusable weights"
                        )
                    self._non_finite(what, epoch, b, "test batch")
                meter.update(logits, labels.numpy(), value)
        if self.dist.size > 1:
            meter.allreduce(self.dist.comm)
        return meter

    def _save(self, epoch: int, accuracy: float, improved: bool) -> None:
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict() if self.scheduler is not None else None,
            "epoch": epoch,
            "global_step": self.global_step,
            "accuracy": accuracy,
            "best_accuracy": self.best_accuracy,
            "best_epoch": self.best_epoch,
            "seconds": self.seconds,
            "rng": ckpt_io.rng_state(),
            "config": self.cfg.to_dict(),
            "classes": list(self.classes),
        }
        folder = os.path.join(self.run_dir, "checkpoints")
        last = os.path.join(folder, "last.npz")
        with _writing("checkpoint", last, "the previous checkpoint is kept"):
            os.makedirs(folder, exist_ok=True)
            ckpt_io.save_checkpoint(state, last)
        if improved:
            best = os.path.join(folder, "best.npz")
            with _writing("checkpoint", best, "the previous checkpoint is kept"):
                ckpt_io.copy_atomic(last, best)
        predictions = self.last_meter.predictions() if self.last_meter is not None else None
        if predictions is not None:  # after the checkpoint of the same epoch, which it describes
            path = os.path.join(self.run_dir, FILE_NAME)
            with _writing("predictions", path):
                write_predictions(path, *predictions, self.classes, epoch)

    def _report(self, session_seconds: float) -> dict[str, Any]:
        meter = self.last_meter
        assert meter is not None  # fit evaluated
        for line in accuracy_lines(meter, self.classes):
            self.print(line)
        report = {
            "accuracy": meter.accuracy,
            "per_class_accuracy": meter.per_class(self.classes),
            "epochs": self.cfg.epochs,
            "test_loss": meter.loss,
            "seconds": self.seconds,
            "test_images": meter.count,
            "best_accuracy": max(self.best_accuracy, 0.0),
            "best_epoch": self.best_epoch,
            "global_step": self.global_step,
            "session_seconds": session_seconds,
        }
        if self.dist.is_main:
            path = os.path.join(self.run_dir, "report.json")
            with _writing("report", path):
                write_json_atomic(report, path)
        self.print(f"Run directory: {self.run_dir}")
        return report
