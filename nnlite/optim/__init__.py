"""Optimizers (``SGD``, ``Adam``, ``AdamW``, ``Adadelta``, ``RMSprop``, ``Adagrad``, ``Adamax``,
``NAdam``, ``RAdam``, ``ASGD``, ``Rprop``, ``LBFGS``, ``Adafactor``, ``Muon``)
and learning-rate schedulers (``lr_scheduler``), with PyTorch's interface and update rules.
Each algorithm's update is also a pure function on numpy arrays (``sgd``, ``adam``, ...)."""

from . import lr_scheduler
from .adadelta import Adadelta, adadelta
from .adafactor import Adafactor, adafactor
from .adagrad import Adagrad, adagrad
from .adam import Adam, AdamW, adam
from .adamax import Adamax, adamax
from .asgd import ASGD, asgd
from .lbfgs import LBFGS
from .muon import Muon, muon
from .nadam import NAdam, nadam
from .optimizer import Optimizer
from .radam import RAdam, radam
from .rmsprop import RMSprop, rmsprop
from .rprop import Rprop, rprop
from .sgd import SGD, sgd
from .swap_in import swap_in_optimizer_params_and_state

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "Adadelta",
    "RMSprop",
    "Adagrad",
    "LBFGS",
    "lr_scheduler",
    "sgd",
    "adam",
    "adadelta",
    "rmsprop",
    "adagrad",
    "Adamax",
    "NAdam",
    "RAdam",
    "ASGD",
    "Rprop",
    "adamax",
    "nadam",
    "radam",
    "asgd",
    "rprop",
    "Adafactor",
    "Muon",
    "adafactor",
    "muon",
    "swap_in_optimizer_params_and_state",
]
