"""Registries: names mapped to the classes (or functions) that build things from a config.

``Registry`` is one kind of thing (models, optimizers, losses, ...): ``register(name, cls)``,
``lookup(name)`` with a "did you mean" suggestion, and per-name options that tell a config
reader how to present the constructor's arguments. ``MODELS`` is the model registry (``lenet``,
``tutorial_net``, ``mlp``, ``resnet18``, ``vgg16``, ``mobilenet_v2``, ...); a model may also be named by import path,
``"pkg.module:ClassName"``, which imports that module (running its top-level code) and must name
an ``nn.Module`` subclass.
"""

import difflib
import importlib
import inspect
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "Registry",
    "MODELS",
    "get_model",
    "get_model_builder",
    "register_model",
    "list_models",
    "import_module_class",
    "suggestion",
]


def suggestion(word: object, candidates: Iterable[object]) -> str:
    """``"; did you mean 'x'?"`` for the candidate closest to ``word``, or ``""``."""
    if len(str(word)) > 100:  # nothing is close to a long text (and comparing would be slow)
        return ""
    match = difflib.get_close_matches(str(word), [str(c) for c in candidates], n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


class Registry(dict[str, Callable[..., Any]]):
    """Names of one ``kind`` mapped to classes or functions, with per-name ``options``.

    Args:
        kind (str): what the entries are, for messages ("model", "optimizer", ...).

    Examples:
        >>> OPTIMIZERS = Registry("optimizer")
        >>> OPTIMIZERS.register("sgd", nl.optim.SGD)
        <class 'nnlite.optim.sgd.SGD'>
        >>> OPTIMIZERS.lookup("sgd")
        <class 'nnlite.optim.sgd.SGD'>
    """

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.options: dict[str, dict[str, Any]] = {}

    def register(self, name: str, factory: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Register ``factory`` under ``name`` (usable as a decorator). ``options`` are kept for
        the config reader (``exclude=``, ``hints=``, ...)."""

        def add(f: Callable[..., Any]) -> Callable[..., Any]:
            if name in self and self[name] is not f:
                raise KeyError(f"{self.kind} '{name}' is already registered")
            self[name] = f
            self.options[name] = options
            return f

        return add(factory) if factory is not None else add

    def lookup(self, name: str) -> Callable[..., Any]:
        """The entry registered under ``name`` (``KeyError`` naming the known ones otherwise)."""
        if name not in self:
            raise KeyError(
                f"unknown {self.kind} '{name}'; registered {self.kind}s: {', '.join(self.names())}"
                f"{suggestion(name, self)}"
            )
        return self[name]

    def names(self) -> list[str]:
        """The registered names, sorted."""
        return sorted(self)


MODELS = Registry("model")


def register_model(name: str, factory: Callable[..., Any] | None = None) -> Any:
    """Register ``factory`` (a class or function returning a Module) under ``name``; usable as a decorator.

    Args:
        name (str): the registry name.
        factory (callable, optional): the class or function; omitted when used as a decorator.

    Returns:
        The factory (or, without it, the decorator).

    Examples:
        >>> @register_model("tiny_mlp_doc")
        ... def tiny(num_classes=2):
        ...     return nl.models.MLP(4, [8], num_classes)
        >>> get_model("tiny_mlp_doc", num_classes=3)(nl.randn(1, 4)).shape
        nnlite.Size([1, 3])
    """
    return MODELS.register(name, factory)


def get_model_builder(name: str) -> Callable[..., Any]:
    """The class or function registered under ``name`` (KeyError naming the known ones otherwise).

    Args:
        name (str): a registered name.

    Returns:
        The class or function.

    Examples:
        >>> get_model_builder("lenet")
        <class 'nnlite.models.lenet.LeNet'>
    """
    return MODELS.lookup(name)


def list_models() -> list[str]:
    """The registered model names, sorted.

    Returns:
        list of str: the names.

    Examples:
        >>> list_models()[:3]
        ['lenet', 'mlp', 'mobilenet_v2']
    """
    return MODELS.names()


def import_module_class(spec: str, base: type, what: str = "model") -> type:
    """The class ``"pkg.module:ClassName"`` names (``"pkg.module:Outer.Inner"`` too), checked to be
    a subclass of ``base`` before anything calls it. Importing runs the module's top-level code.

    Raises ``ValueError`` for a malformed spec, ``ImportError``, ``AttributeError`` (with a "did
    you mean"), and ``TypeError`` for anything that is not a ``base`` subclass.
    """
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(
            f"{what} '{spec}': expected a registered name or 'package.module:ClassName'"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ImportError(f"{what} '{spec}': cannot import module '{module_name}': {e}") from e
    target = module
    for part in attr.split("."):
        if not hasattr(target, part):
            names = [n for n in dir(target) if not n.startswith("_")]
            raise AttributeError(
                f"{what} '{spec}': module '{module_name}' has no attribute '{attr}'"
                f"{suggestion(part, names)}"
            )
        target = getattr(target, part)
    if not (isinstance(target, type) and issubclass(target, base)):
        kind = "a class" if isinstance(target, type) else f"a {type(target).__name__}"
        raise TypeError(
            f"{what} '{spec}': '{attr}' is {kind}, not an {base.__module__.split('.')[0]}."
            f"nn.Module subclass (an import path must name a Module class)"
        )
    return target


def get_model(name: str, **kwargs: Any) -> Any:
    """Build a model by registry name or by import path ``"package.module:ClassName"``.

    Keyword arguments go to the model's constructor; an unknown argument is an error naming it
    and listing the accepted ones.

    Args:
        name (str): a registered name, or ``"package.module:ClassName"``.
        **kwargs: the model's constructor arguments.

    Returns:
        Module: the model.

    Examples:
        >>> get_model("resnet18", num_classes=10).fc
        Linear(in_features=512, out_features=10, bias=True)
    """
    from ..nn import Module

    if not isinstance(name, str):
        raise TypeError(f"model name must be a string, got {type(name).__name__}")
    if ":" in name:
        factory = import_module_class(name, Module)
    elif name in MODELS:
        factory = MODELS[name]
    else:
        raise KeyError(
            f"unknown model '{name}'; registered models: {', '.join(list_models())} (or give "
            "'package.module:ClassName')"
        )
    _check_kwargs(name, factory, kwargs)
    model = factory(**kwargs)
    if not isinstance(model, Module):
        raise TypeError(f"model '{name}' built a {type(model).__name__}, not an nnlite.nn.Module")
    return model


def _check_kwargs(name: str, factory: Callable[..., Any], kwargs: dict[str, Any]) -> None:
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return
    params = sig.parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    accepted = [k for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in kwargs:
        if key not in accepted:
            raise TypeError(
                f"model '{name}' got an unexpected argument '{key}'; accepted: "
                f"{', '.join(accepted) or 'none'}"
            )


def _register_builtins() -> None:
    from . import mobilenet, resnet, vgg
    from .lenet import MLP, LeNet, Net

    builtins: dict[str, Callable[..., Any]] = {
        "lenet": LeNet,
        "tutorial_net": Net,
        "mlp": MLP,
        "mobilenet_v2": mobilenet.mobilenet_v2,
    }
    builtins.update((name, getattr(resnet, name)) for name in ("resnet18", "resnet34", "resnet50"))
    builtins.update((name, getattr(vgg, name)) for name in vgg.__all__ if name != "VGG")
    for key, factory in builtins.items():
        MODELS.register(key, factory)


_register_builtins()
