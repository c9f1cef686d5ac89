"""The training loop: a run directory, epochs of training and evaluation, checkpoints, metrics,
the final report; resume, finetuning, DataParallel and MPI.

Reproducibility: ``seed`` seeds nnlite's, numpy's and python's generators before the model is
built. Epoch ``e``'s data order and the loader workers' seeds are functions of ``(seed, e)``
alone (a loader is made for each epoch), and every checkpoint, written at the end of an epoch,
holds the generators' states. Resuming from it therefore replays the remaining epochs exactly:
the final weights equal those of an uninterrupted run, bit for bit.
"""
import datetime
import math
import os
import random
import sys
import time

import numpy as np

from . import checkpoint as ckpt_io
from .builders import (TrainError, apply_finetune, build_datasets, build_loss, build_model, build_optimizer,
                       build_scheduler, check_model_output)
from .config import ConfigError, dump_config
from .metrics import ClassificationMeter, MetricsLog, accuracy_lines, write_json_atomic

__all__ = ["Trainer", "NonFiniteLossError", "TrainError", "seed_everything", "new_run_dir"]


class NonFiniteLossError(TrainError):
    """The loss became NaN or infinite."""


def seed_everything(seed):
    """Seed nnlite's, numpy's global and python's generators."""
    import nnlite as nl

    nl.manual_seed(seed)
    np.random.seed(seed % 2**32)
    random.seed(seed)


def _epoch_seed(seed, epoch):
    """The data loader seed of one epoch: a function of ``(seed, epoch)`` only."""
    return int(np.random.SeedSequence([int(seed), int(epoch), 0x7A11]).generate_state(1, np.uint64)[0] >> 2)


def new_run_dir(output_dir, name):
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


def _link_latest(run_dir, output_dir, name):
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


class _Distributed:
    """Rank, size and communicator of an MPI job (a single process without one)."""

    def __init__(self, backend):
        self.comm = None
        self.rank, self.size = 0, 1
        if backend == "mpi":
            try:
                from mpi4py import MPI
            except ImportError:
                raise ConfigError("parallel.backend: mpi needs mpi4py: pip install 'nnlite[mpi]' (with Open MPI "
                                  "from your system's packages), then launch with mpirun -n N python train.py ...",
                                  "parallel.backend") from None
            self.comm = MPI.COMM_WORLD
            self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()

    @property
    def is_main(self):
        return self.rank == 0

    def bcast(self, obj):
        return obj if self.comm is None else self.comm.bcast(obj, root=0)

    def sum(self, value):
        return value if self.comm is None else self.comm.allreduce(value)

    def barrier(self):
        if self.comm is not None:
            self.comm.Barrier()


def _stdout_is_terminal():
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
    """

    def __init__(self, config, run_dir=None, progress=None, observers=()):
        self.cfg = config
        self.observers = list(observers)
        self.resume_dir = run_dir
        self.dist = _Distributed(config["parallel"]["backend"])
        self.progress = _stdout_is_terminal() if progress is None else bool(progress)
        self.progress = self.progress and self.dist.is_main
        self._bar_epochs = self._bar_batches = None
        self.net = None

    # ------------------------------------------------------------------ output

    def print(self, *parts):
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

    def _setup(self):
        import nnlite as nl

        cfg = self.cfg
        if cfg["threads"] is not None:
            nl.set_num_threads(cfg["threads"])
        seed_everything(cfg["seed"])
        self.train_set, self.test_set = build_datasets(cfg["data"])
        self.classes = [str(c) for c in getattr(self.train_set, "classes", [])]
        if not self.classes:
            raise TrainError(f"data: {type(self.train_set).__name__} has no class names")
        num_classes = len(self.classes)

        model = build_model(cfg["model"])
        self.frozen = []
        ft = cfg["finetune"]
        resuming = self.resume_dir is not None and os.path.exists(self._last_path(self.resume_dir))
        if ft is not None:
            self.frozen = apply_finetune(model, ft, num_classes, load_weights=not resuming, log=self.print)
        check_model_output(model, self.test_set, num_classes)
        self.model = model
        self.criterion = build_loss(cfg["loss"], num_classes)

        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = build_optimizer(cfg["optimizer"], params)
        self.scheduler = build_scheduler(cfg["scheduler"], self.optimizer)
        self.start_epoch, self.global_step, self.best_accuracy, self.seconds = 0, 0, -1.0, 0.0
        self.best_epoch = 0
        self.last_meter = None
        state = self._restore(self._last_path(self.resume_dir)) if resuming else None

        # the run directory, once everything above has been checked
        if self.resume_dir is not None:
            self.run_dir = self.resume_dir
        else:
            run_dir = None
            if self.dist.is_main:
                run_dir = new_run_dir(cfg["output_dir"], cfg["name"])
                with open(os.path.join(run_dir, "config.yaml"), "w", encoding="utf-8") as f:
                    f.write(dump_config(cfg))
                _link_latest(run_dir, cfg["output_dir"], cfg["name"])
            self.run_dir = self.dist.bcast(run_dir)
        if self.dist.is_main:
            os.makedirs(os.path.join(self.run_dir, "checkpoints"), exist_ok=True)
        self.metrics = MetricsLog(os.path.join(self.run_dir, "metrics.jsonl"))
        if self.dist.is_main and self.resume_dir is not None:
            self.metrics.truncate_after(self.start_epoch)  # lines written after the checkpoint
        if state is not None:
            self.print(f"Resuming {self.run_dir} after epoch {self.start_epoch} (checkpoints/last.npz)")
        elif self.resume_dir is not None:
            self.print(f"No checkpoint in {self.run_dir} yet: starting it from the beginning")

        # parallel wrapping (the plain model keeps the parameters the optimizer steps)
        workers = cfg["parallel"]["workers"]
        if cfg["parallel"]["backend"] == "mpi":
            from ..nn.parallel import DistributedDataParallel
            self.net = DistributedDataParallel(model, comm=self.dist.comm)
        elif workers > 1:
            self.net = nl.nn.DataParallel(model, workers=workers)
        else:
            self.net = model
        if state is not None:  # last, so that nothing above draws from the restored generators
            ckpt_io.set_rng_state(state["rng"])

    def _restore(self, path):
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
    def _last_path(run_dir):
        return os.path.join(run_dir, "checkpoints", "last.npz")

    def _loader(self, train, epoch):
        from ..data import DataLoader, DistributedSampler, Subset

        data = self.cfg["data"]
        seed = _epoch_seed(self.cfg["seed"], epoch if train else 0)
        if train:
            if self.dist.size > 1:
                sampler = DistributedSampler(self.train_set, num_replicas=self.dist.size, rank=self.dist.rank,
                                             shuffle=True, seed=self.cfg["seed"])
                sampler.set_epoch(epoch)
                return DataLoader(self.train_set, batch_size=data["batch_size"], sampler=sampler,
                                  num_workers=data["num_workers"], seed=seed)
            return DataLoader(self.train_set, batch_size=data["batch_size"], shuffle=True,
                              num_workers=data["num_workers"], seed=seed)
        test_set = self.test_set
        if self.dist.size > 1:  # a disjoint shard per rank, no padding: counts add up exactly
            test_set = Subset(self.test_set, list(range(self.dist.rank, len(self.test_set), self.dist.size)))
        return DataLoader(test_set, batch_size=data["test_batch_size"], shuffle=False,
                          num_workers=data["num_workers"], seed=seed)

    # ------------------------------------------------------------------ loop

    def fit(self):
        """Train the remaining epochs, evaluate, write checkpoints, metrics and the report."""
        t_start = time.perf_counter()
        try:
            self._setup()
            self.print(f"Run directory: {self.run_dir}")
            epochs = self.cfg["epochs"]
            if self.progress:
                from tqdm import tqdm
                self._bar_epochs = tqdm(total=epochs, initial=self.start_epoch, desc="epochs", unit="epoch",
                                        position=0, dynamic_ncols=True)
            for epoch in range(self.start_epoch, epochs):
                self._run_epoch(epoch)
                if self._bar_epochs is not None:
                    self._bar_epochs.set_postfix({"test_acc": f"{100 * self.last_meter.accuracy:.2f}%"},
                                                 refresh=False)
                    self._bar_epochs.update(1)
            self._close_bars()
            if self.last_meter is None:  # nothing left to train: evaluate what the checkpoint holds
                self.last_meter = self._evaluate()
            self.print("Finished Training")
            report = self._report(time.perf_counter() - t_start)
            self._notify("finished")
            return report
        except KeyboardInterrupt:
            self._notify("interrupted", "Stopped by Ctrl-C.")
            raise
        except NonFiniteLossError as e:
            self._notify("nonfinite", str(e))
            raise
        except Exception as e:
            self._notify("failed", f"{type(e).__name__}: {e}")
            raise
        finally:
            self._close_bars()
            self._close_net()

    def _notify(self, state, message=None):
        """Tell the observers (the run report) that the run folder changed."""
        if getattr(self, "run_dir", None) is not None and self.dist.is_main:
            for observer in self.observers:
                observer(self.run_dir, state, message)

    def _close_bars(self):
        for name in ("_bar_batches", "_bar_epochs"):
            bar = getattr(self, name)
            if bar is not None:
                bar.close()
                setattr(self, name, None)

    def _close_net(self):
        net = self.net
        self.net = None
        if net is not None and net is not getattr(self, "model", None):
            close = getattr(net, "close", None)
            if callable(close):
                close()

    def _run_epoch(self, epoch):
        cfg = self.cfg
        epochs = cfg["epochs"]
        net, optimizer, criterion = self.net, self.optimizer, self.criterion
        # DistributedDataParallel averages the gradients of the ranks when asked, after backward
        sync = getattr(net, "allreduce_gradients", None) if self.dist.size > 1 else None
        loader = self._loader(True, epoch)
        log_every = cfg["log_every"]
        lr = float(optimizer.param_groups[0]["lr"])

        net.train()
        for m in self.frozen:
            m.eval()
        bar = None
        if self.progress:
            from tqdm import tqdm
            bar = self._bar_batches = tqdm(total=len(loader), desc=f"epoch {epoch + 1}/{epochs}", unit="batch",
                                           position=1, leave=False, dynamic_ncols=True)
        running = total = 0.0
        images_seen = 0
        next_postfix = 0.0
        last_i = -1
        t0 = time.perf_counter()
        for i, (images, labels) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(net(images), labels)
            value = loss.item()
            if not math.isfinite(value):
                self._non_finite(value, epoch, i)
            loss.backward()
            if sync is not None:
                sync()
            optimizer.step()
            running += value
            total += value
            images_seen += labels.shape[0]
            last_i = i
            if (i + 1) % log_every == 0:
                self.print(f"[{epoch + 1}, {i + 1:5d}] loss: {running / log_every:.3f}")
                if self.dist.is_main:  # a per-step line: the report's running-loss curve
                    self.metrics.append({"epoch": epoch + 1, "step": self.global_step + i + 1,
                                         "train_loss": running / log_every, "lr": lr})
                running = 0.0
            if bar is not None:
                bar.update(1)
                now = time.perf_counter()
                if now >= next_postfix:
                    next_postfix = now + 0.5
                    bar.set_postfix({"loss": f"{total / (i + 1):.3f}",
                                     "img/s": f"{images_seen / max(now - t0, 1e-9):.0f}"}, refresh=False)
        train_seconds = time.perf_counter() - t0
        self.global_step += last_i + 1
        in_sync = getattr(net, "parameters_in_sync", None) if self.dist.size > 1 else None
        if in_sync is not None and not in_sync():
            raise TrainError(f"epoch {epoch + 1}: the MPI ranks' parameters differ after training")
        if bar is not None:
            bar.close()
            self._bar_batches = None
        if self.scheduler is not None:
            self.scheduler.step()

        t1 = time.perf_counter()
        meter = self._evaluate()
        eval_seconds = time.perf_counter() - t1
        self.last_meter = meter
        self.seconds += train_seconds + eval_seconds

        batches = last_i + 1
        train_loss = self.dist.sum(total) / max(self.dist.sum(batches), 1)
        images_all = self.dist.sum(images_seen)
        accuracy = meter.accuracy
        improved = accuracy > self.best_accuracy
        if improved:
            self.best_accuracy, self.best_epoch = accuracy, epoch + 1
        record = {"epoch": epoch + 1, "train_loss": train_loss, "test_loss": meter.loss, "test_accuracy": accuracy,
                  "epoch_seconds": train_seconds, "images_per_second": images_all / max(train_seconds, 1e-9),
                  "lr": lr, "eval_seconds": eval_seconds, "global_step": self.global_step}
        self.print(f"epoch {epoch + 1}/{epochs}: train loss {train_loss:.3f}, test loss {meter.loss:.3f}, "
                   f"test accuracy {100 * accuracy:.2f} %, {train_seconds:.1f} s "
                   f"({record['images_per_second']:,.0f} img/s)")
        if self.dist.is_main:
            self.metrics.append(record)
            self._save(epoch + 1, accuracy, improved)
            self._notify("running")
        self.dist.barrier()

    def _non_finite(self, value, epoch, i):
        last = self._last_path(self.run_dir)
        if os.path.exists(last):
            kept = f"the last good checkpoint ({last}, after epoch {epoch}) is kept"
        else:
            kept = "no checkpoint was written (the first epoch did not finish)"
        raise NonFiniteLossError(f"the loss is {value} at epoch {epoch + 1}, batch {i + 1}; training stopped and "
                                 f"{kept}. Try a smaller optimizer.lr.")

    def _evaluate(self):
        import nnlite as nl

        net, criterion = self.net, self.criterion
        meter = ClassificationMeter(len(self.classes))
        net.eval()
        with nl.no_grad():
            for images, labels in self._loader(False, 0):
                outputs = net(images)
                loss = criterion(outputs, labels)
                meter.update(outputs.numpy(), labels.numpy(), loss.item())
        if self.dist.size > 1:
            meter.allreduce(self.dist.comm)
        return meter

    def _save(self, epoch, accuracy, improved):
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
            "config": self.cfg,
            "classes": list(self.classes),
        }
        folder = os.path.join(self.run_dir, "checkpoints")
        os.makedirs(folder, exist_ok=True)
        last = os.path.join(folder, "last.npz")
        ckpt_io.save_checkpoint(state, last)
        if improved:
            ckpt_io.copy_atomic(last, os.path.join(folder, "best.npz"))

    def _report(self, session_seconds):
        meter = self.last_meter
        for line in accuracy_lines(meter, self.classes):
            self.print(line)
        report = {
            "accuracy": meter.accuracy,
            "per_class_accuracy": meter.per_class(self.classes),
            "epochs": self.cfg["epochs"],
            "test_loss": meter.loss,
            "seconds": self.seconds,
            "test_images": meter.count,
            "best_accuracy": max(self.best_accuracy, 0.0),
            "best_epoch": self.best_epoch,
            "global_step": self.global_step,
            "session_seconds": session_seconds,
        }
        if self.dist.is_main:
            write_json_atomic(report, os.path.join(self.run_dir, "report.json"))
        self.print(f"Run directory: {self.run_dir}")
        return report
