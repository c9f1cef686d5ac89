"""``nl.summary(model, input_size=...)``: a layer-by-layer table of a model, as torchinfo prints.

The model runs in eval mode (batch-norm statistics untouched) and its gradients are restored
afterwards. One forward pass (through forward hooks) gives each layer's output shape; parameters are counted
per layer (trainable and frozen apart, so finetuning set-ups are easy to check); multiply-adds are
those of the matrix products and convolutions; a few timed forward/backward passes on this CPU
give each layer's time. The first pass only warms up (numba kernels compile, caches fill).

The module is named ``model_summary`` so that ``nl.summary`` stays the function.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ...autograd.creation import tensor
from ...autograd.dtypes import float32
from ...autograd.grad_mode import enable_grad, no_grad
from ...autograd.tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypedDict

    from ...autograd.dtypes import dtype
    from ..modules.module import Module, RemovableHandle

    class _Call(TypedDict):
        """One module call the hooks saw."""

        module: Module
        input: Tensor | None
        output: Tensor | None
        forward_ms: float | None


__all__ = ["LayerRow", "ModelSummary", "summary"]


class LayerRow:
    """One call of one module during the summary's forward pass.

    Args:
        name (str): the module's dotted name.
        type_name (str): its class name.
        depth (int): its nesting depth (0 for the model).

    Examples:
        >>> stats = nl.summary(nn.Sequential(nn.Linear(4, 2), nn.ReLU()), (1, 4))
        >>> row = stats.layers[1]
        >>> row.name, row.type, row.params, row.trainable
        ('0', 'Linear', 10, 'True')
    """

    __slots__ = (
        "backward_ms",
        "depth",
        "forward_ms",
        "frozen_params",
        "mult_adds",
        "name",
        "output_bytes",
        "output_shape",
        "shared",
        "trainable_params",
        "type",
    )

    def __init__(self, name: str, type_name: str, depth: int) -> None:
        self.name, self.type, self.depth = name, type_name, depth
        self.output_shape: tuple[int, ...] | None = None
        self.output_bytes = 0
        self.trainable_params = self.frozen_params = 0
        self.mult_adds = 0
        self.forward_ms: float | None = None
        self.backward_ms: float | None = None
        self.shared = False  # a module called again: its parameters are counted at its first call

    @property
    def params(self) -> int:
        """The parameters counted at this row, trainable and frozen.

        Examples:
            >>> nl.summary(nn.Linear(4, 2), (1, 4)).layers[0].params
            10
        """
        return self.trainable_params + self.frozen_params

    @property
    def trainable(self) -> str:
        """``"True"``, ``"False"`` (frozen) or ``"Partial"``; ``"--"`` without parameters.

        Examples:
            >>> model = nn.Sequential(nn.Linear(4, 2), nn.ReLU())
            >>> [row.trainable for row in nl.summary(model.freeze("0"), (1, 4)).layers]
            ['--', 'False', '--']
        """
        if self.params == 0:
            return "--"
        if self.frozen_params == 0:
            return "True"
        return "False" if self.trainable_params == 0 else "Partial"

    def to_dict(self) -> dict[str, Any]:
        """The row as a JSON-able dict.

        Returns:
            dict: ``name``, ``type``, ``depth``, ``output_shape``, ``params``, ... .

        Examples:
            >>> nl.summary(nn.Linear(4, 2), (1, 4)).layers[0].to_dict()["output_shape"]
            [1, 2]
        """
        return {
            "name": self.name,
            "type": self.type,
            "depth": self.depth,
            "output_shape": None if self.output_shape is None else list(self.output_shape),
            "params": self.params,
            "trainable_params": self.trainable_params,
            "frozen_params": self.frozen_params,
            "trainable": self.trainable,
            "mult_adds": self.mult_adds,
            "forward_ms": self.forward_ms,
            "backward_ms": self.backward_ms,
            "shared": self.shared,
        }


class ModelSummary:
    """The result of ``summary``: ``print(s)`` shows the table, ``s.to_dict()`` gives the data.

    Attributes:
        layers: the ``LayerRow`` of every module call shown (depth limited), in call order.
        total_params, trainable_params, frozen_params: parameter counts of the whole model
            (shared parameters counted once).
        total_mult_adds: multiply-adds of one forward pass over the input.
        param_bytes: memory held by the parameters; input_bytes, activation_bytes: memory of
            the input and of every layer output of one forward pass.

    Args:
        model_name (str): the model's class name.
        layers (list of LayerRow): the rows.
        totals (dict): the totals (parameters, mult-adds, sizes).
        input_shapes (list): the input shapes.

    Examples:
        >>> stats = nl.summary(nn.Sequential(nn.Linear(4, 2), nn.ReLU()), (1, 4))
        >>> stats.total_params, stats.trainable_params, len(stats.layers)
        (10, 10, 3)
    """

    total_params: int
    trainable_params: int
    frozen_params: int
    total_mult_adds: int
    param_bytes: int
    input_bytes: int
    activation_bytes: int
    timed: bool

    def __init__(
        self,
        model_name: str,
        layers: list[LayerRow],
        totals: dict[str, Any],
        input_shapes: list[tuple[int, ...]],
    ) -> None:
        self.model_name = model_name
        self.layers = layers
        self.input_shapes = input_shapes
        for key, value in totals.items():
            setattr(self, key, value)

    def to_dict(self) -> dict[str, Any]:
        """The summary as a JSON-able dict (rows and totals).

        Returns:
            dict: ``model``, ``layers``, ``total_params``, ... .

        Examples:
            >>> data = nl.summary(nn.Linear(4, 2), (1, 4)).to_dict()
            >>> data["model"], data["total_params"]
            ('Linear', 10)
        """
        return {
            "model": self.model_name,
            "input_shapes": [list(s) for s in self.input_shapes],
            "layers": [row.to_dict() for row in self.layers],
            "total_params": self.total_params,
            "trainable_params": self.trainable_params,
            "frozen_params": self.frozen_params,
            "total_mult_adds": self.total_mult_adds,
            "param_bytes": self.param_bytes,
            "input_bytes": self.input_bytes,
            "activation_bytes": self.activation_bytes,
            "timed": self.timed,
        }

    def __repr__(self) -> str:
        return self.table()

    __str__ = __repr__

    def table(self) -> str:
        """The table ``print`` shows.

        Returns:
            str: the table.

        Examples:
            >>> print(nl.summary(nn.Linear(4, 2), (1, 4)).table())  # doctest: +ELLIPSIS
            =====...
            Layer (name)  Type  ...
            ...
            Total params: 10
            ...
        """
        header = [
            "Layer (name)",
            "Type",
            "Output Shape",
            "Param #",
            "Trainable",
            "Mult-Adds",
            "Fwd ms",
            "Bwd ms",
        ]
        body = [
            [
                _tree_name(row),
                row.type,
                _shape_text(row.output_shape),
                _count(row),
                row.trainable,
                _int_or_dash(row.mult_adds),
                _ms(row.forward_ms),
                _ms(row.backward_ms),
            ]
            for row in self.layers
        ]
        widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]

        def line(cells: Sequence[str]) -> str:  # names and types to the left, figures to the right
            return "  ".join(
                c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
            ).rstrip()

        rule = "=" * max(len(line(header)), 60)
        mb = 1 / 1e6
        out = [rule, line(header), rule] + [line(r) for r in body] + [rule]
        frozen = [row.name for row in self.layers if row.trainable == "False"]
        out += [
            f"Total params: {self.total_params:,}",
            f"Trainable params: {self.trainable_params:,}",
            f"Non-trainable (frozen) params: {self.frozen_params:,}",
            f"Total mult-adds: {self.total_mult_adds:,}",
            rule,
            f"Input size (MB): {self.input_bytes * mb:.2f}",
            f"Forward pass outputs size (MB): {self.activation_bytes * mb:.2f}",
            f"Params size (MB): {self.param_bytes * mb:.2f}",
            rule,
        ]
        if frozen:
            out.insert(-1, "Frozen layers: " + ", ".join(frozen))
        if self.timed:
            out.insert(
                -1,
                "Times: the fastest of the timed passes on this CPU (a parent's time includes its children)",
            )
        return "\n".join(out)


def _tree_name(row: LayerRow) -> str:
    if row.depth == 0:
        return row.name
    return (
        "  " * (row.depth - 1)
        + "└─"
        + row.name.rsplit(".", 1)[-1]
        + (" (shared)" if row.shared else "")
    )


def _shape_text(shape: Sequence[int] | None) -> str:
    return "--" if shape is None else "[" + ", ".join(str(s) for s in shape) + "]"


def _count(row: LayerRow) -> str:
    return "--" if row.params == 0 else f"{row.params:,}"


def _int_or_dash(n: int) -> str:
    return "--" if not n else f"{n:,}"


def _ms(value: float | None) -> str:
    return "--" if value is None else f"{value:.3f}"


def _class_names(obj: object) -> set[str]:
    """The names of ``obj``'s classes. Layers are recognised by name: ``Module.summary`` calls this
    module, so importing the layers here would make a circle."""
    return {klass.__name__ for klass in type(obj).__mro__}


def _layer_mult_adds(module: Module, output_shape: Sequence[int] | None) -> int:
    """Multiply-adds of one call: matrix products and convolutions (other layers count 0)."""

    if output_shape is None:
        return 0
    kinds = _class_names(module)
    if "Linear" in kinds:
        weight = cast("Tensor", module.weight)  # a Linear's, recognised by its class name
        return int(weight.numel()) * int(math.prod(output_shape[:-1]))
    if "Conv2d" in kinds:
        # every output element is one dot product of a weight row (in_channels/groups * kh * kw)
        weight = cast("Tensor", module.weight)  # a Conv2d's, recognised by its class name
        per_output = int(weight.numel()) // int(weight.shape[0])
        return per_output * int(math.prod(output_shape))
    return 0


def _first_tensor(obj: object) -> Tensor | None:
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for item in obj:
            t = _first_tensor(item)
            if t is not None:
                return t
    if isinstance(obj, dict):
        return _first_tensor(list(obj.values()))
    return None


def _make_inputs(input_size: Any, input_data: Any, dtypes: Sequence[dtype] | None) -> list[Tensor]:
    if input_data is not None:
        inputs = list(input_data) if isinstance(input_data, (list, tuple)) else [input_data]
        return [x if isinstance(x, Tensor) else tensor(np.asarray(x)) for x in inputs]
    if input_size is None:
        raise ValueError("summary: give input_size (e.g. (1, 3, 32, 32)) or input_data")
    sizes = list(input_size) if isinstance(input_size[0], (list, tuple)) else [input_size]
    for s in sizes:
        if not all(isinstance(d, (int, np.integer)) and d > 0 for d in s):
            raise ValueError(f"summary: input_size must hold positive ints, got {tuple(s)}")
    dtypes = list(dtypes) if dtypes is not None else [float32] * len(sizes)
    if len(dtypes) != len(sizes):
        raise ValueError(f"summary: {len(dtypes)} dtypes for {len(sizes)} inputs")
    gen = np.random.default_rng(0)  # nnlite's own generator is left untouched
    return [
        tensor(gen.standard_normal(tuple(int(d) for d in s)).astype(np.float32)).to(dt)
        for s, dt in zip(sizes, dtypes)
    ]


class _Recorder:
    """Forward hooks on every module: one record per module call, in the order the calls began."""

    def __init__(self, model: Module) -> None:
        self.model = model
        self.handles: list[RemovableHandle] = []
        self.calls: list[_Call] = []
        self.stack: list[tuple[_Call, float]] = []

    def attach(self) -> None:
        for _, m in self.model.named_modules():
            self.handles.append(m.register_forward_pre_hook(self._pre))
            self.handles.append(m.register_forward_hook(self._post))

    def detach(self) -> None:
        for h in self.handles:
            h.remove()
        self.handles = []

    def _pre(self, module: Module, args: tuple[Any, ...]) -> None:
        call: _Call = {
            "module": module,
            "input": _first_tensor(args),
            "output": None,
            "forward_ms": None,
        }
        self.calls.append(call)
        self.stack.append((call, time.perf_counter()))

    def _post(self, module: Module, args: tuple[Any, ...], output: object) -> None:
        call, t0 = self.stack.pop()
        call["forward_ms"] = (time.perf_counter() - t0) * 1e3
        call["output"] = _first_tensor(output)

    def run(self, model: Module, inputs: Sequence[Tensor]) -> Any:
        self.calls, self.stack = [], []
        return model(*inputs)


def summary(
    model: Any,
    input_size: Any = None,
    input_data: Any = None,
    dtypes: Any = None,
    depth: int = 3,
    timing: bool = True,
    repeats: int = 3,
) -> ModelSummary:
    """A torchinfo-like summary of ``model``: per layer its name, type, output shape, parameters
    (trainable and frozen), multiply-adds and measured forward/backward time.

    Args:
        model: an ``nl.nn.Module``.
        input_size: the input's shape including the batch dimension, e.g. ``(1, 3, 32, 32)``
            (a list of shapes for several inputs). Random float32 data of that shape is used.
        input_data: the input itself (a Tensor, array, or a list of them), instead of input_size.
        dtypes: the dtypes of the generated inputs (default float32).
        depth: rows are shown down to this nesting depth; deeper layers count into their parent.
        timing: time the forward and backward pass of each layer (the fastest of ``repeats``
            passes, after one warm-up pass).
        repeats: timed passes.

    Returns:
        ModelSummary: ``print`` it for the table, ``.to_dict()`` for the data.

    Examples:
        >>> import nnlite as nl
        >>> s = nl.summary(nl.models.LeNet(), input_size=(1, 3, 32, 32))
        >>> s.total_params
        62006
    """
    if "Module" not in _class_names(model):
        raise TypeError(f"summary: model must be an nl.nn.Module, got {type(model).__name__}")
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"summary: depth must be an int >= 0, got {depth!r}")
    inputs = _make_inputs(input_size, input_data, dtypes)
    names: dict[int, str] = {}
    for name, m in model.named_modules():
        names.setdefault(id(m), name)
    rec = _Recorder(model)
    was_training = model.training
    grads = [(p, p.grad) for p in model.parameters()]
    model.eval()  # batch-norm statistics stay as they are; dropout off
    rec.attach()
    try:
        with no_grad():
            rec.run(model, inputs)
        rows, mult_adds = _rows(model, rec.calls, names, depth)
        timed = bool(timing) and all(x.dtype.is_floating_point for x in inputs)
        if timed:
            _time_layers(model, rec, rows, inputs, max(int(repeats), 1))
    finally:
        rec.detach()
        model.train(was_training)
        for p, g in grads:  # the timing passes' gradients are not the caller's
            p.grad = g
    shown = [row for row in rows if row.depth <= depth]
    return ModelSummary(
        type(model).__name__,
        shown,
        _totals(model, rows, inputs, timed, mult_adds),
        [tuple(x.shape) for x in inputs],
    )


def _rows(
    model: Module, calls: list[_Call], names: dict[int, str], depth: int
) -> tuple[list[LayerRow], int]:
    """One row per module call; a row at the depth limit holds its hidden descendants' counts."""
    rows: list[LayerRow] = []
    seen: set[int] = set()
    for call in calls:
        m = call["module"]
        name = names.get(id(m), "?")
        level = 0 if name == "" else name.count(".") + 1
        row = LayerRow(name or type(model).__name__, type(m).__name__, level)
        out = call["output"]
        row.output_shape = None if out is None else tuple(out.shape)
        row.output_bytes = 0 if out is None else int(out.numel()) * out.element_size()
        row.mult_adds = _layer_mult_adds(m, row.output_shape)
        row.shared = id(m) in seen
        seen.add(id(m))
        if not row.shared:
            # a row at the depth limit shows everything below it; above it only its own parameters
            for p in m.parameters(recurse=level >= depth):
                if p.requires_grad:
                    row.trainable_params += int(p.numel())
                else:
                    row.frozen_params += int(p.numel())
        rows.append(row)
    total_mult_adds = sum(r.mult_adds for r in rows)
    for i, row in enumerate(rows):
        if row.depth == depth:
            prefix = row.name + "."
            row.mult_adds += sum(
                r.mult_adds for r in rows[i + 1 :] if r.depth > depth and r.name.startswith(prefix)
            )
    return rows, total_mult_adds


def _time_layers(
    model: Module, rec: _Recorder, rows: list[LayerRow], inputs: list[Tensor], repeats: int
) -> None:
    """Forward time of each call (pre-hook to hook) and backward time (from the gradient of its
    output arriving to the gradient of its input being ready), the fastest of ``repeats``."""
    forward: list[list[float]] = [[] for _ in rows]
    backward: list[list[float]] = [[] for _ in rows]
    for attempt in range(repeats + 1):  # the first pass warms up
        xs = [x.detach().clone().requires_grad_(True) for x in inputs]
        with enable_grad():
            out = rec.run(model, xs)
        calls = rec.calls
        if len(calls) != len(rows):
            return  # the model calls its layers differently each time: no per-layer times
        arrived: dict[tuple[int, str], float] = {}
        for i, call in enumerate(calls):
            for side in ("input", "output"):
                t = call[side]
                if t is not None and t.requires_grad:
                    t.register_hook(_stamp(arrived, (i, side)))
        final = _first_tensor(out)
        if final is None or not final.requires_grad:
            return
        final.sum().backward()
        if attempt == 0:
            continue
        for i, call in enumerate(calls):
            forward[i].append(cast(float, call["forward_ms"]))  # set by the forward hook
            if (i, "input") in arrived and (i, "output") in arrived:
                backward[i].append((arrived[(i, "input")] - arrived[(i, "output")]) * 1e3)
    for row, f, b in zip(rows, forward, backward):
        row.forward_ms = min(f) if f else None
        row.backward_ms = max(min(b), 0.0) if b else None


def _stamp(arrived: dict[tuple[int, str], float], key: tuple[int, str]) -> Callable[[Tensor], None]:
    def hook(grad: Tensor) -> None:
        arrived.setdefault(key, time.perf_counter())

    return hook


def _totals(
    model: Module, rows: list[LayerRow], inputs: list[Tensor], timed: bool, mult_adds: int
) -> dict[str, Any]:
    params = list(model.parameters())  # shared parameters once
    trainable = sum(int(p.numel()) for p in params if p.requires_grad)
    total = sum(int(p.numel()) for p in params)
    return {
        "total_params": total,
        "trainable_params": trainable,
        "frozen_params": total - trainable,
        "total_mult_adds": mult_adds,
        "param_bytes": sum(int(p.numel()) * p.element_size() for p in params),
        "input_bytes": sum(int(x.numel()) * x.element_size() for x in inputs),
        "activation_bytes": sum(r.output_bytes for r in rows if r.depth > 0),
        "timed": bool(timed),
    }
