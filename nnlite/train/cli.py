"""``python train.py CONFIG.yaml [--set key.path=value ...] [--resume RUN_DIR]``."""
import argparse
import os
import sys

from .builders import TrainError
from .config import ConfigError, dump_config, load_config, load_yaml
from .trainer import NonFiniteLossError, Trainer

__all__ = ["main", "resolve_config"]

EXIT_CONFIG = 2
EXIT_FAILED = 1
EXIT_NON_FINITE = 3
EXIT_INTERRUPTED = 130

_DESCRIPTION = """Train a model described by a YAML config (see configs/ and the README's config reference).
Each run writes a directory under output_dir with config.yaml, metrics.jsonl, checkpoints/last.npz,
checkpoints/best.npz and report.json."""

_EPILOG = """examples:
  python train.py configs/lenet_cifar10.yaml
  python train.py configs/lenet_fashion_mnist.yaml --set data.root=/data/fashion --set optimizer.lr=0.02
  python train.py --resume runs/lenet_cifar10-20250101-120000
  mpirun -n 2 python train.py configs/lenet_fashion_mnist.yaml --set parallel.backend=mpi"""


def _parser():
    p = argparse.ArgumentParser(prog="train.py", description=_DESCRIPTION, epilog=_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", nargs="?", metavar="CONFIG", help="the YAML config file")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, the value parsed as YAML (repeatable), e.g. --set optimizer.lr=0.01")
    p.add_argument("--resume", metavar="RUN_DIR",
                   help="continue the interrupted run in RUN_DIR from checkpoints/last.npz, with its saved config")
    return p


def _flatten(obj, prefix=""):
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    else:
        out[prefix] = obj
    return out


def resolve_config(config_path, overrides, resume_dir):
    """The resolved config of a run (and whether ``config.yaml`` of ``resume_dir`` needs
    rewriting for a changed epoch count)."""
    if resume_dir is None:
        if config_path is None:
            raise ConfigError("a CONFIG file is needed (or --resume RUN_DIR to continue a run)")
        return load_config(config_path, overrides), False
    if not os.path.isdir(resume_dir):
        raise ConfigError(f"--resume: no such run directory: {resume_dir}")
    saved_path = os.path.join(resume_dir, "config.yaml")
    if not os.path.isfile(saved_path):
        raise ConfigError(f"--resume: {resume_dir} has no config.yaml, it is not a run directory")
    saved = load_config(saved_path)
    if config_path is not None:
        cfg = load_config(config_path, overrides)
    else:
        cfg = load_config(raw=load_yaml(saved_path), overrides=overrides, default_name=saved["name"])
    a, b = _flatten(saved), _flatten(cfg)
    diffs = [k for k in dict.fromkeys(list(a) + list(b)) if k != "epochs" and a.get(k, "<unset>") != b.get(k, "<unset>")]
    if diffs:
        shown = ", ".join(f"{k} ({a.get(k)!r} in the run, {b.get(k)!r} now)" for k in diffs[:4])
        more = f" and {len(diffs) - 4} more" if len(diffs) > 4 else ""
        raise ConfigError(f"--resume: the config differs from the one {resume_dir} was started with: {shown}{more}; "
                          f"only epochs may change when resuming", diffs[0])
    return cfg, cfg["epochs"] != saved["epochs"]


def _one_line(e):
    return " ".join(str(e).split())


def _abort_others(trainer, code):
    dist = getattr(trainer, "dist", None)
    if dist is not None and dist.size > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        dist.comm.Abort(code)


def main(argv=None, observers=()):
    """Run the CLI; returns the exit code (0 done, 1 failed, 2 bad config or usage, 3 the loss
    became NaN/inf, 130 interrupted). ``observers`` go to the ``Trainer``."""
    args = _parser().parse_args(argv)
    if "" not in sys.path and os.getcwd() not in sys.path:  # user models importable from the working directory
        sys.path.insert(0, os.getcwd())
    trainer = None
    try:
        cfg, epochs_changed = resolve_config(args.config, args.overrides, args.resume)
        trainer = Trainer(cfg, run_dir=args.resume, observers=observers)
        if epochs_changed and trainer.dist.is_main:
            with open(os.path.join(args.resume, "config.yaml"), "w", encoding="utf-8") as f:
                f.write(dump_config(cfg))
        trainer.fit()
    except ConfigError as e:
        print(f"train.py: error: {_one_line(e)}", file=sys.stderr)
        _abort_others(trainer, EXIT_CONFIG)
        return EXIT_CONFIG
    except NonFiniteLossError as e:
        print(f"train.py: error: {_one_line(e)}", file=sys.stderr)
        _abort_others(trainer, EXIT_NON_FINITE)
        return EXIT_NON_FINITE
    except TrainError as e:
        print(f"train.py: error: {_one_line(e)}", file=sys.stderr)
        _abort_others(trainer, EXIT_FAILED)
        return EXIT_FAILED
    except KeyboardInterrupt:
        run_dir = getattr(trainer, "run_dir", None)
        hint = f"; continue with: python train.py --resume {run_dir}" if run_dir else ""
        print(f"\ntrain.py: interrupted{hint}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException:
        if trainer is not None and trainer.dist.size > 1:
            import traceback
            traceback.print_exc()
            _abort_others(trainer, EXIT_FAILED)
        raise
    return 0
