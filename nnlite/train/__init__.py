"""Config-driven training: ``python train.py CONFIG.yaml``.

``load_config`` reads and validates a YAML config, ``Trainer(config).fit()`` runs it (run
directory, metrics, checkpoints, report), ``main(argv)`` is the command line.

Examples:
    >>> from nnlite.train import load_config, Trainer
    >>> cfg = load_config("configs/lenet_fashion_mnist.yaml", ["epochs=1"])  # doctest: +SKIP
    >>> report = Trainer(cfg).fit()  # downloads Fashion-MNIST, trains an epoch  # doctest: +SKIP
    >>> cfg.parallel.backend is None  # doctest: +SKIP
    True
    >>> report["accuracy"]  # doctest: +SKIP
    0.85...
"""

from .builders import TrainError
from .checkpoint import load_checkpoint, save_checkpoint
from .cli import main
from .config import Component, ConfigError, TrainConfig, load_config, validate
from .trainer import NonFiniteLossError, Trainer

__all__ = [
    "load_config",
    "validate",
    "TrainConfig",
    "Component",
    "ConfigError",
    "Trainer",
    "TrainError",
    "NonFiniteLossError",
    "main",
    "load_checkpoint",
    "save_checkpoint",
]
