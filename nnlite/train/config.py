"""The training config: schema, defaults, validation, YAML loading and ``--set`` overrides.

A config is a YAML mapping. ``load_config(path, overrides)`` reads it, applies the
``key.path=value`` overrides, checks every key against the schema below and returns the
resolved config: plain dicts and lists with every default filled in. Every problem raises
``ConfigError`` with a one-line message that names the key (``optimizer.lr``,
``data.train_transforms[1].mean``), what was expected and what was found; an unknown key comes
with the closest valid key as a suggestion.

Example:
    >>> cfg = load_config("configs/lenet_cifar10.yaml", ["optimizer.lr=0.01"])
    >>> cfg["optimizer"]
    {'name': 'sgd', 'lr': 0.01, 'momentum': 0.9, 'dampening': 0.0, 'weight_decay': 0.0, 'nesterov': False}
"""
import copy
import difflib
import math
import os
import re

import yaml

__all__ = ["ConfigError", "load_config", "load_yaml", "parse_override", "apply_overrides", "validate",
           "dump_config", "reference", "SCHEMA", "DATASETS"]

#: dataset name -> (nnlite.data.datasets class name, image channels)
DATASETS = {"cifar10": ("CIFAR10", 3), "fashion_mnist": ("FashionMNIST", 1), "mnist": ("MNIST", 1)}


class ConfigError(ValueError):
    """A config problem; ``key`` is the dotted path of the offending key (or None)."""

    def __init__(self, message, key=None):
        super().__init__(message)
        self.key = key


# ---------------------------------------------------------------------------------------- YAML

class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, plus: ``1e-3`` is a float (YAML 1.1 wants ``1.0e-3``) and a key
    given twice in one mapping is an error rather than silently the last one."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    continue
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"found duplicate key {key!r} (first given on line {seen[key] + 1})", key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def _yaml_error_text(e):
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    context = getattr(e, "context", None)
    text = f"{context}, {problem}" if context and problem and context not in problem else problem
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {text}"
    return text


def load_yaml(path):
    """The mapping in the YAML file ``path`` (``ConfigError`` for a missing file, invalid YAML
    (naming the line) or a document that is not a mapping)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a directory, not a YAML file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read config file {path}: {e}") from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        raise ConfigError(f"invalid YAML in {path}: {_yaml_error_text(e)}") from None
    if data is None:
        raise ConfigError(f"config file {path} is empty")
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of keys (name: ..., model: ..., ...), "
                          f"got {_kind(data)}")
    return data


def parse_yaml_value(text):
    """A ``--set`` value: parsed as YAML (``0.01`` a float, ``[1, 2]`` a list, ``null`` None)."""
    return yaml.load(text, Loader=_Loader)


# ---------------------------------------------------------------------------------------- schema

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


def _show(value):
    """A value as it appears in an error message."""
    if isinstance(value, dict):
        text = "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(_show(v) for v in value) + "]"
    elif isinstance(value, str):
        text = repr(value)
    elif value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _join(path, key):
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _bad(path, expected, value):
    return ConfigError(f"{path or 'config'}: expected {expected}, got {_show(value)} ({_kind(value)})", path)


class Spec:
    """One key's type, default and documentation."""

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
            raise ConfigError(f"missing required key '{path}' ({self.describe()}"
                              f"{': ' + self.help if self.help else ''})", path)
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
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise _bad(path, self.describe(), value)
        return value


class Float(Spec):
    type_name = "float"

    def __init__(self, default=_REQUIRED, help="", nullable=False, min=None, max=None, min_open=False,
                 max_open=False):
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
            raise ConfigError(f"{path}: expected {self.describe()}, got {_show(value)}{_suggest(value, self.choices)}",
                              path)
        return value


class Numbers(Spec):
    """A list of numbers (or one number, kept as a one-element list)."""

    type_name = "list of float"

    def __init__(self, default=_REQUIRED, help="", nullable=False, positive=False, length=None, scalar_ok=True,
                 integer=False, increasing=False, min=None, max=None, max_open=False):
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
                raise ConfigError(f"{_join(path, str(k))}: argument names must be identifiers, got {_show(k)}",
                                  _join(path, str(k)))
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
        self.variants = variants
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
            raise ConfigError(f"missing required key '{name_path}' (one of {', '.join(self.variants)})", name_path)
        name = value["name"]
        if not isinstance(name, str):
            raise _bad(name_path, "one of " + ", ".join(self.variants), name)
        if name not in self.variants:
            raise ConfigError(f"{name_path}: unknown {self.kind} {name!r}, expected one of "
                              f"{', '.join(self.variants)}{_suggest(name, self.variants)}", name_path)
        fields = {"name": Str(name, "")}
        fields.update(self.variants[name])
        return Section(fields, what=f"{self.kind} {name!r}")._check(value, path)


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
    match = difflib.get_close_matches(str(word), [str(c) for c in candidates], n=1, cutoff=0.6)
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
            for key, sub in fields.items():
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
        everywhere = _all_paths(SCHEMA)
        if full in everywhere:  # valid for another optimizer/scheduler/transform
            hint = f"valid keys{where}: " + ", ".join(fields)
        else:
            elsewhere = [p for p in everywhere if p.rsplit(".", 1)[-1] == str(key)]
            hint = f"did you mean '{elsewhere[0]}'?" if elsewhere else f"valid keys{where}: " + ", ".join(fields)
    return ConfigError(f"unknown key '{full}'{where} ({hint})", full)


# The schema. Each key: type, default (none: required) and meaning, as in the reference table.

_TRANSFORMS = {
    "to_tensor": {},
    "normalize": {
        "mean": Numbers(help="per-channel means (one value, or one per channel)"),
        "std": Numbers(positive=True, help="per-channel standard deviations"),
    },
    "random_crop": {
        "size": IntOrPair(min=1, help="crop height and width (an int for a square)"),
        "padding": IntOrPair(None, nullable=True, lengths=(2, 4), help="padding added before cropping"),
        "pad_if_needed": Bool(False, help="pad images smaller than size"),
        "fill": Number(0, help="constant padding value"),
        "padding_mode": Str("constant", choices=["constant", "edge", "reflect", "symmetric"]),
    },
    "random_horizontal_flip": {
        "p": Float(0.5, min=0.0, max=1.0, help="flip probability"),
    },
}

_OPTIMIZERS = {
    "sgd": {
        "lr": Float(min=0.0, help="learning rate"),
        "momentum": Float(0.0, min=0.0),
        "dampening": Float(0.0, min=0.0),
        "weight_decay": Float(0.0, min=0.0),
        "nesterov": Bool(False),
    },
    "adam": {
        "lr": Float(min=0.0, help="learning rate"),
        "betas": Numbers([0.9, 0.999], length=2, scalar_ok=False, min=0.0, max=1.0, max_open=True),
        "eps": Float(1e-8, min=0.0),
        "weight_decay": Float(0.0, min=0.0),
        "amsgrad": Bool(False),
    },
    "adamw": {
        "lr": Float(min=0.0, help="learning rate"),
        "betas": Numbers([0.9, 0.999], length=2, scalar_ok=False, min=0.0, max=1.0, max_open=True),
        "eps": Float(1e-8, min=0.0),
        "weight_decay": Float(0.01, min=0.0),
        "amsgrad": Bool(False),
    },
}

_SCHEDULERS = {
    "step": {
        "step_size": Int(min=1, help="epochs between decays"),
        "gamma": Float(0.1, min=0.0, min_open=True),
    },
    "multistep": {
        "milestones": Numbers(integer=True, increasing=True, min=1, help="epochs at which lr decays"),
        "gamma": Float(0.1, min=0.0, min_open=True),
    },
    "cosine": {
        "T_max": Int(None, nullable=True, min=1, help="half period in epochs (null: epochs)"),
        "eta_min": Float(0.0, min=0.0),
    },
}

_LOSSES = {
    "cross_entropy": {
        "label_smoothing": Float(0.0, min=0.0, max=1.0),
        "weight": Numbers(None, nullable=True, min=0.0, scalar_ok=False, help="per-class weights"),
    },
    "nll": {
        "weight": Numbers(None, nullable=True, min=0.0, scalar_ok=False, help="per-class weights"),
    },
}

_DEFAULT_TRANSFORMS = [{"name": "to_tensor"}]

SCHEMA = Section({
    "name": Str(None, nullable=True, help="run name (null: the config file's name)"),
    "seed": Int(0, min=0, help="seeds nnlite, numpy, python's random and the data loaders"),
    "model": Section(help="the model", fields={
        "name": Str(help="registry name (lenet, tutorial_net, resnet18, mlp) or 'pkg.module:Class'"),
        "args": FreeMap({}, help="keyword arguments of the model's constructor"),
    }, default=_REQUIRED),
    "data": Section(help="dataset, transforms and loaders", fields={
        "dataset": Str(choices=list(DATASETS), help="the dataset"),
        "root": Str("./data", help="folder holding (or receiving) the dataset files"),
        "download": Bool(True, help="download the files when they are missing"),
        "batch_size": Int(min=1, help="training mini-batch size (per process with MPI)"),
        "test_batch_size": Int(1000, min=1, help="evaluation batch size"),
        "num_workers": Int(0, min=0, help="data loader worker processes (0: load in the main process)"),
        "train_transforms": ListOf(Choice(_TRANSFORMS, kind="transform"), _DEFAULT_TRANSFORMS,
                                   help="transforms of training images, in order"),
        "test_transforms": ListOf(Choice(_TRANSFORMS, kind="transform"), _DEFAULT_TRANSFORMS,
                                  help="transforms of test images, in order"),
    }, default=_REQUIRED),
    "loss": Choice(_LOSSES, {"name": "cross_entropy"}, kind="loss", help="the loss and its arguments"),
    "optimizer": Choice(_OPTIMIZERS, kind="optimizer", help="the optimizer and its arguments"),
    "scheduler": Choice(_SCHEDULERS, None, nullable=True, kind="scheduler",
                        help="learning-rate schedule, stepped once per epoch"),
    "epochs": Int(min=1, help="training epochs"),
    "log_every": Int(2000, min=1, help="print the running loss every N mini-batches"),
    "threads": Int(None, nullable=True, min=1,
                   help="threads of nnlite's kernels and BLAS, as nl.set_num_threads (null: all CPUs)"),
    "parallel": Section(help="parallel training", fields={
        "workers": Int(1, min=1, help="DataParallel worker processes (1: no DataParallel)"),
        "backend": Str(None, nullable=True, choices=["mpi"],
                       help="mpi: DistributedDataParallel across mpirun processes"),
    }),
    "output_dir": Str("runs", help="where run directories are created"),
    "logging": Section(help="extra outputs of a run", fields={
        "tensorboard": Bool(False, help="also write TensorBoard event files to RUN_DIR/tensorboard (needs tensorboardX)"),
    }),
    "finetune": Section({
        "from": Str(help="checkpoint to start from (a run's .npz or a saved state_dict)"),
        "freeze": _Freeze([], help="module names to freeze (requires_grad off, eval mode), or all_but_head"),
        "head": Section({
            "module": Str(help="name of the layer to replace (e.g. fc3)"),
            "num_classes": Int(min=1, help="outputs of the new layer (must equal the dataset's classes)"),
        }, default=None, nullable=True, help="the layer replaced by a fresh one (null: keep every layer)"),
    }, default=None, nullable=True, help="start from a checkpoint, freeze and replace layers"),
})

_ORDER_TRANSFORM_HINT = "to_tensor must come before normalize"


def _check_freeze(value, path):
    if value == "all_but_head":
        return value
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _bad(path, "a list of module names (e.g. [conv1, conv2]) or all_but_head", value)
    return list(value)


def _check_transform_order(transforms, path):
    kinds = [t["name"] for t in transforms]
    if "to_tensor" not in kinds:
        raise ConfigError(f"{path}: the list needs a {{name: to_tensor}} entry (images must become tensors), "
                          f"got {_show(kinds)}", path)
    if kinds.count("to_tensor") > 1:
        i = [j for j, k in enumerate(kinds) if k == "to_tensor"][1]
        raise ConfigError(f"{_join(path, i)}: to_tensor is given twice", _join(path, i))
    first = kinds.index("to_tensor")
    for i, k in enumerate(kinds):
        if k == "normalize" and i < first:
            raise ConfigError(f"{_join(path, i)}: normalize works on tensors; {_ORDER_TRANSFORM_HINT}",
                              _join(path, i))


def validate(raw, default_name=None):
    """Check ``raw`` (a mapping, e.g. parsed YAML) against the schema and return the resolved
    config with every default filled in. Raises ``ConfigError`` naming the first bad key."""
    cfg = SCHEMA.check(raw, "")
    if cfg["name"] is None:
        cfg["name"] = re.sub(r"[^A-Za-z0-9._-]+", "_", default_name or "run").lstrip("._-") or "run"
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", cfg["name"]):
        raise ConfigError(f"name: expected letters, digits, '.', '_' or '-' (it names the run directory), "
                          f"got {_show(cfg['name'])}", "name")
    channels = DATASETS[cfg["data"]["dataset"]][1]
    for key in ("train_transforms", "test_transforms"):
        path = f"data.{key}"
        _check_transform_order(cfg["data"][key], path)
        for i, t in enumerate(cfg["data"][key]):
            if t["name"] == "normalize":
                for stat in ("mean", "std"):
                    n = len(t[stat])
                    if n not in (1, channels):
                        p = f"{path}[{i}].{stat}"
                        raise ConfigError(f"{p}: expected 1 or {channels} values for {cfg['data']['dataset']} "
                                          f"({channels} channel{'s' if channels > 1 else ''}), got {_show(t[stat])}", p)
    if cfg["parallel"]["backend"] == "mpi" and cfg["parallel"]["workers"] > 1:
        raise ConfigError("parallel.workers: expected 1 with backend: mpi (one process per MPI rank), got "
                          f"{cfg['parallel']['workers']}", "parallel.workers")
    ft = cfg["finetune"]
    if ft is not None:
        ft["freeze"] = _check_freeze(ft["freeze"], "finetune.freeze")
        if ft["freeze"] == "all_but_head" and ft["head"] is None:
            raise ConfigError("finetune.freeze: all_but_head needs finetune.head (the layer to keep training)",
                              "finetune.freeze")
    sched = cfg["scheduler"]
    if sched is not None and sched["name"] == "cosine" and sched["T_max"] is None:
        sched["T_max"] = cfg["epochs"]
    return cfg


# ---------------------------------------------------------------------------------------- overrides

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _split_path(text):
    parts, pos = [], 0
    text = text.strip()
    while pos < len(text):
        if text[pos] == ".":
            pos += 1
            continue
        m = _PATH_PART.match(text, pos)
        if not m:
            raise ValueError(text)
        if m.group(2) is not None:
            parts.append(int(m.group(2)))
        else:
            parts.append(int(m.group(1)) if m.group(1).isdigit() else m.group(1).strip())
        pos = m.end()
    if not parts or any(p == "" for p in parts):
        raise ValueError(text)
    return parts


def parse_override(text):
    """``"optimizer.lr=0.01"`` -> ``(["optimizer", "lr"], 0.01)`` (the value parsed as YAML)."""
    if "=" not in text:
        raise ConfigError(f"--set {text}: expected key.path=value (e.g. --set optimizer.lr=0.01)")
    key, _, value = text.partition("=")
    try:
        parts = _split_path(key)
    except ValueError:
        raise ConfigError(f"--set {text}: {key.strip()!r} is not a key path (e.g. optimizer.lr, "
                          f"data.train_transforms[1].p)") from None
    try:
        parsed = parse_yaml_value(value)
    except yaml.YAMLError as e:
        raise ConfigError(f"--set {text}: the value is not valid YAML ({_yaml_error_text(e)})") from None
    return parts, parsed


def _path_text(parts):
    out = ""
    for p in parts:
        out = _join(out, p)
    return out


def _spec_at(parts, raw):
    """Check that ``parts`` names a key of the schema (raises the unknown-key error otherwise)."""
    spec, node = SCHEMA, raw
    for depth, part in enumerate(parts):
        path = _path_text(parts[:depth])
        if isinstance(spec, ListOf):
            if not isinstance(part, int):
                raise ConfigError(f"{path}: is a list; index it with a number, e.g. {path}[0]", path)
            spec = spec.item
            node = node[part] if isinstance(node, list) and part < len(node) else None
            continue
        if isinstance(part, int):
            raise ConfigError(f"{_path_text(parts[:depth + 1])}: {path or 'config'} is not a list", path)
        if isinstance(spec, Section):
            if part not in spec.fields:
                raise _unknown_key(path, part, spec.fields)
            spec = spec.fields[part]
        elif isinstance(spec, Choice):
            name = node.get("name") if isinstance(node, dict) else None
            variants = [spec.variants[name]] if name in spec.variants else list(spec.variants.values())
            if part != "name" and not any(part in v for v in variants):
                fields = dict(variants[0]) if len(variants) == 1 else {k: None for v in variants for k in v}
                raise _unknown_key(path, part, {"name": None, **fields},
                                   f"{spec.kind} {name!r}" if name in spec.variants else None)
            spec = Spec()
        elif isinstance(spec, FreeMap):
            spec = Spec()
        else:
            raise ConfigError(f"{path} holds a single value, it has no key {part!r}", path)
        node = node.get(part) if isinstance(node, dict) else None
    return spec


def apply_overrides(raw, overrides):
    """Apply ``--set`` strings to the raw config mapping (in place); returns ``{path: text}`` of
    the keys set, for error messages."""
    origins = {}
    for text in overrides:
        parts, value = parse_override(text)
        try:
            _spec_at(parts, raw)
        except ConfigError as e:
            raise ConfigError(f"--set {text}: {e}", e.key) from None
        node = raw
        for depth, part in enumerate(parts[:-1]):
            nxt = parts[depth + 1]
            if isinstance(node, list):
                if part >= len(node):
                    p = _path_text(parts[:depth + 1])
                    raise ConfigError(f"--set {text}: {p} does not exist (the list has {len(node)} entries)", p)
                if not isinstance(node[part], (dict, list)):
                    node[part] = [] if isinstance(nxt, int) else {}
                node = node[part]
            else:
                if not isinstance(node.get(part), (dict, list)):
                    node[part] = [] if isinstance(nxt, int) else {}
                node = node[part]
        last = parts[-1]
        if isinstance(node, list):
            if last > len(node):
                p = _path_text(parts)
                raise ConfigError(f"--set {text}: {p} does not exist (the list has {len(node)} entries)", p)
            if last == len(node):
                node.append(value)
            else:
                node[last] = value
        else:
            node[last] = value
        origins[_path_text(parts)] = text
    return origins


def load_config(path=None, overrides=(), raw=None, default_name=None):
    """Read the YAML config ``path`` (or take the mapping ``raw``), apply the ``--set``
    overrides and validate; returns the resolved config."""
    if raw is None:
        raw = load_yaml(path)
        if default_name is None:
            default_name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    raw = copy.deepcopy(raw)
    origins = apply_overrides(raw, overrides)
    try:
        return validate(raw, default_name)
    except ConfigError as e:
        source = next((t for p, t in origins.items()
                       if e.key and (e.key == p or e.key.startswith(p + ".") or e.key.startswith(p + "[")
                                     or p.startswith(e.key + ".") or p.startswith(e.key + "["))), None)
        if source is not None:
            raise ConfigError(f"{e} (from --set {source})", e.key) from None
        raise ConfigError(f"{path}: {e}" if path is not None else str(e), e.key) from None


def dump_config(cfg):
    """The resolved config as YAML text (keys in schema order)."""
    return yaml.safe_dump(cfg, sort_keys=False, default_flow_style=None, width=100)


# ---------------------------------------------------------------------------------------- reference

def _default_text(spec):
    if spec.required:
        return "required"
    if isinstance(spec, (Section, Choice)) and spec.default in ({}, None) and not spec.nullable:
        return ""
    d = spec.default
    return "`" + (yaml.safe_dump(d, default_flow_style=True).strip().replace("\n...", "") if d is not None
                  else "null") + "`"


def _args_text(fields):
    args = ", ".join(f"`{k}`" + ("" if f.required else f" [{_default_text(f).strip('`')}]") for k, f in fields.items())
    return "arguments: " + (args or "none")


def reference():
    """The config reference as Markdown table rows ``| key | type | default | meaning |``."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    seen_lists = set()

    def walk(spec, prefix):
        for key, sub in spec.fields.items():
            path = _join(prefix, key)
            if isinstance(sub, Section):
                rows.append(f"| `{path}` | mapping{' or null' if sub.nullable else ''} | {_default_text(sub)} | "
                            f"{sub.help} |")
                walk(sub, path)
            elif isinstance(sub, Choice):
                rows.append(f"| `{path}` | mapping{' or null' if sub.nullable else ''} | {_default_text(sub)} | "
                            f"{sub.help} |")
                for name, fields in sub.variants.items():
                    rows.append(f"| `{path}.name: {name}` | | | {_args_text(fields)} |")
            elif isinstance(sub, ListOf) and isinstance(sub.item, Choice):
                rows.append(f"| `{path}` | list of {sub.item.kind}s | {_default_text(sub)} | {sub.help} |")
                if path not in seen_lists:
                    seen_lists.add(path)
                    if key == "train_transforms":
                        for name, fields in sub.item.variants.items():
                            rows.append(f"| `data.*_transforms[i].name: {name}` | | | {_args_text(fields)} |")
            else:
                rows.append(f"| `{path}` | {sub.type_name}{' or null' if sub.nullable else ''} | "
                            f"{_default_text(sub)} | {sub.help} |")

    walk(SCHEMA, "")
    return "\n".join(rows)
