"""The training config: its sections as dataclasses, YAML loading, validation and ``--set``
overrides.

A config is a YAML mapping. ``load_config(path, overrides)`` reads it (refusing alias bombs),
applies the ``key.path=value`` overrides, checks every key against the dataclasses below and
returns a ``TrainConfig``: typed sections with every default filled in (``cfg.train`` does not
exist; ``cfg.epochs``, ``cfg.parallel.backend``, ``cfg.optimizer.args["lr"]`` do). The sections
that name a registered class (optimizer, scheduler, loss, transforms) are ``Component``s whose
keys, defaults and types come from that class's signature (``registries.py``,
``schema.fields_of``). Every problem raises ``ConfigError`` with a one-line message that names
the key (``optimizer.lr``, ``data.train_transforms[1].mean``), what was expected and what was
found; an unknown key comes with the closest valid key as a suggestion. ``to_dict`` (and
``dump_config``) give the resolved config back as the YAML mapping a run folder records.

Examples:
    >>> with open("lenet.yaml", "w") as f:
    ...     _ = f.write('''
    ... model: {name: lenet}
    ... data: {dataset: cifar10, batch_size: 64}
    ... optimizer: {name: sgd, momentum: 0.9}
    ... epochs: 2
    ... ''')
    >>> cfg = load_config("lenet.yaml", ["optimizer.lr=0.01"])
    >>> cfg.optimizer
    Component(name='sgd', args={'lr': 0.01, 'momentum': 0.9, 'dampening': 0.0, 'weight_decay': 0.0, 'nesterov': False})
    >>> cfg.to_dict()["optimizer"]
    {'name': 'sgd', 'lr': 0.01, 'momentum': 0.9, 'dampening': 0.0, 'weight_decay': 0.0, 'nesterov': False}
"""

import copy
import os
import re
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import yaml

from .registries import LOSSES, OPTIMIZERS, SCHEDULERS, TRANSFORMS
from .schema import (
    REQUIRED,
    ROOT,
    Component,
    ConfigError,
    Field,
    bad,
    check_mapping,
    fields_of,
    join,
    kind_name,
    kind_of,
    section_fields,
    setting,
    show,
    to_raw,
    type_name,
)

__all__ = [
    "ConfigError",
    "Component",
    "TrainConfig",
    "ModelConfig",
    "DataConfig",
    "ParallelConfig",
    "LoggingConfig",
    "HeadConfig",
    "FinetuneConfig",
    "load_config",
    "load_yaml",
    "parse_override",
    "apply_overrides",
    "validate",
    "dump_config",
    "reference",
    "DATASETS",
]

DatasetName = Literal["cifar10", "fashion_mnist", "mnist"]

#: dataset name -> (nnlite.data.datasets class name, image channels)
DATASETS: dict[DatasetName, tuple[str, int]] = {
    "cifar10": ("CIFAR10", 3),
    "fashion_mnist": ("FashionMNIST", 1),
    "mnist": ("MNIST", 1),
}

SECONDS_PER_YEAR = 365 * 24 * 3600  # the longest collective timeout a config may ask for

# ---------------------------------------------------------------------------------------- sections


def _to_tensor_only() -> list[Component]:
    return [Component("to_tensor")]


@dataclass(kw_only=True)
class ModelConfig:
    """``model``: which model, built with which arguments."""

    name: str = setting(
        help="registry name (lenet, tutorial_net, resnet18, mlp) or 'pkg.module:Class'"
    )
    args: dict[str, Any] = setting(
        factory=dict, help="keyword arguments of the model's constructor"
    )


@dataclass(kw_only=True)
class DataConfig:
    """``data``: the dataset, its transforms and the loaders."""

    dataset: DatasetName = setting(help="the dataset")
    root: str = setting("./data", help="folder holding (or receiving) the dataset files")
    download: bool = setting(True, help="download the files when they are missing")
    batch_size: int = setting(min=1, help="training mini-batch size (per process with MPI)")
    test_batch_size: int = setting(1000, min=1, help="evaluation batch size")
    num_workers: int = setting(
        0, min=0, help="data loader worker processes (0: load in the main process)"
    )
    train_transforms: list[Component] = setting(
        factory=_to_tensor_only, registry=TRANSFORMS, help="transforms of training images, in order"
    )
    test_transforms: list[Component] = setting(
        factory=_to_tensor_only, registry=TRANSFORMS, help="transforms of test images, in order"
    )


@dataclass(kw_only=True)
class ParallelConfig:
    """``parallel``: DataParallel worker processes, or MPI ranks."""

    workers: int = setting(1, min=1, help="DataParallel worker processes (1: no DataParallel)")
    backend: Literal["mpi"] | None = setting(
        None, help="mpi: DistributedDataParallel across mpirun processes"
    )
    timeout_seconds: float = setting(
        1800.0,
        min=0,
        min_open=True,
        max=SECONDS_PER_YEAR,
        help="with backend mpi: how long a rank waits for the others in a collective before the "
        "job is aborted (PyTorch's default: 30 minutes)",
    )


@dataclass(kw_only=True)
class LoggingConfig:
    """``logging``: extra outputs of a run."""

    tensorboard: bool = setting(
        False,
        help="also write TensorBoard event files to RUN_DIR/tensorboard (needs tensorboardX)",
    )


@dataclass(kw_only=True)
class HeadConfig:
    """``finetune.head``: the layer replaced by a fresh one."""

    module: str = setting(help="name of the layer to replace (e.g. fc3)")
    num_classes: int = setting(
        min=1, help="outputs of the new layer (must equal the dataset's classes)"
    )


def _check_freeze(value: Any, path: str) -> list[str] | str:
    if value == "all_but_head":
        return "all_but_head"
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise bad(path, "a list of module names (e.g. [conv1, conv2]) or all_but_head", value)
    return list(value)


@dataclass(kw_only=True)
class FinetuneConfig:
    """``finetune``: start from a checkpoint, freeze and replace layers."""

    from_: str | None = setting(
        None,
        key="from",
        help="weights to start from: a run's .npz, a saved state_dict, a PyTorch .pth or a "
        ".safetensors file (null: the model's own, e.g. model.args.weights)",
    )
    freeze: list[str] | Literal["all_but_head"] = setting(
        factory=list,
        check=_check_freeze,
        expected="a list of module names or all_but_head",
        type_name="list of str or all_but_head",
        help="module names to freeze (requires_grad off, eval mode), or all_but_head",
    )
    head: HeadConfig | None = setting(
        None, help="the layer replaced by a fresh one (null: keep every layer)"
    )


@dataclass(kw_only=True)
class TrainConfig:
    """The whole config of a run: one attribute per top-level key (``load_config``'s result).

    Args:
        name, seed, model, data, loss, optimizer, scheduler, epochs, ...: one per top-level key of
            the YAML file, each a section dataclass or a value (the trainer guide's config
            reference lists every field with its type and default).

    Examples:
        >>> cfg = validate({"model": {"name": "lenet"}, "data": {"dataset": "mnist", "batch_size": 8}, "epochs": 1,
        ...                 "optimizer": "adam", "epochs": 1}, default_name="demo")
        >>> cfg.name, cfg.data.batch_size, cfg.optimizer.name, cfg.parallel.workers
        ('demo', 8, 'adam', 1)
    """

    name: str | None = setting(None, help="run name (null: the config file's name)")
    seed: int = setting(0, min=0, help="seeds nnlite, numpy, python's random and the data loaders")
    model: ModelConfig = setting(help="the model")
    data: DataConfig = setting(help="dataset, transforms and loaders")
    loss: Component = setting(
        factory=lambda: Component("cross_entropy"),
        registry=LOSSES,
        help="the loss and its arguments",
    )
    optimizer: Component = setting(registry=OPTIMIZERS, help="the optimizer and its arguments")
    scheduler: Component | None = setting(
        None,
        registry=SCHEDULERS,
        help="learning-rate schedule, stepped once per epoch (onecycle: per batch; plateau: on "
        "the test loss)",
    )
    epochs: int = setting(min=1, help="training epochs")
    log_every: int = setting(2000, min=1, help="print the running loss every N mini-batches")
    threads: int | None = setting(
        None,
        min=1,
        help="threads of nnlite's kernels and BLAS, as nl.set_num_threads (null: all CPUs)",
    )
    parallel: ParallelConfig = setting(factory=ParallelConfig, help="parallel training")
    output_dir: str = setting("runs", help="where run directories are created")
    logging: LoggingConfig = setting(factory=LoggingConfig, help="extra outputs of a run")
    finetune: FinetuneConfig | None = setting(
        None, help="start from a checkpoint, freeze and replace layers"
    )

    @property
    def run_name(self) -> str:
        """The run's name.

        Returns:
            str: ``name``, which ``validate`` always fills in (``"run"`` before that).

        Examples:
            >>> raw = {"model": {"name": "lenet"}, "data": {"dataset": "mnist", "batch_size": 8},
            ...        "optimizer": "adam", "epochs": 1}
            >>> validate(raw, default_name="demo").run_name
            'demo'
        """
        return self.name or "run"

    def to_dict(self) -> dict[str, Any]:
        """The config as the YAML mapping a run folder records.

        Returns:
            dict: the mapping, keys in declaration order (``validate`` of it gives this config back).

        Examples:
            >>> raw = {"model": {"name": "lenet"}, "data": {"dataset": "mnist", "batch_size": 8},
            ...        "optimizer": "adam", "epochs": 1}
            >>> cfg = validate(raw, default_name="demo")
            >>> cfg.to_dict()["optimizer"]["lr"], cfg.to_dict()["epochs"]
            (0.001, 1)
        """
        return typing.cast(dict[str, Any], to_raw(self))


ROOT.append(TrainConfig)

# ---------------------------------------------------------------------------------------- YAML


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, plus: ``1e-3`` is a float (YAML 1.1 wants ``1.0e-3``) and a key
    given twice in one mapping is an error rather than silently the last one."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
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


def _yaml_error_text(e: yaml.YAMLError) -> str:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    context = getattr(e, "context", None)
    text = f"{context}, {problem}" if context and problem and context not in problem else problem
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {text}"
    return text


def load_yaml(path: str | os.PathLike[str]) -> dict[str, Any]:
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
            f"got {kind_name(data)}"
        )
    return data


def parse_yaml_value(text: str) -> Any:
    """A ``--set`` value: parsed as YAML (``0.01`` a float, ``[1, 2]`` a list, ``null`` None)."""
    return _safe_load(text)


# A config is a few dozen keys; aliases (``*name``) may repeat a part, but a document whose
# aliases expand past this many values (each scalar weighing one per started 100 characters) is
# refused before anything walks it: a 1 KB "billion laughs" file would otherwise expand to 10^9.
MAX_EXPANDED_VALUES = 100_000


def _safe_load(text: str) -> Any:
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


def _expanded_size(root: yaml.Node, limit: int) -> int:
    """How many values ``root`` stands for once every alias is expanded (counting stops past
    ``limit``). Each node is sized once (post-order, no recursion), so this takes time linear in
    the document even when the expansion is astronomically large. A recursive alias raises
    ``ConfigError``."""
    sizes: dict[int, int] = {}
    started: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
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


# ---------------------------------------------------------------------------------------- validation

_ORDER_TRANSFORM_HINT = "to_tensor must come before normalize"


def _check_transforms(transforms: list[Component], path: str, dataset: DatasetName) -> None:
    """One ``to_tensor``, before any ``normalize``; ``normalize`` with 1 or one value per channel."""
    kinds = [t.name for t in transforms]
    if "to_tensor" not in kinds:
        raise ConfigError(
            f"{path}: the list needs a {{name: to_tensor}} entry (images must become tensors), "
            f"got {show(kinds)}",
            path,
        )
    first = kinds.index("to_tensor")
    if kinds.count("to_tensor") > 1:
        i = kinds.index("to_tensor", first + 1)
        raise ConfigError(f"{join(path, i)}: to_tensor is given twice", join(path, i))
    channels = DATASETS[dataset][1]
    for i, t in enumerate(transforms):
        if t.name == "normalize" and i < first:
            raise ConfigError(
                f"{join(path, i)}: normalize works on tensors; {_ORDER_TRANSFORM_HINT}",
                join(path, i),
            )
        for stat in ("mean", "std") if t.name == "normalize" else ():
            if len(t.args[stat]) not in (1, channels):
                p = f"{path}[{i}].{stat}"
                raise ConfigError(
                    f"{p}: expected 1 or {channels} values for {dataset} ({channels} "
                    f"channel{'s' if channels > 1 else ''}), got {show(t.args[stat])}",
                    p,
                )


def validate(raw: Any, default_name: str | None = None) -> TrainConfig:
    """Check ``raw`` (a mapping, e.g. parsed YAML) against the config's dataclasses and return
    the resolved config with every default filled in. Raises ``ConfigError`` naming the first
    bad key.

    Args:
        raw (dict): the config.
        default_name (str, optional): the run name when the config gives none.

    Returns:
        TrainConfig: the resolved config.

    Examples:
        >>> from nnlite.train import validate
        >>> validate({"model": {"name": "lenet"}})
        Traceback (most recent call last):
            ...
        nnlite.train.schema.ConfigError: missing required key 'data' (a mapping: dataset, transforms and loaders)
    """
    cfg = TrainConfig(**check_mapping(raw, section_fields(TrainConfig), ""))
    if cfg.name is None:
        cfg.name = re.sub(r"[^A-Za-z0-9._-]+", "_", default_name or "run").lstrip("._-") or "run"
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", cfg.name):
        raise ConfigError(
            f"name: expected letters, digits, '.', '_' or '-' (it names the run directory), "
            f"got {show(cfg.name)}",
            "name",
        )
    _check_transforms(cfg.data.train_transforms, "data.train_transforms", cfg.data.dataset)
    _check_transforms(cfg.data.test_transforms, "data.test_transforms", cfg.data.dataset)
    if cfg.parallel.backend == "mpi" and cfg.parallel.workers > 1:
        raise ConfigError(
            "parallel.workers: expected 1 with backend: mpi (one process per MPI rank), got "
            f"{cfg.parallel.workers}",
            "parallel.workers",
        )
    ft = cfg.finetune
    if ft is not None and ft.freeze == "all_but_head" and ft.head is None:
        raise ConfigError(
            "finetune.freeze: all_but_head needs finetune.head (the layer to keep training)",
            "finetune.freeze",
        )
    _fill_epoch_defaults(cfg.scheduler, cfg.epochs)
    return cfg


def _fill_epoch_defaults(sched: Component | None, epochs: int) -> None:
    """``cosine``'s ``T_max: null`` means the run's epochs (here and in nested schedulers)."""
    if sched is None:
        return
    if sched.name == "cosine" and sched.args["T_max"] is None:
        sched.args["T_max"] = epochs
    for inner in sched.args.get("schedulers", ()):
        _fill_epoch_defaults(inner, epochs)


# ---------------------------------------------------------------------------------------- overrides

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _split_path(text: str) -> list[str | int]:
    parts: list[str | int] = []
    pos = 0
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


def _cut(text: str, limit: int = 200) -> str:
    """A ``--set`` argument as an error message quotes it: at most ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_override(text: str) -> tuple[list[str | int], Any]:
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
            f"--set {_cut(text)}: {show(key.strip())} is not a key path (e.g. optimizer.lr, "
            f"data.train_transforms[1].p)"
        ) from None
    try:
        parsed = parse_yaml_value(value)
    except yaml.YAMLError as e:
        raise ConfigError(
            f"--set {_cut(text)}: the value is not valid YAML ({_yaml_error_text(e)})"
        ) from None
    return parts, parsed


def _path_text(parts: Sequence[str | int]) -> str:
    out = ""
    for p in parts:
        out = join(out, p)
    return out


def apply_overrides(raw: dict[str, Any], overrides: Iterable[str]) -> dict[str, str]:
    """Apply ``--set`` strings to the raw config mapping (in place); returns ``{path: text}`` of
    the keys set, for error messages. Keys are checked by ``validate`` afterwards, which names
    the ``--set`` a bad key came from."""
    origins = {}
    for text in overrides:
        parts, value = parse_override(text)
        node: Any = raw
        for depth, part in enumerate(parts):
            path, here = _path_text(parts[:depth]), _path_text(parts[: depth + 1])
            if isinstance(node, list) != isinstance(part, int):
                problem = (
                    f"{path}: is a list; index it with a number, e.g. {path}[0]"
                    if isinstance(node, list)
                    else f"{here}: {path or 'config'} is not a list"
                )
                raise ConfigError(f"--set {_cut(text)}: {problem}", path)
            if isinstance(node, list) and isinstance(part, int):
                if part >= len(node) + (depth == len(parts) - 1):
                    raise ConfigError(
                        f"--set {_cut(text)}: {here} does not exist (the list has {len(node)} "
                        "entries)",
                        here,
                    )
                if part == len(node):
                    node.append(None)
            if depth == len(parts) - 1:
                node[part] = value
                break
            child = node.get(part) if isinstance(node, dict) else node[part]
            if child is not None and not isinstance(child, (dict, list)):
                raise ConfigError(
                    f"--set {_cut(text)}: {here} holds a single value, it has no key "
                    f"{parts[depth + 1]!r}",
                    here,
                )
            if child is None:
                node[part] = child = [] if isinstance(parts[depth + 1], int) else {}
            node = child
        origins[_path_text(parts)] = text
    return origins


def load_config(
    path: str | os.PathLike[str] | None = None,
    overrides: Iterable[str] = (),
    raw: Mapping[str, Any] | None = None,
    default_name: str | None = None,
) -> TrainConfig:
    """Read the YAML config ``path`` (or take the mapping ``raw``), apply the ``--set``
    overrides and validate; returns the resolved config.

    Args:
        path (str, optional): the YAML file.
        overrides (sequence of str): ``key.path=value`` overrides, as ``--set`` takes them.
        raw (dict, optional): the config as a mapping, instead of ``path``.
        default_name (str, optional): the run name when the config gives none (default: the file's base name).

    Returns:
        TrainConfig: the resolved config.

    Examples:
        >>> from nnlite.train import load_config
        >>> cfg = load_config(raw={"model": {"name": "lenet"}, "data": {"dataset": "cifar10", "batch_size": 64},
        ...                        "optimizer": {"name": "adam"}, "epochs": 2}, overrides=["epochs=3"])
        >>> cfg.epochs, cfg.optimizer.args["lr"]
        (3, 0.001)
    """
    if raw is None:
        if path is None:
            raise ConfigError("a config file or mapping is needed")
        raw = load_yaml(path)
        if default_name is None:
            default_name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    data = copy.deepcopy(raw)
    origins = apply_overrides(data, overrides) if isinstance(data, dict) else {}
    try:
        return validate(data, default_name)
    except ConfigError as e:
        key = e.key
        source = next(
            (
                t
                for p, t in origins.items()
                if key
                and any(a == b or a.startswith(b + ".") or a.startswith(b + "[")
                        for a, b in ((key, p), (p, key)))
            ),
            None,
        )  # fmt: skip
        if source is not None:
            raise ConfigError(f"{e} (from --set {_cut(source)})", key) from None
        raise ConfigError(f"{os.fspath(path)}: {e}" if path is not None else str(e), key) from None


def dump_config(cfg: TrainConfig) -> str:
    """The resolved config as YAML text (keys in declaration order)."""
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False, default_flow_style=None, width=100)


# ---------------------------------------------------------------------------------------- reference


def _default_text(default: Any) -> str:
    if default is REQUIRED:
        return "required"
    text = yaml.safe_dump(to_raw(default), default_flow_style=True).strip()
    return "`" + text.removesuffix("\n...").removesuffix("...").strip() + "`"


def _args_text(fields: Mapping[str, Field]) -> str:
    args = ", ".join(
        f"`{k}`" + ("" if f.default is REQUIRED else f" [{_default_text(f.default).strip('`')}]")
        for k, f in fields.items()
    )
    return "arguments: " + (args or "none")


def reference(cls: type = TrainConfig, prefix: str = "") -> str:
    """The config reference in Markdown: for each section dataclass a heading and a table
    ``| key | type | default | meaning |`` of its fields, derived from their annotations and
    rules (a registry section adds one row per registered name, with its arguments)."""
    title = f"`{cls.__name__}`" + (f": `{prefix}`" if prefix else "")
    summary = (cls.__doc__ or "").strip().splitlines()[0]
    rows = [
        f"### {title}",
        "",
        summary,
        "",
        "| key | type | default | meaning |",
        "|---|---|---|---|",
    ]
    sections = []
    for key, f in section_fields(cls).items():
        path = join(prefix, key)
        kind, inner, _ = kind_of(f.type)
        default = "" if kind == "section" and f.default is not None else _default_text(f.default)
        meaning = f.rules.get("help", "") + (f" (`{inner.__name__}`)" if kind == "section" else "")
        rows.append(f"| `{path}` | {type_name(f.type, f.rules)} | {default} | {meaning} |")
        if kind == "section":
            sections.append(reference(inner, path))
        elif kind in ("component", "components") and path != "data.test_transforms":
            registry = f.rules["registry"]
            label = "data.*_transforms[i]" if kind == "components" else path
            for name in registry:
                args = _args_text(fields_of(registry, name))
                rows.append(f"| `{label}.name: {name}` | | | {args} |")
    return "\n\n".join(["\n".join(rows), *sections])
