"""The training config: the schema, YAML loading, validation and ``--set`` overrides.

A config is a YAML mapping. ``load_config(path, overrides)`` reads it (refusing alias bombs),
applies the ``key.path=value`` overrides, checks every key against ``SCHEMA`` and returns the
resolved config: plain dicts and lists with every default filled in. The sections that name a
class (optimizer, scheduler, loss, transforms) take their keys and defaults from its signature
(``registries.py``, ``schema.fields_of``). Every problem raises ``ConfigError`` with a one-line
message that names the key (``optimizer.lr``, ``data.train_transforms[1].mean``), what was
expected and what was found; an unknown key comes with the closest valid key as a suggestion.

Examples:
    >>> with open("lenet.yaml", "w") as f:
    ...     _ = f.write('''
    ... model: {name: lenet}
    ... data: {dataset: cifar10, batch_size: 64}
    ... optimizer: {name: sgd, momentum: 0.9}
    ... epochs: 2
    ... ''')
    >>> cfg = load_config("lenet.yaml", ["optimizer.lr=0.01"])
    >>> cfg["optimizer"]
    {'name': 'sgd', 'lr': 0.01, 'momentum': 0.9, 'dampening': 0.0, 'weight_decay': 0.0, 'nesterov': False}
"""

import copy
import os
import re

import yaml

from .registries import LOSSES, OPTIMIZERS, SCHEDULERS, TRANSFORMS
from .schema import (
    _REQUIRED,
    Bool,
    Choice,
    ConfigError,
    Float,
    FreeMap,
    Int,
    ListOf,
    Section,
    Spec,
    Str,
    _bad,
    _Freeze,
    _join,
    _kind,
    _show,
    _unknown_key,
)

__all__ = [
    "ConfigError",
    "load_config",
    "load_yaml",
    "parse_override",
    "apply_overrides",
    "validate",
    "dump_config",
    "reference",
    "SCHEMA",
    "DATASETS",
]

#: dataset name -> (nnlite.data.datasets class name, image channels)
DATASETS = {"cifar10": ("CIFAR10", 3), "fashion_mnist": ("FashionMNIST", 1), "mnist": ("MNIST", 1)}

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
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key {key!r} (first given on line {seen[key] + 1})",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


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
        data = _safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"invalid YAML in {path}: {_yaml_error_text(e)}") from None
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
    if data is None:
        raise ConfigError(f"config file {path} is empty")
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path} must hold a mapping of keys (name: ..., model: ..., ...), "
            f"got {_kind(data)}"
        )
    return data


def parse_yaml_value(text):
    """A ``--set`` value: parsed as YAML (``0.01`` a float, ``[1, 2]`` a list, ``null`` None)."""
    return _safe_load(text)


# A config is a few dozen keys; aliases (``*name``) may repeat a part, but a document whose
# aliases expand past this many values (each scalar weighing one per started 100 characters) is
# refused before anything walks it: a 1 KB "billion laughs" file would otherwise expand to 10^9.
MAX_EXPANDED_VALUES = 100_000

SECONDS_PER_YEAR = 365 * 24 * 3600  # the longest collective timeout a config may ask for


def _safe_load(text):
    """``yaml.load`` with ``_Loader``, refusing documents nested too deep or whose aliases
    expand beyond ``MAX_EXPANDED_VALUES`` (``ConfigError``)."""
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise ConfigError("the YAML is nested too deeply") from None
        if node is None:
            return None
        if _expanded_size(node, MAX_EXPANDED_VALUES) > MAX_EXPANDED_VALUES:
            raise ConfigError(
                f"the YAML's aliases expand to more than {MAX_EXPANDED_VALUES:,} values (an alias "
                "bomb?); write the values out or use fewer aliases"
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded_size(root, limit):
    """How many values ``root`` stands for once every alias is expanded (counting stops past
    ``limit``). Each node is sized once (post-order, no recursion), so this takes time linear in
    the document even when the expansion is astronomically large. A recursive alias raises
    ``ConfigError``."""
    sizes, started = {}, set()
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if id(node) in started and not children_done:  # an alias inside its own anchor's node
            raise ConfigError("the YAML holds a value that contains itself (a recursive alias)")
        if isinstance(node, yaml.ScalarNode):
            sizes[id(node)] = 1 + len(node.value) // 100
            continue
        children = (
            [c for pair in node.value for c in pair]
            if isinstance(node, yaml.MappingNode)
            else node.value
        )
        if children_done:
            sizes[id(node)] = min(limit + 1, 1 + sum(sizes.get(id(c), 1) for c in children))
        else:
            started.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in children)
    return sizes[id(root)]


# The schema. Each key: type, default (none: required) and meaning, as in the reference table. The
# sections that name a class take their keys from its signature (registries.py).

_DEFAULT_TRANSFORMS = [{"name": "to_tensor"}]

SCHEMA = Section(
    {
        "name": Str(None, nullable=True, help="run name (null: the config file's name)"),
        "seed": Int(0, min=0, help="seeds nnlite, numpy, python's random and the data loaders"),
        "model": Section(
            help="the model",
            fields={
                "name": Str(
                    help="registry name (lenet, tutorial_net, resnet18, mlp) or 'pkg.module:Class'"
                ),
                "args": FreeMap({}, help="keyword arguments of the model's constructor"),
            },
            default=_REQUIRED,
        ),
        "data": Section(
            help="dataset, transforms and loaders",
            fields={
                "dataset": Str(choices=list(DATASETS), help="the dataset"),
                "root": Str("./data", help="folder holding (or receiving) the dataset files"),
                "download": Bool(True, help="download the files when they are missing"),
                "batch_size": Int(min=1, help="training mini-batch size (per process with MPI)"),
                "test_batch_size": Int(1000, min=1, help="evaluation batch size"),
                "num_workers": Int(
                    0, min=0, help="data loader worker processes (0: load in the main process)"
                ),
                "train_transforms": ListOf(
                    Choice(TRANSFORMS, kind="transform"),
                    _DEFAULT_TRANSFORMS,
                    help="transforms of training images, in order",
                ),
                "test_transforms": ListOf(
                    Choice(TRANSFORMS, kind="transform"),
                    _DEFAULT_TRANSFORMS,
                    help="transforms of test images, in order",
                ),
            },
            default=_REQUIRED,
        ),
        "loss": Choice(
            LOSSES, {"name": "cross_entropy"}, kind="loss", help="the loss and its arguments"
        ),
        "optimizer": Choice(OPTIMIZERS, kind="optimizer", help="the optimizer and its arguments"),
        "scheduler": Choice(
            SCHEDULERS,
            None,
            nullable=True,
            kind="scheduler",
            help="learning-rate schedule, stepped once per epoch (onecycle: per batch; plateau: on the test loss)",
        ),
        "epochs": Int(min=1, help="training epochs"),
        "log_every": Int(2000, min=1, help="print the running loss every N mini-batches"),
        "threads": Int(
            None,
            nullable=True,
            min=1,
            help="threads of nnlite's kernels and BLAS, as nl.set_num_threads (null: all CPUs)",
        ),
        "parallel": Section(
            help="parallel training",
            fields={
                "workers": Int(1, min=1, help="DataParallel worker processes (1: no DataParallel)"),
                "backend": Str(
                    None,
                    nullable=True,
                    choices=["mpi"],
                    help="mpi: DistributedDataParallel across mpirun processes",
                ),
                "timeout_seconds": Float(
                    1800.0,
                    min=0,
                    min_open=True,
                    max=SECONDS_PER_YEAR,
                    help="with backend mpi: how long a rank waits for the others in a collective "
                    "before the job is aborted (PyTorch's default: 30 minutes)",
                ),
            },
        ),
        "output_dir": Str("runs", help="where run directories are created"),
        "logging": Section(
            help="extra outputs of a run",
            fields={
                "tensorboard": Bool(
                    False,
                    help="also write TensorBoard event files to RUN_DIR/tensorboard (needs tensorboardX)",
                ),
            },
        ),
        "finetune": Section(
            {
                "from": Str(
                    None,
                    nullable=True,
                    help="weights to start from: a run's .npz, a saved state_dict, a PyTorch "
                    ".pth or a .safetensors file (null: the model's own, e.g. "
                    "model.args.weights)",
                ),
                "freeze": _Freeze(
                    [],
                    help="module names to freeze (requires_grad off, eval mode), or all_but_head",
                ),
                "head": Section(
                    {
                        "module": Str(help="name of the layer to replace (e.g. fc3)"),
                        "num_classes": Int(
                            min=1,
                            help="outputs of the new layer (must equal the dataset's classes)",
                        ),
                    },
                    default=None,
                    nullable=True,
                    help="the layer replaced by a fresh one (null: keep every layer)",
                ),
            },
            default=None,
            nullable=True,
            help="start from a checkpoint, freeze and replace layers",
        ),
    }
)

Spec.root = SCHEMA

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
        raise ConfigError(
            f"{path}: the list needs a {{name: to_tensor}} entry (images must become tensors), "
            f"got {_show(kinds)}",
            path,
        )
    if kinds.count("to_tensor") > 1:
        i = [j for j, k in enumerate(kinds) if k == "to_tensor"][1]
        raise ConfigError(f"{_join(path, i)}: to_tensor is given twice", _join(path, i))
    first = kinds.index("to_tensor")
    for i, k in enumerate(kinds):
        if k == "normalize" and i < first:
            raise ConfigError(
                f"{_join(path, i)}: normalize works on tensors; {_ORDER_TRANSFORM_HINT}",
                _join(path, i),
            )


def validate(raw, default_name=None):
    """Check ``raw`` (a mapping, e.g. parsed YAML) against the schema and return the resolved
    config with every default filled in. Raises ``ConfigError`` naming the first bad key.

    Args:
        raw (dict): the config.
        default_name (str, optional): the run name when the config gives none.

    Returns:
        dict: the resolved config.

    Examples:
        >>> from nnlite.train import validate
        >>> validate({"model": {"name": "lenet"}})
        Traceback (most recent call last):
            ...
        nnlite.train.schema.ConfigError: missing required key 'data' (a mapping: dataset, transforms and loaders)
    """
    cfg = SCHEMA.check(raw, "")
    if cfg["name"] is None:
        cfg["name"] = re.sub(r"[^A-Za-z0-9._-]+", "_", default_name or "run").lstrip("._-") or "run"
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", cfg["name"]):
        raise ConfigError(
            f"name: expected letters, digits, '.', '_' or '-' (it names the run directory), "
            f"got {_show(cfg['name'])}",
            "name",
        )
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
                        raise ConfigError(
                            f"{p}: expected 1 or {channels} values for {cfg['data']['dataset']} "
                            f"({channels} channel{'s' if channels > 1 else ''}), got {_show(t[stat])}",
                            p,
                        )
    if cfg["parallel"]["backend"] == "mpi" and cfg["parallel"]["workers"] > 1:
        raise ConfigError(
            "parallel.workers: expected 1 with backend: mpi (one process per MPI rank), got "
            f"{cfg['parallel']['workers']}",
            "parallel.workers",
        )
    ft = cfg["finetune"]
    if ft is not None:
        ft["freeze"] = _check_freeze(ft["freeze"], "finetune.freeze")
        if ft["freeze"] == "all_but_head" and ft["head"] is None:
            raise ConfigError(
                "finetune.freeze: all_but_head needs finetune.head (the layer to keep training)",
                "finetune.freeze",
            )
    _fill_epoch_defaults(cfg["scheduler"], cfg["epochs"])
    return cfg


def _fill_epoch_defaults(sched, epochs):
    """``cosine``'s ``T_max: null`` means the run's epochs (here and in nested schedulers)."""
    if sched is None:
        return
    if sched["name"] == "cosine" and sched["T_max"] is None:
        sched["T_max"] = epochs
    for inner in sched.get("schedulers", ()):
        _fill_epoch_defaults(inner, epochs)


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


def _cut(text, limit=200):
    """A ``--set`` argument as an error message quotes it: at most ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_override(text):
    """``"optimizer.lr=0.01"`` -> ``(["optimizer", "lr"], 0.01)`` (the value parsed as YAML)."""
    if "=" not in text:
        raise ConfigError(
            f"--set {_cut(text)}: expected key.path=value (e.g. --set optimizer.lr=0.01)"
        )
    key, _, value = text.partition("=")
    try:
        parts = _split_path(key)
    except ValueError:
        raise ConfigError(
            f"--set {_cut(text)}: {_show(key.strip())} is not a key path (e.g. optimizer.lr, "
            f"data.train_transforms[1].p)"
        ) from None
    try:
        parsed = parse_yaml_value(value)
    except yaml.YAMLError as e:
        raise ConfigError(
            f"--set {_cut(text)}: the value is not valid YAML ({_yaml_error_text(e)})"
        ) from None
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
                raise ConfigError(
                    f"{path}: is a list; index it with a number, e.g. {path}[0]", path
                )
            spec = spec.item
            node = node[part] if isinstance(node, list) and part < len(node) else None
            continue
        if isinstance(part, int):
            raise ConfigError(
                f"{_path_text(parts[: depth + 1])}: {path or 'config'} is not a list", path
            )
        if isinstance(spec, Section):
            if part not in spec.fields:
                raise _unknown_key(path, part, spec.fields)
            spec = spec.fields[part]
        elif isinstance(spec, Choice):
            name = node.get("name") if isinstance(node, dict) else None
            name = name if isinstance(name, str) else None
            variants = (
                [spec.variants[name]] if name in spec.variants else list(spec.variants.values())
            )
            if part != "name" and not any(part in v for v in variants):
                fields = (
                    dict(variants[0])
                    if len(variants) == 1
                    else {k: None for v in variants for k in v}
                )
                raise _unknown_key(
                    path,
                    part,
                    {"name": None, **fields},
                    f"{spec.kind} {_show(name)}" if name in spec.variants else None,
                )
            # the key's own spec when the name is known (a nested list of schedulers, say)
            spec = variants[0][part] if len(variants) == 1 and part in variants[0] else Spec()
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
            raise ConfigError(f"--set {_cut(text)}: {e}", e.key) from None
        node = raw
        for depth, part in enumerate(parts[:-1]):
            nxt = parts[depth + 1]
            if isinstance(node, list):
                if part >= len(node):
                    p = _path_text(parts[: depth + 1])
                    raise ConfigError(
                        f"--set {_cut(text)}: {p} does not exist (the list has {len(node)} entries)",
                        p,
                    )
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
                raise ConfigError(
                    f"--set {_cut(text)}: {p} does not exist (the list has {len(node)} entries)", p
                )
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
    overrides and validate; returns the resolved config.

    Args:
        path (str, optional): the YAML file.
        overrides (sequence of str): ``key.path=value`` overrides, as ``--set`` takes them.
        raw (dict, optional): the config as a mapping, instead of ``path``.
        default_name (str, optional): the run name when the config gives none (default: the file's base name).

    Returns:
        dict: the resolved config.

    Examples:
        >>> from nnlite.train import load_config
        >>> cfg = load_config(raw={"model": {"name": "lenet"}, "data": {"dataset": "cifar10", "batch_size": 64},
        ...                        "optimizer": {"name": "adam"}, "epochs": 2}, overrides=["epochs=3"])
        >>> cfg["epochs"], cfg["optimizer"]["lr"]
        (3, 0.001)
    """
    if raw is None:
        raw = load_yaml(path)
        if default_name is None:
            default_name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    raw = copy.deepcopy(raw)
    origins = apply_overrides(raw, overrides)
    try:
        return validate(raw, default_name)
    except ConfigError as e:
        source = next(
            (
                t
                for p, t in origins.items()
                if e.key
                and (
                    e.key == p
                    or e.key.startswith(p + ".")
                    or e.key.startswith(p + "[")
                    or p.startswith(e.key + ".")
                    or p.startswith(e.key + "[")
                )
            ),
            None,
        )
        if source is not None:
            raise ConfigError(f"{e} (from --set {_cut(source)})", e.key) from None
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
    return (
        "`"
        + (
            yaml.safe_dump(d, default_flow_style=True).strip().replace("\n...", "")
            if d is not None
            else "null"
        )
        + "`"
    )


def _args_text(fields):
    args = ", ".join(
        f"`{k}`" + ("" if f.required else f" [{_default_text(f).strip('`')}]")
        for k, f in fields.items()
    )
    return "arguments: " + (args or "none")


def reference():
    """The config reference as Markdown table rows ``| key | type | default | meaning |``."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    seen_lists = set()

    def walk(spec, prefix):
        for key, sub in spec.fields.items():
            path = _join(prefix, key)
            if isinstance(sub, Section):
                rows.append(
                    f"| `{path}` | mapping{' or null' if sub.nullable else ''} | {_default_text(sub)} | "
                    f"{sub.help} |"
                )
                walk(sub, path)
            elif isinstance(sub, Choice):
                rows.append(
                    f"| `{path}` | mapping{' or null' if sub.nullable else ''} | {_default_text(sub)} | "
                    f"{sub.help} |"
                )
                for name, fields in sub.variants.items():
                    rows.append(f"| `{path}.name: {name}` | | | {_args_text(fields)} |")
            elif isinstance(sub, ListOf) and isinstance(sub.item, Choice):
                rows.append(
                    f"| `{path}` | list of {sub.item.kind}s | {_default_text(sub)} | {sub.help} |"
                )
                if path not in seen_lists:
                    seen_lists.add(path)
                    if key == "train_transforms":
                        for name, fields in sub.item.variants.items():
                            rows.append(
                                f"| `data.*_transforms[i].name: {name}` | | | {_args_text(fields)} |"
                            )
            else:
                rows.append(
                    f"| `{path}` | {sub.type_name}{' or null' if sub.nullable else ''} | "
                    f"{_default_text(sub)} | {sub.help} |"
                )

    walk(SCHEMA, "")
    return "\n".join(rows)
