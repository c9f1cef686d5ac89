"""Every public object of nnlite carries a docstring in PyTorch's shape, and its examples run.

The public API is what nnlite's public modules export without a leading underscore (their
``__all__``, else ``dir()``), restricted to objects defined in nnlite, plus the public methods
of those classes (``Tensor``'s methods come from its mixins). Each docstring needs:

- an ``Args:`` section when the object takes arguments (a class: its constructor's),
- a ``Returns:`` (or ``Yields:``) section when a function returns a value,
- an ``Example:``/``Examples:`` section with ``>>>`` lines.

tests/test_doctests.py runs the examples.
"""

import ast
import importlib
import inspect
import re
import textwrap
import types

PUBLIC_MODULES = (
    "nnlite",
    "nnlite.autograd",
    "nnlite.nn",
    "nnlite.nn.functional",
    "nnlite.nn.init",
    "nnlite.nn.utils",
    "nnlite.nn.parallel",
    "nnlite.optim",
    "nnlite.optim.lr_scheduler",
    "nnlite.data",
    "nnlite.data.datasets",
    "nnlite.data.transforms",
    "nnlite.utils",
    "nnlite.utils.data",
    "nnlite.linalg",
    "nnlite.models",
    "nnlite.train",
    "nnlite.report",
    "nnlite.onnx",
    "nnlite.multiprocessing",
    "nnlite.cuda",
    "nnlite.backends",
    "nnlite.backends.cudnn",
    "nnlite.backends.mps",
    "nnlite.accelerator",
    "nnlite.device",
    "nnlite.serialization",
    "nnlite.nn.utils.model_summary",
)
# Names the top-level package loads on first use (``nl.save``, ``nl.summary``).
LAZY_TOP_LEVEL = ("save", "load", "save_file", "load_file", "summary")

SECTION = re.compile(r"^\s*(Args|Arguments|Returns|Yields|Example|Examples|Raises):\s*$", re.M)


def _public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    if module.__name__ == "nnlite":
        names = list(names) + [n for n in LAZY_TOP_LEVEL if n not in names]
    return [n for n in names if not n.startswith("_")]


def _defined_in_nnlite(obj):
    return (getattr(obj, "__module__", None) or "").startswith("nnlite")


def _unwrap(member):
    if isinstance(member, (staticmethod, classmethod)):
        return member.__func__
    if isinstance(member, property):
        return member.fget
    return member


def _class_members(cls):
    """Public methods and properties a class defines (in nnlite), by name.

    An override (``forward``, ``extra_repr``, ``step``, ...) shares the contract of the method
    it overrides, so, as in PyTorch's reference, it is documented once: where it first appears.
    """
    members = {}
    for klass in reversed(cls.__mro__):
        if not _defined_in_nnlite(klass):
            continue
        for name, member in vars(klass).items():
            if name.startswith("_") or name in members:
                continue
            func = _unwrap(member)
            if isinstance(func, types.FunctionType) and _defined_in_nnlite(func):
                members[name] = (klass, member)
    return members


def public_objects():
    """``{qualified name: (object, kind)}`` for every public function, class and method."""
    found = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in _public_names(module):
            obj = getattr(module, name, None)
            if isinstance(obj, types.ModuleType) or not _defined_in_nnlite(obj):
                continue
            if inspect.isclass(obj):
                key = f"{obj.__module__}.{obj.__qualname__}"
                found.setdefault(key, (obj, "class"))
                for member_name, (klass, member) in _class_members(obj).items():
                    owner = f"{klass.__module__}.{klass.__qualname__}"
                    kind = "property" if isinstance(member, property) else "method"
                    found.setdefault(f"{owner}.{member_name}", (member, kind))
            elif inspect.isfunction(obj):
                # functions made by a factory share a qualname: name them where they are exported
                where = module_name if "<locals>" in obj.__qualname__ else obj.__module__
                qualname = name if "<locals>" in obj.__qualname__ else obj.__qualname__
                found.setdefault(f"{where}.{qualname}", (obj, "function"))
    return found


def _takes_arguments(func, named_only=False):
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return False
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    if named_only:  # a constructor that only passes ``*args, **kwargs`` on takes nothing itself
        params = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return bool(params)


def _returns_value(func):
    """True when the function's own body returns or yields a value (nested functions aside)."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return False
    tree = ast.parse(source)
    body = tree.body[0]
    stack = list(body.body) if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _constructor(cls):
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            init = vars(klass)["__init__"]
            return init if _defined_in_nnlite(klass) else None
    return None


def docstring_problems(obj, kind):
    """What a public object's docstring lacks, as a list of short phrases."""
    func = _unwrap(obj)
    if kind == "class":  # a class's own docstring: inheriting its base's would describe the base
        doc = inspect.cleandoc(obj.__doc__) if obj.__doc__ else None
    else:
        doc = inspect.getdoc(obj if kind == "property" else func)
    if not doc:
        return ["no docstring"]
    sections = set(SECTION.findall(doc))
    problems = []
    if kind == "class":
        init = _constructor(obj)
        takes = init is not None and _takes_arguments(init, named_only=True)
    elif kind == "property":
        takes = False
    else:
        takes = _takes_arguments(func)
    if takes and not sections & {"Args", "Arguments"}:
        problems.append("no Args:")
    if kind in ("function", "method") and _returns_value(func):
        if not sections & {"Returns", "Yields"}:
            problems.append("no Returns:")
    if not sections & {"Example", "Examples"} or ">>>" not in doc:
        problems.append("no Example: with >>>")
    return problems


PUBLIC = public_objects()


def test_public_api_is_found():
    # The walk reaches the objects users reach first.
    for name in (
        "nnlite.autograd.tensor.Tensor",
        "nnlite.autograd.tensor_methods.TensorMethods.sum",  # a Tensor method, from its mixin
        "nnlite.exp",  # a function form made by a factory, named where it is exported
        "nnlite.nn.modules.linear.Linear",
        "nnlite.nn.modules.module.Module.forward",
        "nnlite.optim.adam.Adam",
        "nnlite.serialization.save",
    ):
        assert name in PUBLIC, name
    # an override is documented where it first appears, not in every layer
    assert "nnlite.nn.modules.linear.Linear.forward" not in PUBLIC


def test_section_checks_catch_a_bare_docstring():
    def bare(x):
        """Does a thing."""
        return x

    assert docstring_problems(bare, "function") == [
        "no Args:",
        "no Returns:",
        "no Example: with >>>",
    ]


def test_section_checks_accept_a_complete_docstring():
    def complete(x):
        """Doubles a number.

        Args:
            x (float): the number.

        Returns:
            float: twice ``x``.

        Example:
            >>> 2 * 1.5
            3.0
        """
        return 2 * x

    assert docstring_problems(complete, "function") == []


def test_every_public_object_has_a_pytorch_shaped_docstring():
    missing = {}
    for name, (obj, kind) in sorted(PUBLIC.items()):
        problems = docstring_problems(obj, kind)
        if problems:
            missing[name] = problems
    report = "\n".join(f"{name}: {', '.join(p)}" for name, p in missing.items())
    assert not missing, f"{len(missing)} public objects lack docstring parts:\n{report}"
