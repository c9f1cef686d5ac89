"""Checking config values against their declared types.

A config section is a dataclass (``config.py``) whose fields carry a type annotation, a default
and ``setting`` rules (bounds, help); a registry section (an optimizer, a transform, ...) is a
``Component`` whose keys come from the registered constructor's signature (``fields_of``). Both
become ``Field``s, and ``check`` validates a YAML value against one: the annotation says what is
expected (``int``, ``float``, ``Literal[...]``, ``list[float]``, ``tuple[float, float]``, a
dataclass, ``X | None``), the rules add what an annotation cannot say (``min=1``).

Every problem raises ``ConfigError`` with a one-line message that names the key, what was expected
and what was found (quoted values are cut to a few dozen characters); an unknown key comes with
the closest valid key as a suggestion.
"""

import dataclasses
import difflib
import functools
import inspect
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

__all__ = [
    "ConfigError",
    "Component",
    "Field",
    "REQUIRED",
    "setting",
    "section_fields",
    "fields_of",
    "check",
    "to_raw",
    "type_hints",
    "union_members",
    "expected",
    "type_name",
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

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


REQUIRED: Any = dataclasses.MISSING  # the default of a key the config must give


@dataclasses.dataclass
class Component:
    """An entry of a registry, as a config names it: ``name`` and the keyword arguments of its
    constructor (``args``, every default filled in). In YAML it is one flat mapping,
    ``{name: sgd, lr: 0.01, ...}``.

    Args:
        name (str): the registered name.
        args (dict): the constructor's keyword arguments.

    Examples:
        >>> Component("sgd", {"lr": 0.01}).to_dict()
        {'name': 'sgd', 'lr': 0.01}
    """

    name: str
    args: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The flat YAML mapping of this component.

        Returns:
            dict: ``name`` then the arguments.

        Examples:
            >>> Component("sgd", {"lr": 0.1}).to_dict()
            {'name': 'sgd', 'lr': 0.1}
        """
        return {"name": self.name, **{k: to_raw(v) for k, v in self.args.items()}}


class Field(NamedTuple):
    """One key of a section: its attribute name, annotation, default (``REQUIRED``: none) and
    rules (``help``, ``min``, ``max``, ``min_open``, ``max_open``, ``registry``, ...)."""

    name: str
    type: Any
    default: Any
    rules: Mapping[str, Any]


def setting(
    default: Any = REQUIRED, *, factory: Callable[[], Any] | None = None, **rules: Any
) -> Any:
    """A dataclass field with its config rules: ``help`` (the reference's text), bounds (``min``,
    ``max``, ``min_open``, ``max_open``), ``key`` (the YAML key when it is not the attribute
    name), ``registry`` (for ``Component`` fields), ``check`` (a function for what no annotation
    says)."""
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=rules)
    if default is REQUIRED:
        return dataclasses.field(metadata=rules)
    return dataclasses.field(default=default, metadata=rules)


@functools.cache
def section_fields(cls: type) -> dict[str, Field]:
    """``{yaml key: Field}`` of the dataclass ``cls``, in declaration order."""
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = REQUIRED
        out[f.metadata.get("key", f.name)] = Field(f.name, hints[f.name], default, f.metadata)
    return out


def to_raw(value: Any) -> Any:
    """A config object as plain YAML data: dataclasses as mappings (YAML keys, declaration
    order), ``Component``s as flat mappings, tuples as lists."""
    if isinstance(value, Component):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: to_raw(getattr(value, f.name)) for k, f in section_fields(type(value)).items()}
    if isinstance(value, (list, tuple)):
        return [to_raw(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------- messages


def kind_name(value: Any) -> str:
    if value is None:
        return "null"
    for cls, text in ((bool, "a boolean"), (int, "an integer"), (float, "a number")):
        if isinstance(value, cls):
            return text
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


SHOW_LIMIT = 80


def show(value: Any, limit: int = SHOW_LIMIT) -> str:
    """A value as it appears in an error message: YAML-like, cut to ``limit`` characters. The
    text is built piece by piece and stops at the limit, so a huge (or alias-expanded) value
    costs no more than a short one."""
    pieces: list[str] = []
    size = 0

    def emit(text: str) -> bool:
        nonlocal size
        pieces.append(text)
        size += len(text)
        return size <= limit

    def walk(v: Any) -> bool:
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


def join(path: str, key: str | int) -> str:
    """``path`` extended by a mapping key (``a.b``) or a list index (``a[1]``)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def bad(path: str, expected_text: str, value: Any) -> ConfigError:
    """The error for ``value`` at ``path`` that is not ``expected_text``."""
    return ConfigError(
        f"{path or 'config'}: expected {expected_text}, got {show(value)} ({kind_name(value)})",
        path,
    )


def suggest(word: Any, candidates: Any) -> str:
    """``"; did you mean 'x'?"`` for the candidate closest to ``word``, or ``""``."""
    if not isinstance(word, str) or len(word) > SHOW_LIMIT:  # nothing close to a long text
        return ""
    match = difflib.get_close_matches(word, [str(c) for c in candidates], n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


# ---------------------------------------------------------------------------------------- kinds

# What an annotation asks for, one word per way of checking it.
_Kind = Literal[
    "section", "component", "components", "bool", "int", "float", "number", "str", "choice",
    "map", "numbers", "int_or_ints", "any",
]  # fmt: skip


def union_members(tp: Any) -> tuple[list[Any], bool]:
    """The members of a union annotation other than None, and whether None is one."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        kept = [a for a in args if a is not type(None)]
        return kept, len(kept) < len(args)
    return [tp], False


def kind_of(tp: Any) -> tuple[_Kind, Any, bool]:
    """``(kind, annotation, nullable)`` of the annotation ``tp``. Of a union, ``int | float`` is
    any number, ``int | list[int]`` a size or its pair, and otherwise the first member counts
    (``float | list[float]``: one value per parameter group; the config has one group)."""
    kept, nullable = union_members(tp)
    if set(kept) == {int, float}:
        return "number", tp, nullable
    if set(kept) == {int, list[int]}:
        return "int_or_ints", tp, nullable
    tp = kept[0]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Component:
        return "component", tp, nullable
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return "section", tp, nullable
    if tp in (bool, int, float, str):
        return typing.cast(_Kind, tp.__name__), tp, nullable
    if origin is Literal:
        return "choice", tp, nullable
    if origin is dict:
        return "map", tp, nullable
    if origin is list and args == (Component,):
        return "components", tp, nullable
    if origin is tuple or (origin is list and args in ((int,), (float,))):
        return "numbers", tp, nullable
    return "any", tp, nullable


def _range_text(rules: Mapping[str, Any]) -> str:
    lo, hi = rules.get("min"), rules.get("max")
    lo_open, hi_open = rules.get("min_open", False), rules.get("max_open", False)
    if lo is not None and hi is not None:
        return f" in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
    if lo is not None:
        return f" {'>' if lo_open else '>='} {lo}"
    if hi is not None:
        return f" {'<' if hi_open else '<='} {hi}"
    return ""


def _in_range(v: float, rules: Mapping[str, Any]) -> bool:
    lo, hi = rules.get("min"), rules.get("max")
    if lo is not None and (v <= lo if rules.get("min_open") else v < lo):
        return False
    return not (hi is not None and (v >= hi if rules.get("max_open") else v > hi))


def _numbers_text(tp: Any, rules: Mapping[str, Any]) -> str:
    what = "integers" if typing.get_args(tp) == (int,) else "numbers"
    if rules.get("positive"):
        what = "positive " + what
    what += _range_text({k: v for k, v in rules.items() if k != "min_open"})
    length = len(typing.get_args(tp)) if typing.get_origin(tp) is tuple else 0
    text = f"a list of {f'{length} ' if length else ''}{what}"
    if rules.get("increasing"):
        text += " in increasing order"
    return text + ("" if length or not rules.get("scalar_ok", True) else " (or a single number)")


def expected(tp: Any, rules: Mapping[str, Any]) -> str:
    """What a value annotated ``tp`` must be, as error messages say it."""
    kind, tp, nullable = kind_of(tp)
    if "expected" in rules:
        text = rules["expected"]
    elif kind == "int_or_ints":
        lengths = " or ".join(str(n) for n in rules.get("lengths", (2,)))
        text = f"an integer >= {rules.get('min', 0)} or a list of {lengths} such integers"
    elif kind == "component":
        text = f"a mapping with name: {' | '.join(rules['registry'])}"
    elif kind == "choice":
        text = "one of " + ", ".join(typing.get_args(tp))
    elif kind == "numbers":
        text = _numbers_text(tp, rules)
    elif kind == "components":
        text = "a non-empty list" if rules.get("nonempty") else "a list"
    else:
        text = {
            "section": "a mapping",
            "bool": "true or false",
            "int": "an integer" + _range_text(rules),
            "float": "a number" + _range_text(rules),
            "number": "a number",
            "str": "a non-empty string",
            "map": "a mapping of argument names to values",
            "any": "a value",
        }[kind]
    return text + " or null" if nullable else text


def type_name(tp: Any, rules: Mapping[str, Any]) -> str:
    """The short type of the config reference's table (``int``, ``list of float``, ...)."""
    kind, tp, nullable = kind_of(tp)
    if "type_name" in rules:
        text = rules["type_name"]
    elif kind == "choice":
        text = " \\| ".join(f"`{c}`" for c in typing.get_args(tp))
    elif kind == "numbers":
        text = "list of int" if typing.get_args(tp) == (int,) else "list of float"
    elif kind == "components":
        text = f"list of {rules['registry'].kind}s"
    else:
        text = {"section": "mapping", "component": "mapping", "map": "mapping"}.get(kind, kind)
        text = {"int_or_ints": "int or list of int", "float": "float" + _range_text(rules)}.get(
            kind, text
        )
    return text + " or null" if nullable else text


# ---------------------------------------------------------------------------------------- checking


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check(value: Any, tp: Any, rules: Mapping[str, Any], path: str) -> Any:
    """``value`` checked against the annotation ``tp`` and ``rules``, as the config object holds
    it (ints of a float key as floats, sections as dataclasses, registry entries as
    ``Component``s); ``ConfigError`` naming ``path`` otherwise."""
    annotation = tp
    kind, tp, nullable = kind_of(tp)
    if value is None:
        if nullable:
            return None
        raise bad(path, expected(annotation, rules), value)
    if "check" in rules:
        return rules["check"](value, path)
    if kind == "section":
        if not isinstance(value, dict):
            raise bad(path, expected(annotation, rules), value)
        return tp(**check_mapping(value, section_fields(tp), path))
    if kind == "component":
        if not isinstance(value, (dict, str)):
            raise bad(path, expected(annotation, rules), value)
        return _check_component(value, rules["registry"], path)
    if kind == "components":
        if not isinstance(value, list) or (rules.get("nonempty") and not value):
            raise bad(path, expected(annotation, rules), value)
        return [_check_component(v, rules["registry"], join(path, i)) for i, v in enumerate(value)]
    if kind == "choice" and isinstance(value, str) and value not in typing.get_args(tp):
        choices = typing.get_args(tp)
        raise ConfigError(
            f"{path}: expected {expected(annotation, rules)}, got {show(value)}{suggest(value, choices)}",
            path,
        )
    if kind == "map":
        if isinstance(value, dict):
            for k in value:
                if not isinstance(k, str) or not k.isidentifier():
                    key = join(path, str(k))
                    raise ConfigError(
                        f"{key}: argument names must be identifiers, got {show(k)}", key
                    )
            return dict(value)
    elif kind == "numbers":
        return _check_numbers(value, tp, rules, path, expected(annotation, rules))
    elif kind == "int_or_ints":
        items = value if isinstance(value, list) else [value]
        ok = not isinstance(value, list) or len(value) in rules.get("lengths", (2,))
        if ok and all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            if all(v >= rules.get("min", 0) for v in items):
                return value
    elif kind == "float":
        if _is_number(value):
            value = float(value)  # a float key's 1 is 1.0 (in messages too)
            if not math.isnan(value) and _in_range(value, rules):
                return value
    elif kind == "any" or (
        kind == "bool" and isinstance(value, bool)
        or kind == "int" and isinstance(value, int) and _is_number(value) and _in_range(value, rules)
        or kind == "number" and _is_number(value)
        or kind == "str" and isinstance(value, str) and value.strip()
        or kind == "choice" and isinstance(value, str)
    ):  # fmt: skip
        return value
    raise bad(path, expected(annotation, rules), value)


def _check_numbers(
    value: Any, tp: Any, rules: Mapping[str, Any], path: str, want: str
) -> list[Any]:
    integer = typing.get_args(tp) == (int,)
    length = len(typing.get_args(tp)) if typing.get_origin(tp) is tuple else 0
    if not isinstance(value, list):
        if length or not rules.get("scalar_ok", True) or not _is_number(value):
            raise bad(path, want, value)
        value = [value]
    if not value or (length and len(value) != length):
        raise bad(path, want, value)
    out = []
    for v in value:
        ok = isinstance(v, int) if integer else isinstance(v, (int, float))
        if (
            isinstance(v, bool)
            or not ok
            or (isinstance(v, float) and math.isnan(v))
            or (rules.get("positive") and v <= 0)
            or not _in_range(v, {k: r for k, r in rules.items() if k != "min_open"})
        ):
            raise bad(path, want, value)
        out.append(v if integer else float(v))
    if rules.get("increasing") and any(b <= a for a, b in zip(out, out[1:])):
        raise bad(path, want, value)
    return out


def check_mapping(
    value: Any, fields: Mapping[str, Field], path: str, what: str | None = None
) -> dict[str, Any]:
    """``{attribute: checked value}`` of the mapping ``value`` whose keys are ``fields``: unknown
    keys refused, missing ones given their (checked) defaults or refused when required."""
    if not isinstance(value, dict):
        raise bad(path, "a mapping", value)
    for key in value:
        if key not in fields:
            raise _unknown_key(path, key, fields, what)
    out = {}
    for key, f in fields.items():
        sub = join(path, key)
        if key in value:
            out[f.name] = check(value[key], f.type, f.rules, sub)
        elif f.default is REQUIRED:
            help_text = f.rules.get("help", "")
            raise ConfigError(
                f"missing required key '{sub}' ({expected(f.type, f.rules)}"
                f"{': ' + help_text if help_text else ''})",
                sub,
            )
        else:
            out[f.name] = check(to_raw(f.default), f.type, f.rules, sub)
    return out


def _check_component(value: Any, registry: Any, path: str) -> Component:
    if isinstance(value, str):  # shorthand: "loss: cross_entropy"
        value = {"name": value}
    names = ", ".join(registry)
    if not isinstance(value, dict):
        raise bad(path, f"a mapping with name: {' | '.join(registry)}", value)
    name_path = join(path, "name")
    if "name" not in value:
        raise ConfigError(f"missing required key '{name_path}' (one of {names})", name_path)
    name = value["name"]
    if not isinstance(name, str):
        raise bad(name_path, f"one of {names}", name)
    if name not in registry:
        raise ConfigError(
            f"{name_path}: unknown {registry.kind} {show(name)}, expected one of "
            f"{names}{suggest(name, registry)}",
            name_path,
        )
    fields = {"name": Field("name", str, name, {}), **fields_of(registry, name)}
    args = check_mapping(value, fields, path, f"{registry.kind} {name!r}")
    return Component(args.pop("name"), args)


# ---------------------------------------------------------------------------------------- unknown keys

ROOT: list[type] = []  # the whole config's dataclass, where an unknown key is looked for elsewhere


def _all_paths(fields: Mapping[str, Field], prefix: str = "") -> list[str]:
    """Every key path under ``fields`` (for suggesting a key that sits in another section)."""
    out: list[str] = []
    for key, f in fields.items():
        p = join(prefix, key)
        out.append(p)
        kind, tp, _ = kind_of(f.type)
        if kind == "section":
            out += _all_paths(section_fields(tp), p)
        elif kind == "component":
            registry = f.rules["registry"]
            for name in registry:
                out += [q for q in _all_paths(fields_of(registry, name), p) if q not in out]
    return out


def _unknown_key(
    path: str, key: Any, fields: Mapping[str, Any], what: str | None = None
) -> ConfigError:
    """The error for ``key`` not among ``fields`` under ``path``, with the closest key."""
    full = join(path, str(key))
    where = f" of {what}" if what else (f" in {path}" if path else "")
    match = difflib.get_close_matches(str(key), list(fields), n=1, cutoff=0.6)
    if match:
        hint = f"did you mean '{join(path, match[0])}'?"
    else:
        everywhere = _all_paths(section_fields(ROOT[0])) if ROOT else []
        elsewhere = [p for p in everywhere if p.rsplit(".", 1)[-1] == str(key)]
        if full in everywhere or not elsewhere:  # valid for another optimizer/scheduler/transform
            hint = f"valid keys{where}: " + ", ".join(fields)
        else:
            hint = f"did you mean '{elsewhere[0]}'?"
    return ConfigError(f"unknown key '{full}'{where} ({hint})", full)


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


_SIGNATURE_FIELDS: dict[tuple[int, str], dict[str, Field]] = {}


def _fields_of(registry: Any, name: str) -> dict[str, Field]:
    cls = registry[name]
    options = registry.options.get(name, {})
    hints = {**type_hints(cls), **options.get("types", {})}
    helps = _argument_help(cls)
    fields = {}
    for arg, p in inspect.signature(cls).parameters.items():
        if p.kind is not p.POSITIONAL_OR_KEYWORD or arg in _NOT_CONFIGURABLE:
            continue
        if arg in options.get("exclude", ()):
            continue
        rules = {"help": helps.get(arg, ""), **options.get("limits", {}).get(arg, {})}
        default = rules.pop("default", REQUIRED if p.default is p.empty else p.default)
        tp: Any = hints.get(arg)
        if tp is None:
            tp = Any if default in (REQUIRED, None) else type(default)
        if isinstance(default, tuple) and tp is type(default):
            tp = tuple.__class_getitem__(tuple(type(v) for v in default))
        if default is None:
            tp = tp | None if tp is not Any else tp
        if kind_of(tp)[0] == "float" and isinstance(default, int) and not isinstance(default, bool):
            default = float(default)  # ``momentum=0`` in a signature: the config shows 0.0
        if kind_of(tp)[0] in ("int", "float", "numbers") and typing.get_origin(tp) is not list:
            rules.setdefault("min", 0.0 if kind_of(tp)[0] != "int" else 0)
        fields[arg] = Field(arg, tp, default, rules)
    return fields


def fields_of(registry: Any, name: str) -> dict[str, Field]:
    """``{argument: Field}`` of the class registered as ``name``: its positional-or-keyword
    constructor arguments, with the signature's defaults and annotations. Ints and floats are
    >= 0 unless the entry says otherwise.

    The registry entry's options refine what a signature cannot say: ``exclude`` (arguments
    left out), ``types`` (annotations for arguments that have none, or a narrower one),
    ``limits`` (rules: ``min=1``, ``increasing=True``, ``default=None`` where the trainer fills
    in a value)."""
    key = (id(registry), name)
    if key not in _SIGNATURE_FIELDS:
        _SIGNATURE_FIELDS[key] = _fields_of(registry, name)
    return _SIGNATURE_FIELDS[key]


def type_hints(fn: Any) -> dict[str, Any]:
    """``fn``'s evaluated annotations (of a class: its constructor's). Names imported only for
    type checkers do not evaluate at run time: each annotation is then tried on its own, and
    those that fail are left out."""
    if isinstance(fn, type):
        fn = next(vars(c)["__init__"] for c in fn.__mro__ if "__init__" in vars(c))
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001  (any failure: fall back to one at a time)
        pass
    hints = {}
    namespace = getattr(fn, "__globals__", {})
    for name, annotation in getattr(fn, "__annotations__", {}).items():
        holder = types.SimpleNamespace(__annotations__={name: annotation})
        try:
            hints[name] = typing.get_type_hints(holder, globalns=namespace)[name]
        except Exception:  # noqa: BLE001
            continue
    return hints


def _argument_help(cls: Any) -> dict[str, str]:
    """``{argument: first sentence}`` from the ``Args:`` section of ``cls``'s docstring."""
    out: dict[str, str] = {}
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
