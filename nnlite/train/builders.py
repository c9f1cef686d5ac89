"""Turn the sections of a resolved config into objects: transforms, datasets, model, loss,
optimizer, scheduler, and the finetuning surgery (load, freeze, replace the head)."""

from __future__ import annotations

import inspect
import os
import sys
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .. import nn
from ..autograd.creation import stack, tensor
from ..autograd.grad_mode import no_grad
from ..data.transforms import Compose
from ..models.registry import MODELS, import_module_class
from ..models.registry import suggestion as _suggest
from ..nn.modules.module import Module
from ..optim import Optimizer
from .checkpoint import CheckpointFileError, model_state_from
from .config import DATASETS, DataConfig, FinetuneConfig, ModelConfig
from .registries import LOSSES, OPTIMIZERS, SCHEDULERS, TRANSFORMS
from .schema import Component, ConfigError, check, show, type_hints, union_members

if TYPE_CHECKING:
    from ..data.datasets.vision import ImageClassificationDataset
    from ..nn.parameter import Parameter

__all__ = [
    "TrainError",
    "build_transforms",
    "build_datasets",
    "build_model",
    "build_loss",
    "build_optimizer",
    "build_scheduler",
    "scheduler_steps",
    "apply_finetune",
    "check_model_output",
]


class TrainError(RuntimeError):
    """A run cannot go on (data missing, non-finite loss, unusable checkpoint, ...).

    Examples:
        >>> write_fake_mnist("mnist", train=8, test=4)  # tiny MNIST files
        >>> config = {
        ...     "name": "demo",
        ...     "model": {"name": "mlp", "args": {"in_features": 784, "hidden": [16]}},
        ...     "data": {"dataset": "mnist", "root": "missing", "batch_size": 4,
        ...              "train_transforms": [{"name": "to_tensor"}], "test_transforms": [{"name": "to_tensor"}]},
        ...     "optimizer": {"name": "sgd", "lr": 0.1},
        ...     "epochs": 1,
        ... }
        >>> from nnlite.train import Trainer, load_config
        >>> Trainer(load_config(raw=config), progress=False).fit()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        nnlite.train.builders.TrainError: ...
    """


# ------------------------------------------------------------------------------------- data


def _plain_args(section: Component) -> dict[str, Any]:
    """A registry section's arguments for the constructor: lists become tuples (sizes, betas)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in section.args.items()}


def build_transforms(items: Iterable[Component]) -> Compose:
    """A ``Compose`` of the transforms listed in a ``data.*_transforms`` section."""
    return Compose([TRANSFORMS.lookup(t.name)(**_plain_args(t)) for t in items])


def build_datasets(
    data_cfg: DataConfig,
) -> tuple[ImageClassificationDataset, ImageClassificationDataset]:
    """``(train_set, test_set)`` of the configured dataset, with their transforms."""
    from ..data import datasets

    cls = getattr(datasets, DATASETS[data_cfg.dataset][0])
    root = os.path.expanduser(data_cfg.root)
    sets = []
    for train, transforms in ((True, data_cfg.train_transforms), (False, data_cfg.test_transforms)):
        try:
            sets.append(
                cls(
                    root,
                    train=train,
                    download=data_cfg.download,
                    transform=build_transforms(transforms),
                )
            )
        except (RuntimeError, OSError, ValueError) as e:
            raise TrainError(
                f"data ({data_cfg.dataset} in {root}): {e}"
                + _offline_alternative(data_cfg.dataset, cls, root)
            ) from None
    return sets[0], sets[1]


def _offline_alternative(dataset: str, cls: Any, root: str) -> str:
    """For the tutorial's CIFAR-10 when its files are absent (no internet to download them): the
    config that trains on Fashion-MNIST, which a machine may have already."""
    if dataset != "cifar10" or os.path.isdir(os.path.join(root, cls.base_folder)):
        return ""
    return (
        " To train now on Fashion-MNIST files instead: python train.py "
        "configs/lenet_fashion_mnist.yaml --set data.root=FOLDER (FOLDER holding its four IDX "
        "files, e.g. /usr/share/datasets/fashion-mnist)."
    )


# ------------------------------------------------------------------------------------- model


def _builder(name: str) -> Callable[..., Any]:
    """The class or function building model ``name``: a registered name, or an import path
    ``pkg.module:Class`` that must name an ``nn.Module`` subclass (checked before anything
    calls it; importing the module runs its top-level code)."""
    if ":" not in name:
        if name not in MODELS:
            raise ConfigError(
                f"model.name: unknown model {show(name)}; registered: {', '.join(MODELS.names())}"
                f"{_suggest(name, MODELS)} (or give 'pkg.module:ClassName')",
                "model.name",
            )
        return MODELS[name]
    if (
        "" not in sys.path and os.getcwd() not in sys.path
    ):  # the current directory, as for `python -m`
        sys.path.insert(0, os.getcwd())
    try:
        return import_module_class(name, Module)
    except ImportError as e:
        raise ConfigError(
            f"model.name: {_cut(e)}; the module must be importable from the current directory or "
            "PYTHONPATH",
            "model.name",
        ) from None
    except (AttributeError, TypeError, ValueError) as e:
        raise ConfigError(f"model.name: {_cut(e)}", "model.name") from None


def _cut(e: BaseException, limit: int = 300) -> str:
    """An exception's text cut to ``limit`` characters (it may quote a huge config value)."""
    text = str(e)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_args(fn: Callable[..., Any], args: dict[str, Any], label: str) -> None:
    """The model's arguments against its signature: unknown (with "did you mean") or missing
    ones are errors, and values of annotated arguments are checked as config values are."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    params = sig.parameters
    hints = type_hints(fn)
    named = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    takes_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
    for key in args:
        if key not in named and not takes_any:
            raise ConfigError(
                f"model.args.{key}: {label} has no argument {key!r}{_suggest(key, named)} "
                f"(arguments: {', '.join(named) or 'none'})",
                f"model.args.{key}",
            )
    for n in named:
        p = params[n]
        if p.default is p.empty and n not in args:
            raise ConfigError(
                f"model.args.{n}: missing required argument of {label}", f"model.args.{n}"
            )
    for key, value in args.items():
        # a union (``int | Sequence[int]``) is left to the model: the config checks one type
        if key in hints and len(union_members(hints[key])[0]) == 1:
            args[key] = check(value, hints[key], {}, f"model.args.{key}")


def build_model(model_cfg: ModelConfig) -> Module:
    """The model named in the ``model`` section, built with its ``args``."""
    name, args = model_cfg.name, dict(model_cfg.args)
    fn = _builder(name)
    label = name if ":" not in name else name.partition(":")[2]
    _check_args(fn, args, label)
    try:
        model = fn(**args)
    except (TypeError, ValueError, KeyError) as e:
        raise ConfigError(
            f"model: building {label} with args {show(args)} failed: {_cut(e)}", "model.args"
        ) from None
    if not isinstance(model, Module):
        raise ConfigError(
            f"model.name: {name!r} built a {type(model).__name__}, not an nnlite.nn.Module",
            "model.name",
        )
    return model


def check_model_output(model: Module, dataset: Any, num_classes: int) -> None:
    """Run two images through the model (eval mode, no gradient) and check that it gives one
    score per class: a clear error now rather than a shape error in the first step."""
    n = min(2, len(dataset))
    if n == 0:
        raise TrainError("data: the dataset is empty")
    getitems = getattr(dataset, "__getitems__", None)
    if callable(getitems) and getattr(dataset, "getitems_collated", False):
        images = getitems(list(range(n)))[0]
    else:
        images = stack([dataset[i][0] for i in range(n)])
    was_training = model.training
    model.eval()
    try:
        with no_grad():
            out = model(images)
    except Exception as e:
        raise TrainError(
            f"model: it cannot take the dataset's images (a batch of shape {tuple(images.shape)}): "
            f"{type(e).__name__}: {e}"
        ) from None
    finally:
        model.train(was_training)
    shape = tuple(getattr(out, "shape", ()))
    if len(shape) != 2 or shape[1] != num_classes:
        raise TrainError(
            f"model: it outputs shape {shape} for a batch of {n} images, but the dataset has "
            f"{num_classes} classes: expected ({n}, {num_classes}) (set the model's number of "
            f"classes in model.args)"
        )


# ------------------------------------------------------------------------------------- loss, optim


def build_loss(loss_cfg: Component, num_classes: int) -> Module:
    """The loss of the ``loss`` section; ``weight`` (one value per class) becomes a tensor."""
    args = _plain_args(loss_cfg)
    if args.get("weight") is not None:
        if len(args["weight"]) != num_classes:
            raise ConfigError(
                f"loss.weight: expected {num_classes} values (one per class), got "
                f"{len(args['weight'])}",
                "loss.weight",
            )
        args["weight"] = tensor(np.asarray(args["weight"], dtype=np.float32))
    return typing.cast(Module, LOSSES.lookup(loss_cfg.name)(**args))


def build_optimizer(opt_cfg: Component, params: Sequence[Parameter]) -> Optimizer:
    """The optimizer of the ``optimizer`` section over ``params``."""
    try:
        return typing.cast(
            Optimizer, OPTIMIZERS.lookup(opt_cfg.name)(params, **_plain_args(opt_cfg))
        )
    except ValueError as e:
        raise ConfigError(f"optimizer: {_cut(e)}", "optimizer") from None


def build_scheduler(
    sched_cfg: Component | None,
    optimizer: Optimizer,
    epochs: int | None = None,
    steps_per_epoch: int | None = None,
) -> Any:
    """The scheduler of the ``scheduler`` section (``None`` for none). ``onecycle`` without
    ``total_steps`` spans ``epochs * steps_per_epoch`` batches."""
    if sched_cfg is None:
        return None
    name = sched_cfg.name
    args = _plain_args(sched_cfg)
    if "schedulers" in args:
        args["schedulers"] = [
            build_scheduler(s, optimizer, epochs, steps_per_epoch) for s in args["schedulers"]
        ]
    if name == "onecycle" and args.get("total_steps") is None:
        args["total_steps"] = (epochs or 1) * (steps_per_epoch or 1)
    try:
        return SCHEDULERS.lookup(name)(optimizer, **args)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"scheduler: {_cut(e)}", "scheduler") from None


def scheduler_steps(sched_cfg: Component | None) -> Literal["batch", "metric", "epoch"]:
    """When the trainer steps the scheduler: ``"batch"`` (after every optimizer step),
    ``"metric"`` (after evaluation, given the test loss) or ``"epoch"``."""
    options = SCHEDULERS.options.get(sched_cfg.name, {}) if sched_cfg else {}
    if options.get("per_batch"):
        return "batch"
    return "metric" if options.get("metric") else "epoch"


# ------------------------------------------------------------------------------------- finetune


def _modules_of(model: Module) -> dict[str, Module]:
    return dict(model.named_modules())


def _module_named(modules: dict[str, Module], name: str, key: str) -> Module:
    if name not in modules or name == "":
        names = [n for n in modules if n]
        raise ConfigError(
            f"{key}: the model has no module {name!r}{_suggest(name, names)} "
            f"(modules: {', '.join(names)})",
            key,
        )
    return modules[name]


def _fresh_like(layer: Module, num_classes: int) -> Module | None:
    if isinstance(layer, nn.Linear):
        return nn.Linear(layer.in_features, num_classes, bias=layer.bias is not None)
    if isinstance(layer, nn.Conv2d):
        return nn.Conv2d(
            layer.in_channels,
            num_classes,
            layer.kernel_size,
            stride=layer.stride,
            padding=layer.padding,
            dilation=layer.dilation,
            groups=1,
            bias=layer.bias is not None,
        )
    return None


def _set_module(model: Module, name: str, new: Module) -> None:
    parent_name, _, attr = name.rpartition(".")
    parent = (
        model.get_submodule(parent_name)
        if parent_name and hasattr(model, "get_submodule")
        else _modules_of(model)[parent_name]
    )
    setattr(parent, attr, new)
    if (
        _modules_of(model).get(name) is not new
    ):  # e.g. a Sequential index that setattr did not reach
        parent._modules[attr] = new


def apply_finetune(
    model: Module,
    ft_cfg: FinetuneConfig,
    num_classes: int,
    load_weights: bool = True,
    log: Callable[..., Any] = print,
) -> list[Module]:
    """Load the finetuning checkpoint (all but the head), freeze the listed modules and replace
    the head with a fresh layer of ``finetune.head.num_classes`` outputs. Returns the frozen
    modules (kept in eval mode while training)."""
    modules = _modules_of(model)
    head = ft_cfg.head
    head_name = head.module if head else None
    if head:
        old = _module_named(modules, head.module, "finetune.head.module")
        if _fresh_like(old, 1) is None:
            raise ConfigError(
                f"finetune.head.module: {head_name} is a {type(old).__name__}; the head must be a "
                f"Linear (or Conv2d) layer",
                "finetune.head.module",
            )
        if head.num_classes != num_classes:
            raise ConfigError(
                f"finetune.head.num_classes: expected {num_classes} (the number of classes of the "
                f"dataset), got {head.num_classes}",
                "finetune.head.num_classes",
            )

    def in_head(key: str) -> bool:
        return head_name is not None and (key == head_name or key.startswith(head_name + "."))

    source = ft_cfg.from_
    if load_weights and source is not None:
        try:
            state = model_state_from(source)
        except CheckpointFileError as e:
            raise ConfigError(f"finetune.from: {e}", "finetune.from") from None
        own = model.state_dict()
        wanted = [k for k in own if not in_head(k)]
        missing = [k for k in wanted if k not in state]
        unexpected = [k for k in state if k not in own and not in_head(k)]
        if missing or unexpected:
            parts = []
            if missing:
                parts.append(
                    f"missing {', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}"
                )
            if unexpected:
                parts.append(
                    f"unexpected {', '.join(unexpected[:6])}{' ...' if len(unexpected) > 6 else ''}"
                )
            raise ConfigError(
                f"finetune.from: {source} does not match the model ({'; '.join(parts)})",
                "finetune.from",
            )
        for k in wanted:
            got, need = tuple(state[k].shape), tuple(own[k].shape)
            if got != need:
                raise ConfigError(
                    f"finetune.from: {k} has shape {got} in {source} but {need} in the model"
                    f" (replace that layer with finetune.head)",
                    "finetune.from",
                )
        model.load_state_dict({k: state[k] for k in wanted}, strict=False)
        log(
            f"finetune: loaded {len(wanted)} tensors from {source}"
            + (f" (all but {head_name})" if head_name else "")
        )

    frozen = []
    freeze = ft_cfg.freeze
    if freeze == "all_but_head":
        assert head_name is not None  # validate() requires a head with all_but_head
        for name, m in modules.items():
            if name and not in_head(name) and not head_name.startswith(name + "."):
                frozen.append(m)
        for name, p in model.named_parameters():
            if not in_head(name):
                p.requires_grad_(False)
    else:
        for i, name in enumerate(freeze):
            m = _module_named(modules, name, f"finetune.freeze[{i}]")
            m.requires_grad_(False)
            frozen.append(m)
    if head:
        old = modules[head.module]
        new = _fresh_like(old, head.num_classes)
        assert new is not None  # checked above
        _set_module(model, head.module, new)
        frozen = [m for m in frozen if m is not old]
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    what = f"all but {head_name}" if freeze == "all_but_head" else (", ".join(freeze) or "nothing")
    log(
        f"finetune: frozen {what}; "
        + (f"new head {head_name} with {head.num_classes} outputs; " if head else "")
        + f"training {trainable:,} of {total:,} parameters"
    )
    if trainable == 0:
        raise ConfigError(
            "finetune.freeze: every parameter is frozen, nothing would train", "finetune.freeze"
        )
    return frozen
