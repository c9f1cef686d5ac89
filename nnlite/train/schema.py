"""The building blocks of the config schema: one ``Spec`` per kind of value (``Int``, ``Float``,
``Str``, ``Numbers``, ...), ``Section`` (fixed keys), ``Choice`` (keys chosen by ``name``), and
``fields_of``, which derives a section's keys, defaults and types from a class signature.

Every problem raises ``ConfigError`` with a one-line message that names the key, what was expected
and what was found (quoted values are cut to a few dozen characters); an unknown key comes with
the closest valid key as a suggestion.
"""

import copy
import difflib
import inspect
import math
import re
import types
import typing
from typing import Any

__all__ = [
    "ConfigError",
    "Spec",
    "Int",
    "Float",
    "Bool",
    "Str",
    "Numbers",
    "IntOrPair",
    "Number",
    "FreeMap",
    "Section",
    "Choice",
    "ListOf",
    "fields_of",
    "spec_for",
    "show",
]


class ConfigError(ValueError):
    """A config problem; ``key`` is the dotted path of the offending key (or None).

    Args:
        message (str): what is wrong.
        key (str, optional): the dotted path of the key.

    Examples:
        >>> from nnlite.train import ConfigError, validate
        >>> try:
        ...     validate({"model": {"name": "lenet"}})
        ... except ConfigError as e:
        ...     print(e.key)
        data
    """

    def __init__(self, message, key=None):
        super().__init__(message)
        self.key = key


_REQUIRED = object()
_EMPTY = object()


def _kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


SHOW_LIMIT = 80


def show(value, limit=SHOW_LIMIT):
    """A value as it appears in an error message: YAML-like, cut to ``limit`` characters. The
    text is built piece by piece and stops at the limit, so a huge (or alias-expanded) value
    costs no more than a short one."""
    pieces, size = [], 0

    def emit(text):
        nonlocal size
        pieces.append(text)
        size += len(text)
        return size <= limit

    def walk(v):
        if isinstance(v, dict):
            if not emit("{"):
                return False
            for i, (k, item) in enumerate(v.items()):
                if (i and not emit(", ")) or not walk(k) or not emit(": ") or not walk(item):
                    return False
            return emit("}")
        if isinstance(v, (list, tuple)):
            if not emit("["):
                return False
            for i, item in enumerate(v):
                if (i and not emit(", ")) or not walk(item):
                    return False
            return emit("]")
        if v is None:
            return emit("null")
        if isinstance(v, bool):
            return emit("true" if v else "false")
        if isinstance(v, str):
            return emit(repr(v[: limit + 1]) if len(v) > limit else repr(v))
        return emit(repr(v)[: limit + 1])

    walk(value)
    text = "".join(pieces)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_show = show


def _join(path, key):
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _bad(path, expected, value):
    return ConfigError(
        f"{path or 'config'}: expected {expected}, got {_show(value)} ({_kind(value)})", path
    )


class Spec:
    """One key's type, default and documentation."""

    root: Any = None  # the whole schema, where an unknown key is looked for in other sections

    expected = "a value"
    type_name = "any"

    def __init__(self, default=_REQUIRED, help="", nullable=False):
        self.default = default
        self.help = help
        self.nullable = nullable

    @property
    def required(self):
        return self.default is _REQUIRED

    def check(self, value, path):
        if value is None:
            if self.nullable:
                return None
            raise _bad(path, self.describe(), value)
        return self._check(value, path)

    def _check(self, value, path):
        return value

    def describe(self):
        text = self.expected
        return text + " or null" if self.nullable else text

    def resolved_default(self, path):
        if self.default is _REQUIRED:
            raise ConfigError(
                f"missing required key '{path}' ({self.describe()}"
                f"{': ' + self.help if self.help else ''})",
                path,
            )
        return copy.deepcopy(self.default)


class Int(Spec):
    type_name = "int"

    def __init__(self, default=_REQUIRED, help="", nullable=False, min=None, max=None):
        super().__init__(default, help, nullable)
        self.min, self.max = min, max

    @property
    def expected(self):
        return "an integer" + _range_text(self.min, self.max)

    def _check(self, value, path):
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad(path, self.describe(), value)
        if (self.min is not None and value < self.min) or (
            self.max is not None and value > self.max
        ):
            raise _bad(path, self.describe(), value)
        return value


class Float(Spec):
    type_name = "float"

    def __init__(
        self,
        default=_REQUIRED,
        help="",
        nullable=False,
        min=None,
        max=None,
        min_open=False,
        max_open=False,
    ):
        super().__init__(default, help, nullable)
        self.min, self.max, self.min_open, self.max_open = min, max, min_open, max_open

    @property
    def expected(self):
        return "a number" + _range_text(self.min, self.max, self.min_open, self.max_open)

    def _check(self, value, path):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _bad(path, self.describe(), value)
        value = float(value)
        lo_bad = self.min is not None and (value <= self.min if self.min_open else value < self.min)
        hi_bad = self.max is not None and (value >= self.max if self.max_open else value > self.max)
        if math.isnan(value) or lo_bad or hi_bad:
            raise _bad(path, self.describe(), value)
        return value


def _range_text(lo, hi, lo_open=False, hi_open=False):
    if lo is not None and hi is not None:
        return f" in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
    if lo is not None:
        return f" {'>' if lo_open else '>='} {lo}"
    if hi is not None:
        return f" {'<' if hi_open else '<='} {hi}"
    return ""


class Bool(Spec):
    expected = "true or false"
    type_name = "bool"

    def _check(self, value, path):
        if not isinstance(value, bool):
            raise _bad(path, self.describe(), value)
        return value


class Str(Spec):
    def __init__(self, default=_REQUIRED, help="", nullable=False, choices=None, nonempty=True):
        super().__init__(default, help, nullable)
        self.choices = choices
        self.nonempty = nonempty

    @property
    def expected(self):
        if self.choices:
            return "one of " + ", ".join(self.choices)
        return "a non-empty string" if self.nonempty else "a string"

    @property
    def type_name(self):
        return " \\| ".join(self.choices) if self.choices else "str"

    def _check(self, value, path):
        if not isinstance(value, str) or (self.nonempty and not value.strip()):
            raise _bad(path, self.describe(), value)
        if self.choices and value not in self.choices:
            raise ConfigError(
                f"{path}: expected {self.describe()}, got {_show(value)}{_suggest(value, self.choices)}",
                path,
            )
        return value


class Numbers(Spec):
    """A list of numbers (or one number, kept as a one-element list)."""

    type_name = "list of float"

    def __init__(
        self,
        default=_REQUIRED,
        help="",
        nullable=False,
        positive=False,
        length=None,
        scalar_ok=True,
        integer=False,
        increasing=False,
        min=None,
        max=None,
        max_open=False,
    ):
        super().__init__(default, help, nullable)
        self.positive, self.length, self.scalar_ok = positive, length, scalar_ok
        self.integer, self.increasing = integer, increasing
        self.min, self.max, self.max_open = min, max, max_open
        if integer:
            self.type_name = "list of int"

    @property
    def expected(self):
        what = "integers" if self.integer else "numbers"
        if self.positive:
            what = "positive " + what
        if self.min is not None or self.max is not None:
            what += _range_text(self.min, self.max, False, self.max_open)
        n = f"{self.length} " if self.length else ""
        text = f"a list of {n}{what}"
        if self.increasing:
            text += " in increasing order"
        if self.scalar_ok and not self.length:
            text += " (or a single number)"
        return text

    def _check(self, value, path):
        if not isinstance(value, list):
            if self.scalar_ok and isinstance(value, (int, float)) and not isinstance(value, bool):
                value = [value]
            else:
                raise _bad(path, self.describe(), value)
        if not value or (self.length and len(value) != self.length):
            raise _bad(path, self.describe(), value)
        out = []
        for v in value:
            ok = isinstance(v, int) if self.integer else isinstance(v, (int, float))
            if isinstance(v, bool) or not ok or (isinstance(v, float) and math.isnan(v)):
                raise _bad(path, self.describe(), value)
            if self.positive and v <= 0:
                raise _bad(path, self.describe(), value)
            if self.min is not None and v < self.min:
                raise _bad(path, self.describe(), value)
            if self.max is not None and (v >= self.max if self.max_open else v > self.max):
                raise _bad(path, self.describe(), value)
            out.append(v if self.integer else float(v))
        if self.increasing and any(b <= a for a, b in zip(out, out[1:])):
            raise _bad(path, self.describe(), value)
        return out


class IntOrPair(Spec):
    """An int, or a list of ``lengths`` ints (crop sizes, paddings)."""

    def __init__(self, default=_REQUIRED, help="", nullable=False, lengths=(2,), min=0):
        super().__init__(default, help, nullable)
        self.lengths, self.min = lengths, min

    @property
    def expected(self):
        n = " or ".join(str(n) for n in self.lengths)
        return f"an integer >= {self.min} or a list of {n} such integers"

    type_name = "int or list of int"

    def _check(self, value, path):
        items = value if isinstance(value, list) else [value]
        if isinstance(value, list) and len(value) not in self.lengths:
            raise _bad(path, self.describe(), value)
        for v in items:
            if isinstance(v, bool) or not isinstance(v, int) or v < self.min:
                raise _bad(path, self.describe(), value)
        return value


class Number(Spec):
    """A number, int or float kept as given (a padding fill value)."""

    expected = "a number"
    type_name = "number"

    def _check(self, value, path):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _bad(path, self.describe(), value)
        return value


class _Freeze(Spec):
    type_name = "list of str or all_but_head"
    expected = "a list of module names or all_but_head"


class FreeMap(Spec):
    """A mapping with string keys and any YAML values (a model's constructor arguments); the
    keys are checked later against the model's signature."""

    expected = "a mapping of argument names to values"
    type_name = "mapping"

    def _check(self, value, path):
        if not isinstance(value, dict):
            raise _bad(path, self.describe(), value)
        for k in value:
            if not isinstance(k, str) or not k.isidentifier():
                raise ConfigError(
                    f"{_join(path, str(k))}: argument names must be identifiers, got {_show(k)}",
                    _join(path, str(k)),
                )
        return dict(value)


class Section(Spec):
    """A mapping with a fixed set of keys."""

    type_name = "mapping"

    def __init__(self, fields, default=_EMPTY, help="", nullable=False, what=None):
        super().__init__({} if default is _EMPTY else default, help, nullable)
        self.fields = fields
        self.what = what

    expected = "a mapping"

    def _check(self, value, path):
        if not isinstance(value, dict):
            raise _bad(path, self.describe(), value)
        for key in value:
            if key not in self.fields:
                raise _unknown_key(path, key, self.fields, self.what)
        out = {}
        for key, spec in self.fields.items():
            sub = _join(path, key)
            if key in value:
                out[key] = spec.check(value[key], sub)
            else:
                out[key] = spec.check(spec.resolved_default(sub), sub)
        return out


class Choice(Spec):
    """A mapping whose ``name`` key selects the set of other keys allowed (an optimizer and its
    arguments, a transform and its arguments, ...)."""

    type_name = "mapping"

    def __init__(self, variants, default=_REQUIRED, help="", nullable=False, kind="name"):
        super().__init__(default, help, nullable)
        # a Registry (its names and constructor signatures) or a ready {name: fields} mapping
        self._registry = variants if hasattr(variants, "options") else None
        self._variants = None if self._registry is not None else variants
        self.kind = kind

    @property
    def expected(self):
        return f"a mapping with name: {' | '.join(self.variants)}"

    def _check(self, value, path):
        if isinstance(value, str):  # shorthand: "loss: cross_entropy"
            value = {"name": value}
        if not isinstance(value, dict):
            raise _bad(path, self.describe(), value)
        name_path = _join(path, "name")
        if "name" not in value:
            raise ConfigError(
                f"missing required key '{name_path}' (one of {', '.join(self.variants)})", name_path
            )
        name = value["name"]
        if not isinstance(name, str):
            raise _bad(name_path, "one of " + ", ".join(self.variants), name)
        if name not in self.variants:
            raise ConfigError(
                f"{name_path}: unknown {self.kind} {_show(name)}, expected one of "
                f"{', '.join(self.variants)}{_suggest(name, self.variants)}",
                name_path,
            )
        fields = {"name": Str(name, "")}
        fields.update(self.variants[name])
        return Section(fields, what=f"{self.kind} {name!r}")._check(value, path)

    @property
    def variants(self):
        """``{name: {key: Spec}}``; from a registry, derived from the constructors' signatures."""
        if self._variants is None:
            self._variants = {name: fields_of(self._registry, name) for name in self._registry}
        return self._variants


class ListOf(Spec):
    type_name = "list"

    def __init__(self, item, default=_REQUIRED, help="", nullable=False, nonempty=False):
        super().__init__(default, help, nullable)
        self.item, self.nonempty = item, nonempty

    @property
    def expected(self):
        return "a non-empty list" if self.nonempty else "a list"

    def _check(self, value, path):
        if not isinstance(value, list) or (self.nonempty and not value):
            raise _bad(path, self.describe(), value)
        return [self.item.check(v, _join(path, i)) for i, v in enumerate(value)]


def _suggest(word, candidates):
    if not isinstance(word, str) or len(word) > SHOW_LIMIT:  # nothing close to a long text
        return ""
    match = difflib.get_close_matches(word, [str(c) for c in candidates], n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


def _all_paths(spec, prefix=""):
    """Every key path of the schema (for suggesting a key that sits in another section)."""
    out = []
    if isinstance(spec, Section):
        for key, sub in spec.fields.items():
            p = _join(prefix, key)
            out.append(p)
            out += _all_paths(sub, p)
    elif isinstance(spec, Choice):
        for fields in spec.variants.values():
            for key in fields:
                p = _join(prefix, key)
                if p not in out:
                    out.append(p)
    return out


def _unknown_key(path, key, fields, what=None):
    full = _join(path, key)
    where = f" of {what}" if what else (f" in {path}" if path else "")
    match = difflib.get_close_matches(str(key), list(fields), n=1, cutoff=0.6)
    if match:
        hint = f"did you mean '{_join(path, match[0])}'?"
    else:
        everywhere = _all_paths(Spec.root)
        if full in everywhere:  # valid for another optimizer/scheduler/transform
            hint = f"valid keys{where}: " + ", ".join(fields)
        else:
            elsewhere = [p for p in everywhere if p.rsplit(".", 1)[-1] == str(key)]
            hint = (
                f"did you mean '{elsewhere[0]}'?"
                if elsewhere
                else f"valid keys{where}: " + ", ".join(fields)
            )
    return ConfigError(f"unknown key '{full}'{where} ({hint})", full)


# The schema. Each key: type, default (none: required) and meaning, as in the reference table.

# ---------------------------------------------------------------------------------------- from signatures

# Constructor arguments a config never sets: what the trainer passes itself, and PyTorch's
# implementation switches that change nothing in nnlite.
_NOT_CONFIGURABLE = {
    "self",
    "params",
    "optimizer",
    "last_epoch",
    "foreach",
    "capturable",
    "differentiable",
    "fused",
}


def fields_of(registry, name):
    """``{argument: Spec}`` of the class registered as ``name``: its positional-or-keyword
    constructor arguments, with the signature's defaults and the types its annotations give.

    The registry entry's options refine what a signature cannot say: ``exclude`` (arguments
    left out), ``types`` (annotations for classes that have none), ``limits`` (extra ``Spec``
    arguments: ``min=1``, ``increasing=True``, ``default=None`` where the trainer fills in a
    value), ``specs`` (``(SpecClass, kwargs)`` for an argument no annotation describes)."""
    cls = registry[name]
    options = registry.options.get(name, {})
    exclude = set(options.get("exclude", ()))
    init = cls.__init__ if isinstance(cls, type) else cls
    annotations = _type_hints(init)
    annotations.update(options.get("types", {}))
    helps = _argument_help(cls)
    fields = {}
    for arg, p in inspect.signature(cls).parameters.items():
        if p.kind is not p.POSITIONAL_OR_KEYWORD or arg in _NOT_CONFIGURABLE or arg in exclude:
            continue
        default = _REQUIRED if p.default is p.empty else p.default
        extra = {"help": helps.get(arg, ""), **options.get("limits", {}).get(arg, {})}
        default = extra.pop("default", default)
        if arg in options.get("specs", {}):
            spec_class, kwargs = options["specs"][arg]
            fields[arg] = spec_class(**{"default": default, **extra, **kwargs})
        else:
            fields[arg] = spec_for(annotations.get(arg, _type_of(default)), default, **extra)
    return fields


def _type_hints(fn):
    """``fn``'s evaluated annotations. Names imported only for type checkers do not evaluate at
    run time: each annotation is then tried on its own, and those that fail fall back on the
    defaults."""
    try:
        return typing.get_type_hints(fn)
    except Exception:
        pass
    hints = {}
    namespace = getattr(fn, "__globals__", {})
    for name, annotation in getattr(fn, "__annotations__", {}).items():
        try:
            hints[name] = typing.get_type_hints(_Annotated(name, annotation), globalns=namespace)[
                name
            ]
        except Exception:
            continue
    return hints


class _Annotated:
    """An object holding one annotation, for ``typing.get_type_hints`` to evaluate."""

    def __init__(self, name, annotation):
        self.__annotations__ = {name: annotation}


def _type_of(default):
    if default is _REQUIRED or default is None:
        return None
    if isinstance(default, tuple):
        return tuple[tuple(type(v) for v in default)]
    return type(default)


def spec_for(annotation, default=_REQUIRED, **extra):
    """The ``Spec`` of a value annotated ``annotation`` (``float``, ``int``, ``bool``, ``str``,
    ``Literal[...]``, ``tuple[float, float]``, ``list[int]``, ``list[float]``, any of them
    ``| None``). Floats and ints are >= 0 unless ``extra`` says otherwise (the options of
    optimizers and schedulers are)."""
    nullable = default is None
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = typing.get_args(annotation)
        kept = [a for a in members if a is not type(None)]
        nullable = nullable or len(kept) < len(members)
        # ``float | list[float]`` (one value per param group): the config has one group
        annotation = "number" if set(kept) == {int, float} else kept[0]
    if isinstance(default, tuple):
        default = list(default)
    if annotation is float and isinstance(default, int) and not isinstance(default, bool):
        default = float(default)  # ``momentum=0`` in a signature: the config shows 0.0
    kw = {"default": default, "nullable": nullable}
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is bool:
        return Bool(**kw, **extra)
    if annotation is int:
        return Int(**{"min": 0, **kw, **extra})
    if annotation is float:
        return Float(**{"min": 0.0, **kw, **extra})
    if annotation == "number":
        return Number(**kw, **extra)
    if annotation is str:
        return Str(**kw, **extra)
    if origin is typing.Literal:
        return Str(**{"choices": list(args), **kw, **extra})
    if origin is tuple:
        return Numbers(**{"length": len(args), "scalar_ok": False, "min": 0.0, **kw, **extra})
    if origin is list and args in ((int,), (float,)):
        return Numbers(**{"integer": args == (int,), **kw, **extra})
    return Spec(**kw, help=extra.get("help", ""))


def _argument_help(cls):
    """``{argument: first sentence}`` from the ``Args:`` section of ``cls``'s docstring."""
    out = {}
    in_args = False
    for line in (inspect.getdoc(cls) or "").splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:"):
            in_args = True
            continue
        if in_args and stripped and not line.startswith(" "):
            break
        head, sep, text = stripped.partition(": ")
        if in_args and sep and "(" in head:
            names = [n.strip() for n in head.split("(")[0].split(",")]
            sentence = re.split(r"(?<=[.;])\s", text, maxsplit=1)[0].rstrip(".;")
            for n in names:
                out.setdefault(n, sentence)
    return out
