"""``nl.onnx.export``: trace a model once and write its forward pass as an ONNX graph."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from .._runtime.atomic_file import write_atomically
from ..autograd.grad_mode import enable_grad
from ..autograd.tensor import Tensor
from ..nn.modules.module import Module
from .converters import FUNCTION_CONVERTERS, MODULE_CONVERTERS
from .nodes import ExportError
from .tracer import Conversion, Tracer, leaf_module_types

if TYPE_CHECKING:
    import numpy.typing as npt
    from onnx import NodeProto, TensorProto, ValueInfoProto

    from .._typing import Array

DEFAULT_OPSET = 17
#: a ``dynamic_axes`` entry: the free axes, or each free axis with its label
_AxesSpec: TypeAlias = "Sequence[int] | Mapping[int, str]"
#: a model's example inputs or outputs: a tensor or a nested tuple/list of them
_Nested: TypeAlias = "Tensor | tuple[Any, ...] | list[Any]"
_ONNX_TYPES = {
    "float32": 1,
    "uint8": 2,
    "int8": 3,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "bool": 9,
    "float16": 10,
    "float64": 11,
}


def _onnx() -> ModuleType:
    try:
        import onnx
    except ImportError:
        raise ImportError(
            "nl.onnx.export needs the onnx package: pip install 'nnlite[onnx]' "
            "(or pip install onnx)"
        ) from None
    module: ModuleType = onnx  # (typed: without onnx installed, mypy reads it as Any)
    return module


class _Graph:
    """The ONNX graph under construction: values named by the tensors that carry them."""

    def __init__(
        self,
        onnx: ModuleType,
        opset: int,
        parameters: dict[int, tuple[str, Tensor]],
        from_inputs: Callable[[Tensor], bool] = lambda tensor: False,
    ) -> None:
        self.onnx, self.opset = onnx, opset
        self._from_inputs = from_inputs  # whether a tensor was computed from the graph inputs
        self.nodes: list[NodeProto] = []
        self.initializers: list[TensorProto] = []
        self._names: dict[int, str] = {}  # id(tensor) -> ONNX value name
        self._pending = (
            parameters  # id(tensor) -> (state-dict name, tensor), made initializers on first use
        )
        self._used: set[int] = set()
        self._counter = 0

    def fresh(self, hint: str) -> str:
        self._counter += 1
        return f"{hint}_{self._counter}"

    def bind(self, tensor: Tensor, name: str) -> None:
        self._names[id(tensor)] = name

    def value(self, value: object, like: object = None) -> str:
        """The ONNX name of a tensor or number used as an op's input."""
        if isinstance(value, Tensor):
            key = id(value)
            if key in self._names:
                return self._names[key]
            if key in self._pending:
                name, tensor = self._pending[key]
                self._add_initializer(name, tensor.detach().numpy())
                self._names[key] = name
                return name
            if value.grad_fn is not None or self._from_inputs(value):
                made_by = f" made by {value.grad_fn.name()}" if value.grad_fn is not None else ""
                raise ExportError(
                    f"the value of shape {tuple(value.shape)}{made_by} was computed from the "
                    "inputs by an op that cannot be exported (no ONNX conversion)"
                )
            return self.const(value.detach().numpy(), "constant")
        if isinstance(value, (bool, int, float)):
            dtype = like.detach().numpy().dtype if isinstance(like, Tensor) else np.float32
            return self.const(np.array(value, dtype=dtype), "scalar")
        raise ExportError(f"cannot export an op input of type {type(value).__name__}")

    def const(self, array: npt.ArrayLike, hint: str) -> str:
        name = self.fresh(hint)
        self._add_initializer(name, np.asarray(array))
        return name

    def _add_initializer(self, name: str, array: Array) -> None:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))

    def node(
        self, op_type: str, inputs: Iterable[str], output: Tensor | str | None, **attributes: Any
    ) -> str:
        """Add a node; ``output`` is the result tensor, an explicit name, or None for a fresh one."""
        return self.multi_node(op_type, inputs, [output], **attributes)[0]

    def multi_node(
        self,
        op_type: str,
        inputs: Iterable[str],
        outputs: Sequence[Tensor | str | None],
        **attributes: Any,
    ) -> list[str]:
        """Add a node with several outputs (each as ``node``'s ``output``); returns their names.
        An input named ``""`` is an optional input left out."""
        names: list[str] = []
        for output in outputs:
            if isinstance(output, Tensor):
                name = self.fresh(op_type.lower())
                self._names[id(output)] = name
            else:
                name = output or self.fresh(op_type.lower())
            names.append(name)
        self.nodes.append(
            self.onnx.helper.make_node(
                op_type, list(inputs), names, name=f"/{op_type}_{self._counter}", **attributes
            )
        )
        return names


def _value_info(name: str, tensor: Tensor, dynamic: dict[int, str]) -> ValueInfoProto:
    from onnx import helper

    dims = [dynamic.get(i, size) for i, size in enumerate(tensor.shape)]
    return helper.make_tensor_value_info(
        name, _ONNX_TYPES[str(tensor.dtype).replace("nnlite.", "")], dims
    )


def _dynamic_dims(spec: _AxesSpec | None, ndim: int, name: str) -> dict[int, str]:
    """``dynamic_axes`` entry -> {axis: dim_param}: a list of axes or a dict of axis names, as PyTorch."""
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return {int(axis) % ndim: str(label) for axis, label in spec.items()}
    return {int(axis) % ndim: f"{name}_dynamic_axes_{int(axis) % ndim + 1}" for axis in spec}


def _leaves(value: object) -> list[Tensor] | None:
    """The tensors of a tensor or a nested tuple/list of them, in order; None if anything else."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)) and value:
        leaves: list[Tensor] = []
        for found in [_leaves(v) for v in value]:
            if found is None:
                return None
            leaves += found
        return leaves
    return None


def _replace_leaves(value: _Nested, replacements: Iterator[Tensor]) -> _Nested:
    """``value`` with each tensor replaced by the next of ``replacements``, nesting kept."""
    if isinstance(value, Tensor):
        return next(replacements)
    return type(value)(_replace_leaves(v, replacements) for v in value)


def _flatten_outputs(output: object) -> list[Tensor]:
    tensors = _leaves(output)
    if tensors is None:
        raise ExportError(
            f"the model returned {type(output).__name__}; only a tensor or a (nested) tuple/list "
            "of tensors can be exported"
        )
    return tensors


def export(
    model: Module,
    args: Tensor | tuple[Any, ...],
    f: str | os.PathLike[str],
    input_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    dynamic_axes: Mapping[str, _AxesSpec] | None = None,
    opset_version: int | None = None,
    export_params: bool = True,
    do_constant_folding: bool = True,
    verbose: bool = False,
    *,
    strict: bool = False,
) -> None:
    """Trace ``model`` on ``args`` and write its forward pass to ``f`` as an ONNX model.

    The model runs once in eval mode (restored afterwards). Convolution, linear, batch-norm,
    pooling, activation, softmax, dropout, ``Embedding``, ``RNN``/``LSTM``/``GRU``, attention,
    ``LayerNorm`` and the transformer encoder and decoder layers, and the
    common tensor ops (arithmetic, matmul, reshape/view/flatten, permute, cat, mean, softmax, ...)
    convert; anything else raises ``ExportError`` naming it.

    Args:
        model (nn.Module): the model.
        args (Tensor or tuple of Tensors): example inputs; a nested tuple (such as an LSTM's
            ``(h0, c0)``) is passed to the model as it is, each tensor a graph input in order.
        f (str or os.PathLike): the ``.onnx`` file to write.
        input_names, output_names (list of str): graph names (default ``input``/``output`` numbered
            when there are several).
        dynamic_axes (dict): ``{name: [axis, ...]}`` or ``{name: {axis: "label"}}`` for sizes free at run time.
        opset_version (int): ONNX opset, 13 to 21. Default: 17.
        export_params (bool): parameters as initializers (the only mode supported; False is an error).
        do_constant_folding, verbose: accepted for PyTorch compatibility.
        strict (bool): refuse (``ExportError``) where a value computed from the inputs leaves the
            graph for Python (``.item()``, ``.tolist()``, ``.numpy()``, ``if tensor:``, ``int(t)``,
            ``float(t)``) instead of warning (``TracerWarning``): the file would hold the value of
            this example as a constant. Default: False.

    Returns:
        None

    Examples:
        >>> model = nl.models.LeNet(num_classes=10).eval()
        >>> nl.onnx.export(model, nl.randn(1, 3, 32, 32), "lenet.onnx", input_names=["images"],
        ...                output_names=["logits"], dynamic_axes={"images": [0], "logits": [0]})
    """
    onnx = _onnx()
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not 13 <= opset <= 21:
        raise ValueError(f"opset_version must be between 13 and 21, got {opset_version}")
    if not export_params:
        raise ValueError(
            "export_params=False is not supported: nnlite writes the parameters into the file"
        )
    args = (args,) if isinstance(args, Tensor) else tuple(args)
    inputs = _leaves(args)
    if not inputs:
        raise TypeError("args must be a Tensor or a (nested) tuple of Tensors (the example inputs)")
    input_names = list(
        input_names
        or (["input"] if len(inputs) == 1 else [f"input_{i}" for i in range(len(inputs))])
    )
    if len(input_names) != len(inputs):
        raise ValueError(f"{len(input_names)} input_names for {len(inputs)} inputs")

    was_training = model.training
    model.eval()
    # Inputs that require grad make every op that depends on them record a grad_fn: the check that
    # nothing untraced fed the graph.
    traced_inputs = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
    tracer = Tracer(
        patches=FUNCTION_CONVERTERS,
        module_types=leaf_module_types(MODULE_CONVERTERS),
        model=model,
        strict=bool(strict),
    )
    for x in traced_inputs:
        tracer.mark(x)
    parameters = {
        id(t): (name, t) for name, t in list(model.named_parameters()) + list(model.named_buffers())
    }
    g = _Graph(onnx, opset, parameters, tracer.from_inputs)
    try:
        with enable_grad(), tracer:
            output = model(*_replace_leaves(args, iter(traced_inputs)))
        outputs = _flatten_outputs(output)
        for x, name in zip(traced_inputs, input_names):
            g.bind(x, name)
        for call in tracer.calls:  # converted while the model is still in eval mode
            convert: Conversion = (
                MODULE_CONVERTERS[type(call.target)]
                if isinstance(call.target, Module)
                else call.target
            )
            convert(g, call)
    finally:
        model.train(was_training)
    output_names = list(
        output_names
        or (["output"] if len(outputs) == 1 else [f"output_{i}" for i in range(len(outputs))])
    )
    if len(output_names) != len(outputs):
        raise ValueError(f"{len(output_names)} output_names for {len(outputs)} outputs")

    last: dict[int, str] = {}
    for out, name in zip(outputs, output_names):
        produced = g.value(out)
        if (
            produced in input_names
            or produced in last.values()
            or not any(produced in n.output for n in g.nodes)
        ):
            g.node("Identity", [produced], name)
        else:
            for node in g.nodes:  # rename the producing node's output to the requested name
                node.output[:] = [name if o == produced else o for o in node.output]
                node.input[:] = [name if i == produced else i for i in node.input]
        last[id(out)] = name

    dynamic_axes = dynamic_axes or {}
    graph = onnx.helper.make_graph(
        g.nodes,
        getattr(model, "_get_name", lambda: type(model).__name__)(),
        [
            _value_info(n, x, _dynamic_dims(dynamic_axes.get(n), x.ndim, n))
            for x, n in zip(traced_inputs, input_names)
        ],
        [
            _value_info(n, y, _dynamic_dims(dynamic_axes.get(n), y.ndim, n))
            for y, n in zip(outputs, output_names)
        ],
        initializer=g.initializers,
    )
    proto = onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid("", opset)], producer_name="nnlite"
    )
    onnx.checker.check_model(proto)
    write_atomically(os.fspath(f), proto.SerializeToString())
