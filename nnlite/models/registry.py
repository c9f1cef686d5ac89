"""Model registry: names (``lenet``, ``tutorial_net``, ``mlp``, ``resnet18``, ``vgg16``, ``mobilenet_v2``, ...) or ``"pkg.module:ClassName"``."""
import importlib
import inspect

__all__ = ["MODELS", "get_model", "get_model_builder", "register_model", "list_models"]

MODELS = {}


def register_model(name, factory=None):
    """Register ``factory`` (a class or function returning a Module) under ``name``; usable as a decorator."""
    def add(f):
        if name in MODELS and MODELS[name] is not f:
            raise KeyError(f"model '{name}' is already registered")
        MODELS[name] = f
        return f
    return add(factory) if factory is not None else add


def get_model_builder(name):
    """The class or function registered under ``name`` (KeyError naming the known ones otherwise)."""
    if name not in MODELS:
        raise KeyError(f"unknown model '{name}'; registered models: {', '.join(list_models())}")
    return MODELS[name]


def list_models():
    """The registered model names, sorted."""
    return sorted(MODELS)


def _import_target(spec):
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"model '{spec}': expected a registered name ({', '.join(list_models())}) or "
                         "'package.module:ClassName'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ImportError(f"model '{spec}': cannot import module '{module_name}': {e}") from e
    target = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise AttributeError(f"model '{spec}': module '{module_name}' has no attribute '{attr}'")
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"model '{spec}': '{attr}' is not a class or function")
    return target


def get_model(name, **kwargs):
    """Build a model by registry name or by import path ``"package.module:ClassName"``.

    Keyword arguments go to the model's constructor; an unknown argument is an error naming it
    and listing the accepted ones.

    Example:
        >>> get_model("resnet18", num_classes=10)
    """
    from ..nn import Module
    if not isinstance(name, str):
        raise TypeError(f"model name must be a string, got {type(name).__name__}")
    if ":" in name:
        factory = _import_target(name)
    elif name in MODELS:
        factory = MODELS[name]
    else:
        raise KeyError(f"unknown model '{name}'; registered models: {', '.join(list_models())} (or give "
                       "'package.module:ClassName')")
    _check_kwargs(name, factory, kwargs)
    model = factory(**kwargs)
    if not isinstance(model, Module):
        raise TypeError(f"model '{name}' built a {type(model).__name__}, not an nnlite.nn.Module")
    return model


def _check_kwargs(name, factory, kwargs):
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return
    params = sig.parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        accepted = None
    else:
        accepted = [k for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if accepted is not None:
        for key in kwargs:
            if key not in accepted:
                raise TypeError(f"model '{name}' got an unexpected argument '{key}'; accepted: "
                                f"{', '.join(accepted) or 'none'}")


def _register_builtins():
    from .lenet import LeNet, MLP, Net
    from . import mobilenet, resnet, vgg
    builtins = {"lenet": LeNet, "tutorial_net": Net, "mlp": MLP, "mobilenet_v2": mobilenet.mobilenet_v2}
    builtins.update((name, getattr(resnet, name)) for name in ("resnet18", "resnet34", "resnet50"))
    builtins.update((name, getattr(vgg, name)) for name in vgg.__all__ if name != "VGG")
    MODELS.update(builtins)


_register_builtins()
