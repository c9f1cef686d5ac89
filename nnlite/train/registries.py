"""What a config may name: optimizers, learning-rate schedulers, losses and transforms, each a
``Registry`` (as ``nnlite.models.MODELS`` is for models) from config names to classes.

A config section's keys, defaults and types come from the registered class's constructor
(``schema.fields_of``); an entry's options only add what a signature cannot say:

* ``exclude``: arguments a config does not set (the trainer's own, or ones that would break
  its bookkeeping);
* ``types``: annotations for classes written without them;
* ``limits``: the checks' rules: tighter bounds (``min=1``), ``default=None`` where the trainer
  fills a value in, ``registry`` for a list of entries (a list of schedulers);
* ``per_batch`` / ``metric``: how the trainer steps a scheduler (after every batch; with the
  test loss).

Adding an optimizer to the config is one ``OPTIMIZERS.register(...)`` line.
"""

from typing import Literal

from .. import nn, optim
from ..data import transforms as T
from ..models.registry import MODELS, Registry
from ..optim import lr_scheduler as S
from .schema import Component

__all__ = ["OPTIMIZERS", "SCHEDULERS", "LOSSES", "TRANSFORMS", "MODELS"]

OPTIMIZERS = Registry("optimizer")
OPTIMIZERS.register("sgd", optim.SGD)
OPTIMIZERS.register("adam", optim.Adam, limits={"betas": {"max": 1.0, "max_open": True}})
OPTIMIZERS.register("adamw", optim.AdamW, limits={"betas": {"max": 1.0, "max_open": True}})
OPTIMIZERS.register("adadelta", optim.Adadelta, limits={"rho": {"max": 1.0}})
OPTIMIZERS.register("rmsprop", optim.RMSprop)
OPTIMIZERS.register("adagrad", optim.Adagrad)
OPTIMIZERS.register(
    "lbfgs",
    optim.LBFGS,
    limits={"max_iter": {"min": 1}, "max_eval": {"min": 1}, "history_size": {"min": 1}},
)

SCHEDULERS = Registry("scheduler")
_POSITIVE = {"min_open": True}  # a factor of 0 would stop training for good
SCHEDULERS.register(
    "step",
    S.StepLR,
    limits={"step_size": {"min": 1, "help": "epochs between decays"}, "gamma": _POSITIVE},
)
SCHEDULERS.register(
    "multistep",
    S.MultiStepLR,
    limits={
        "milestones": {"increasing": True, "min": 1, "help": "epochs at which lr decays"},
        "gamma": _POSITIVE,
    },
)
SCHEDULERS.register("exponential", S.ExponentialLR, limits={"gamma": _POSITIVE})
SCHEDULERS.register(
    "cosine",
    S.CosineAnnealingLR,
    limits={"T_max": {"default": None, "min": 1, "help": "half period in epochs (null: epochs)"}},
)
SCHEDULERS.register("linear", S.LinearLR, limits={"total_iters": {"min": 1}})
SCHEDULERS.register("polynomial", S.PolynomialLR, limits={"total_iters": {"min": 1}})
# stepped after every batch, as PyTorch's recipe does; total_steps null: the whole run's batches
SCHEDULERS.register(
    "onecycle",
    S.OneCycleLR,
    exclude=("epochs", "steps_per_epoch"),
    per_batch=True,
    limits={
        "total_steps": {"min": 1, "help": "steps of the cycle (null: every batch of the run)"},
        "pct_start": {"max": 1.0},
    },
)
SCHEDULERS.register(
    "plateau",
    S.ReduceLROnPlateau,
    metric="test_loss",
    limits={"factor": {"max": 1.0, "max_open": True}},
)
_SCHEDULER_LIST = {
    "registry": SCHEDULERS,
    "nonempty": True,
    "help": "the schedulers, each a mapping with its name",
}
SCHEDULERS.register(
    "sequential",
    S.SequentialLR,
    types={"schedulers": list[Component]},
    limits={"schedulers": _SCHEDULER_LIST, "milestones": {"increasing": True, "min": 1}},
)
SCHEDULERS.register(
    "chained",
    S.ChainedScheduler,
    types={"schedulers": list[Component]},
    limits={"schedulers": _SCHEDULER_LIST},
)

LOSSES = Registry("loss")
# The trainer reports the mean loss and counts every label, so reduction and ignore_index stay
# at PyTorch's defaults; size_average and reduce are PyTorch's deprecated spellings of reduction.
_FIXED_LOSS_ARGS = ("size_average", "reduce", "reduction", "ignore_index")
_CLASS_WEIGHTS = {"weight": {"min": 0.0, "scalar_ok": False, "help": "per-class weights"}}
LOSSES.register(
    "cross_entropy",
    nn.CrossEntropyLoss,
    exclude=_FIXED_LOSS_ARGS,
    types={"weight": list[float] | None},
    limits={**_CLASS_WEIGHTS, "label_smoothing": {"max": 1.0}},
)
LOSSES.register(
    "nll",
    nn.NLLLoss,
    exclude=_FIXED_LOSS_ARGS,
    types={"weight": list[float] | None},
    limits=_CLASS_WEIGHTS,
)

TRANSFORMS = Registry("transform")
_SIZE = int | list[int]  # a square's side, or (height, width)
TRANSFORMS.register("to_tensor", T.ToTensor)
TRANSFORMS.register(
    "normalize",
    T.Normalize,
    exclude=("inplace",),
    types={"mean": list[float], "std": list[float]},
    limits={
        "mean": {"help": "per-channel means (one value, or one per channel)"},
        "std": {"positive": True, "help": "per-channel standard deviations"},
    },
)
TRANSFORMS.register(
    "random_crop",
    T.RandomCrop,
    types={
        "size": _SIZE,
        "padding": _SIZE | None,
        "fill": int | float,
        "padding_mode": Literal["constant", "edge", "reflect", "symmetric"],
    },
    limits={
        "size": {"min": 1, "help": "crop height and width (an int for a square)"},
        "padding": {"lengths": (2, 4), "help": "padding added before cropping"},
        "pad_if_needed": {"help": "pad images smaller than size"},
        "fill": {"help": "constant padding value"},
    },
)
TRANSFORMS.register(
    "random_horizontal_flip",
    T.RandomHorizontalFlip,
    limits={"p": {"max": 1.0, "help": "flip probability"}},
)
# The input pipeline of ImageNet-pretrained weights: resize, center crop, (grayscale to three
# channels for one-channel datasets), then normalize with ImageNet's mean and std.
TRANSFORMS.register(
    "resize",
    T.Resize,
    exclude=("max_size", "interpolation"),
    types={"size": _SIZE},  # bilinear, as torchvision
    limits={
        "size": {"min": 1, "help": "output height and width, or an int for the shorter side"},
        "antialias": {"help": "smooth before downsampling"},
    },
)
TRANSFORMS.register(
    "center_crop",
    T.CenterCrop,
    types={"size": _SIZE},
    limits={"size": {"min": 1, "help": "crop height and width (an int for a square)"}},
)
TRANSFORMS.register(
    "grayscale",
    T.Grayscale,
    limits={"num_output_channels": {"min": 1, "max": 3, "help": "1, or 3 for RGB-input models"}},
)
