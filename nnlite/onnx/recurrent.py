"""ONNX conversions of the recurrent layers ``nn.RNN``, ``nn.LSTM`` and ``nn.GRU``.

Each layer of the stack becomes one ONNX ``RNN``/``LSTM``/``GRU`` node running both directions.
ONNX orders the gate blocks differently from PyTorch (LSTM: i, o, f, c instead of i, f, g, o; GRU:
z, r, h instead of r, z, n), so the weights are written reordered and stacked per direction, as
initializers named after the module and layer; PyTorch's GRU applies the reset gate after the
hidden projection, which is ONNX's ``linear_before_reset=1``. Dropout between layers is off in eval
mode, the mode export runs in, so it adds nothing to the graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..nn.modules.rnn import RNNBase
from ..nn.utils.rnn import PackedSequence
from .nodes import ExportError, axes_node

if TYPE_CHECKING:
    from .._typing import Array
    from ..autograd.tensor import Tensor
    from .export import _Graph
    from .tracer import Call

_ONNX_OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}
# Where each ONNX gate block comes from among PyTorch's: LSTM i,f,g,o -> i,o,f,c; GRU r,z,n -> z,r,h.
_GATE_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}


def _label(call: Call) -> str:
    name = f" '{call.module_name}'" if call.module_name else ""
    return f"nn.{type(call.target).__name__}{name}"


def _arguments(call: Call) -> tuple[Any, Any]:
    """The recorded ``(input, hx)`` of a recurrent layer's call, positional or by keyword."""
    given = call.args["input"]
    if isinstance(given, tuple) and not isinstance(given, PackedSequence):  # a namedtuple
        return given[0], given[1] if len(given) > 1 else call.args.get("hx")
    return given, call.args.get("hx")


def _reordered(array: Array, mode: str) -> Array:
    """A weight ``(gates * H, ...)`` or bias ``(gates * H,)`` with its gate blocks in ONNX's order."""
    blocks = np.split(array, len(_GATE_ORDER[mode]))
    return np.concatenate([blocks[i] for i in _GATE_ORDER[mode]])


def _parameter(module: RNNBase, name: str) -> Array:
    """The parameter ``name`` of ``module`` as an array, its gate blocks in ONNX's order."""
    parameter: Tensor = getattr(module, name)
    return _reordered(parameter.detach().numpy(), module.mode)


def _layer_weights(g: _Graph, module: RNNBase, layer: int, hint: str) -> list[str]:
    """ONNX's ``W``, ``R`` and ``B`` inputs for one layer (both directions); ``B`` is "" without bias."""
    directions = 2 if module.bidirectional else 1
    stacked: dict[str, list[Array]] = {"W": [], "R": [], "B": []}
    for direction in range(directions):
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        stacked["W"].append(_parameter(module, "weight_ih" + suffix))
        stacked["R"].append(_parameter(module, "weight_hh" + suffix))
        if module.bias:
            stacked["B"].append(
                np.concatenate(
                    [_parameter(module, "bias_ih" + suffix), _parameter(module, "bias_hh" + suffix)]
                )
            )
    return [
        g.const(np.stack(arrays), f"{hint}.{key}_l{layer}") if arrays else ""
        for key, arrays in stacked.items()
    ]


def _layer_states(
    g: _Graph, states: list[str], layer: int, directions: int, num_layers: int
) -> list[str]:
    """The initial states of one layer: rows ``layer * directions ...`` of each ``(layers * dirs, N, H)``."""
    if num_layers == 1:
        return list(states)
    rows = [
        g.const(np.array([value], dtype=np.int64), hint)
        for value, hint in (
            (layer * directions, "starts"),
            ((layer + 1) * directions, "ends"),
            (0, "axes"),
        )
    ]
    return [g.node("Slice", [state, *rows], None) for state in states]


def _unsqueezed(g: _Graph, name: str, axis: int) -> str:
    out = g.fresh("unsqueezed")
    axes_node(g, "Unsqueeze", name, [axis], out)
    return out


def _squeezed(g: _Graph, name: str, axis: int) -> str:
    out = g.fresh("squeezed")
    axes_node(g, "Squeeze", name, [axis], out)
    return out


def recurrent(g: _Graph, call: Call) -> None:
    """Convert one call of ``nn.RNN``, ``nn.LSTM`` or ``nn.GRU`` (any layers, directions, batch_first,
    given or zero initial states, batched or unbatched input)."""
    module = call.module(RNNBase)
    input, hx = _arguments(call)
    if isinstance(input, PackedSequence):
        raise ExportError(
            f"{_label(call)} was given a PackedSequence: packed sequences cannot be exported; "
            "pass the padded (L, N, H_in) tensor instead"
        )
    if getattr(module, "proj_size", 0):
        raise ExportError(f"{_label(call)} with proj_size > 0 cannot be exported")
    mode, lstm = module.mode, module.mode == "LSTM"
    directions = 2 if module.bidirectional else 1
    batched = input.ndim == 3
    x = g.value(input)
    if not batched:
        x = _unsqueezed(g, x, 1)
    elif module.batch_first:
        x = g.node("Transpose", [x], None, perm=[1, 0, 2])
    states = []
    if hx is not None:
        states = [g.value(s) for s in (hx if lstm else (hx,))]
        if not batched:
            states = [_unsqueezed(g, s, 1) for s in states]
    attributes: dict[str, Any] = {
        "hidden_size": module.hidden_size,
        "direction": "bidirectional" if directions == 2 else "forward",
    }
    if mode == "GRU":
        attributes["linear_before_reset"] = 1
    elif mode != "LSTM":
        attributes["activations"] = ["Relu" if mode == "RNN_RELU" else "Tanh"] * directions
    hint = call.module_name or mode.lower()
    finals: list[list[str]] = [[] for _ in range(2 if lstm else 1)]
    for layer in range(module.num_layers):
        initial = _layer_states(g, states, layer, directions, module.num_layers) if states else []
        inputs = [x, *_layer_weights(g, module, layer, hint), "", *initial]
        while inputs[-1] == "":
            inputs.pop()
        y, *last = g.multi_node(_ONNX_OP[mode], inputs, [None] * (1 + len(finals)), **attributes)
        for store, name in zip(finals, last):
            store.append(name)
        # Y is (L, directions, N, H); the next layer and the output take (L, N, directions * H)
        if directions == 1:
            x = _squeezed(g, y, 1)
        else:
            by_step = g.node("Transpose", [y], None, perm=[0, 2, 1, 3])
            x = g.node("Reshape", [by_step, g.const(np.array([0, 0, -1], np.int64), "shape")], None)
    output, hidden = call.result
    if not batched:
        x = _squeezed(g, x, 1)
    elif module.batch_first:
        x = g.node("Transpose", [x], None, perm=[1, 0, 2])
    g.bind(output, x)
    for tensor, names in zip(hidden if lstm else (hidden,), finals):
        state = names[0] if len(names) == 1 else g.node("Concat", names, None, axis=0)
        g.bind(tensor, state if batched else _squeezed(g, state, 1))
