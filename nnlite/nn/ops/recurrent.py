"""Recurrent layers' time loops as single ops: ``RNNSequence`` (tanh or relu), ``GRUSequence`` and
``LSTMSequence`` each run one direction of a layer over a whole sequence; ``rnn_cell``,
``gru_cell`` and ``lstm_cell`` are one step of each.

Each step's math is written once, in the step functions below, on arrays or Tensors. A sequence op
runs them in its time loop on arrays; its ``backward``, the reference formula, is the gradient of
the same steps on Tensors, recomputed (so gradients of gradients exist). The first-order backward
(``backward_arrays``) is the reverse loop written out, with one product per step and the
``weight_hh`` gradient from one product over all steps; a test checks it equals the reference.

Packed sequences (sorted longest first) pass ``batch_sizes``, the number of sequences still
running at each time step: the others hold their state through that step, and the output there
repeats the held state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ...autograd.engine import composite_gradient
from ...autograd.op import Op
from ...autograd.ops import vjp

if TYPE_CHECKING:
    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor

_Grads = tuple["Gradient | None", ...]


# ------------------------------------------------------------------------------- one step
# Each cell's math, written once on arrays or Tensors (the ``vjp`` helpers pick the call): the
# sequence ops' forward runs it on arrays, their reference ``backward`` differentiates it on Tensors.
def _hidden_product(h: Any, w_hh_t: Any, b_hh: Any) -> Any:
    product = h @ w_hh_t
    return product if b_hh is None else product + b_hh


def rnn_cell(projected: Any, h: Any, w_hh_t: Any, b_hh: Any = None, relu: bool = False) -> Any:
    """One Elman step from ``projected = x @ w_ih.T + b_ih``: returns ``h'``."""
    pre = projected + _hidden_product(h, w_hh_t, b_hh)
    return vjp.relu(pre) if relu else vjp.tanh(pre)


def gru_gates(projected: Any, h: Any, w_hh_t: Any, b_hh: Any = None) -> tuple[Any, Any, Any]:
    """One GRU step's activated gates: ``(reset_update, candidate, hidden)``, ``hidden`` being
    ``h @ w_hh_t + b_hh`` (the reset gate scales its candidate part)."""
    hidden = _hidden_product(h, w_hh_t, b_hh)
    size = h.shape[-1]
    reset_update = vjp.sigmoid(projected[..., : 2 * size] + hidden[..., : 2 * size])
    candidate = vjp.tanh(
        projected[..., 2 * size :] + reset_update[..., :size] * hidden[..., 2 * size :]
    )
    return reset_update, candidate, hidden


def gru_mix(update: Any, candidate: Any, h: Any) -> Any:
    """The GRU's new state ``h' = n + z * (h - n)``."""
    return candidate + update * (h - candidate)


def gru_cell(projected: Any, h: Any, w_hh_t: Any, b_hh: Any = None) -> Any:
    """One GRU step from ``projected = x @ w_ih.T + b_ih``: returns ``h'`` (gates r, z, n)."""
    reset_update, candidate, _ = gru_gates(projected, h, w_hh_t, b_hh)
    return gru_mix(reset_update[..., h.shape[-1] :], candidate, h)


def lstm_gates(projected: Any, h: Any, w_hh_t: Any, b_hh: Any = None) -> tuple[Any, Any, Any]:
    """One LSTM step's activated gates: ``(input_forget, candidate, output)`` (i and f together)."""
    pre = projected + _hidden_product(h, w_hh_t, b_hh)
    size = h.shape[-1]
    return (
        vjp.sigmoid(pre[..., : 2 * size]),
        vjp.tanh(pre[..., 2 * size : 3 * size]),
        vjp.sigmoid(pre[..., 3 * size :]),
    )


def lstm_state(input_forget: Any, candidate: Any, output: Any, c: Any) -> tuple[Any, Any, Any]:
    """The LSTM's new ``(h', c', tanh(c'))`` from its activated gates and the cell state ``c``."""
    size = c.shape[-1]
    c = input_forget[..., size:] * c + input_forget[..., :size] * candidate
    tanh_c = vjp.tanh(c)
    return output * tanh_c, c, tanh_c


def lstm_cell(projected: Any, h: Any, c: Any, w_hh_t: Any, b_hh: Any = None) -> tuple[Any, Any]:
    """One LSTM step from ``projected = x @ w_ih.T + b_ih``: returns ``(h', c')`` (gates i, f, g, o)."""
    h, c, _ = lstm_state(*lstm_gates(projected, h, w_hh_t, b_hh), c)
    return h, c


def _hold(active: int, *pairs: tuple[Array, Array]) -> None:
    """Rows from ``active`` on take the value they had (packed sequences that are not running)."""
    for new, held in pairs:
        new[active:] = held[active:]


# ------------------------------------------------------------------------------- the sequence ops
class RecurrentSequence(Op):
    """The common part of the sequence ops.

    Inputs: ``projected`` (L, B, G), the input already multiplied by ``weight_ih`` with its bias
    added, then the ``state_count`` initial states (B, H), then ``weight_hh`` (G, H) and the op's
    other parameters. ``reverse`` runs from the last time step to the first; ``batch_sizes`` (one
    count per time step, or None) marks packed sequences. A subclass writes ``forward`` (the time
    loop on arrays, calling the step functions above), ``cell`` (one step on Tensors, the same
    functions) and ``backward_arrays``, the first-order fast path: the reverse loop written out.
    """

    state_count = 1
    reverse = False
    batch_sizes: Sequence[int] | Array | None = None

    def _steps(self, length: int, batch: int) -> list[tuple[int, int]]:
        """(time step, number of running sequences) in the order the forward loop visits them."""
        order = range(length - 1, -1, -1) if self.reverse else range(length)
        if self.batch_sizes is None:
            return [(t, batch) for t in order]
        return [(t, int(self.batch_sizes[t])) for t in order]

    def _previous(self, states: Array, first: Array) -> Array:
        """The state entering each time step: ``first`` at the first step, else the neighbour's."""
        if not len(states):
            return states
        if self.reverse:
            return np.concatenate([states[1:], first[None]])
        return np.concatenate([first[None], states[:-1]])

    def _hidden_weight_grad(self, d_hidden: Array, h0: Array) -> Array:
        """``weight_hh``'s gradient from the gradients of every step's ``h @ weight_hh.T``, in one product."""
        length, _, gate_size = d_hidden.shape
        previous = self._previous(self.hidden[:length], np.asarray(h0))
        out: Array = d_hidden.reshape(-1, gate_size).T @ previous.reshape(-1, previous.shape[-1])
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        """The reference formula: the gradient of the composite steps (``cell``), recomputed."""
        grads: _Grads = composite_gradient(self._run_cells, self.inputs(), grad, needs)
        return grads

    def cell(
        self, projected: Tensor, state: tuple[Tensor, ...], w_hh_t: Tensor, *params: Tensor | None
    ) -> tuple[Tensor, ...]:
        """One step on Tensors: the new state tuple from ``state``."""
        raise NotImplementedError

    def _run_cells(self, projected: Tensor, *rest: Tensor | None) -> Tensor:
        """The op's result computed step by step with ``cell`` (recorded: ``backward``'s function)."""
        from ...autograd.creation import cat, stack

        state = cast("tuple[Tensor, ...]", rest[: self.state_count])
        params = rest[self.state_count :]
        length, batch = projected.shape[0], projected.shape[1]
        hidden: list[Tensor | None] = [None] * length
        w_hh_t = cast("Tensor", params[0]).t()
        for t, active in self._steps(length, batch):
            new = self.cell(projected[t], state, w_hh_t, *params[1:])
            if active < batch:
                new = tuple(cat([n[:active], s[active:]]) for n, s in zip(new, state))
            state = new
            hidden[t] = state[0]
        return stack([h for h in hidden if h is not None] + list(state[1:]))


class RNNSequence(RecurrentSequence):
    """One direction of an Elman RNN layer: inputs ``projected`` (L, B, H) with both biases added,
    ``h0`` (B, H) and ``weight_hh`` (H, H); ``relu`` picks relu over tanh.

    The result is (L, B, H), the hidden state of every time step in time order.
    """

    node_name = "RnnSequenceBackward0"
    saved_inputs = (0, 1, 2)
    relu = False

    def forward(self, projected: Array, h0: Array, w_hh: Array) -> Array:
        length, batch, size = projected.shape
        out = np.empty((length, batch, size), np.result_type(projected, h0, w_hh))
        w_hh_t = w_hh.T
        h = h0
        for t, active in self._steps(length, batch):
            previous, h = h, out[t]
            h[...] = rnn_cell(projected[t], previous, w_hh_t, relu=self.relu)
            if active < batch:
                _hold(active, (h, previous))
        self.hidden = out
        return out

    def backward_arrays(self, grad: Array, needs: Sequence[bool]) -> _Grads:
        projected, h0, w_hh = self.inputs()
        length, batch, size = projected.shape
        out = self.hidden
        d_pre = np.empty_like(out)
        dh_next = np.zeros((batch, size), grad.dtype)
        for t, active in reversed(self._steps(length, batch)):
            dh = grad[t] + dh_next
            d = d_pre[t]
            if self.relu:
                np.multiply(dh, out[t] > 0, out=d)
            else:
                np.multiply(dh, 1 - out[t] * out[t], out=d)
            if active < batch:
                d[active:] = 0
            dh_next = d @ w_hh
            if active < batch:
                _hold(active, (dh_next, dh))
        return (
            d_pre if needs[0] else None,
            dh_next if needs[1] else None,
            self._hidden_weight_grad(d_pre, h0) if needs[2] else None,
        )

    def cell(  # type: ignore[override]  # the base takes the op's extra parameters
        self, projected: Tensor, state: tuple[Tensor, ...], w_hh_t: Tensor
    ) -> tuple[Tensor, ...]:
        return (rnn_cell(projected, state[0], w_hh_t, relu=self.relu),)


class GRUSequence(RecurrentSequence):
    """One direction of a GRU layer: inputs ``projected`` (L, B, 3H) with ``bias_ih`` added,
    ``h0`` (B, H), ``weight_hh`` (3H, H) and ``bias_hh`` (3H) or None (it stays apart: the reset
    gate multiplies the candidate's part of ``h @ weight_hh.T + bias_hh``).

    The result is (L, B, H), the hidden state of every time step in time order.
    """

    node_name = "GruSequenceBackward0"
    saved_inputs = (0, 1, 2, 3)

    def forward(self, projected: Array, h0: Array, w_hh: Array, b_hh: Array | None) -> Array:
        length, batch, gate_size = projected.shape
        size = gate_size // 3
        dtype = np.result_type(projected, h0, w_hh)
        out = np.empty((length, batch, size), dtype)
        gates = np.empty((length, batch, gate_size), dtype)  # activated r, z, n
        candidate_hidden = np.empty((length, batch, size), dtype)  # the n part of h @ w_hh.T + b_hh
        w_hh_t = w_hh.T
        h = h0
        for t, active in self._steps(length, batch):
            reset_update, candidate, hidden = gru_gates(projected[t], h, w_hh_t, b_hh)
            gates[t, :, : 2 * size] = reset_update
            gates[t, :, 2 * size :] = candidate
            candidate_hidden[t] = hidden[:, 2 * size :]
            previous, h = h, out[t]
            h[...] = gru_mix(reset_update[:, size:], candidate, previous)
            if active < batch:
                _hold(active, (h, previous))
        self.gates, self.candidate_hidden, self.hidden = gates, candidate_hidden, out
        return out

    def backward_arrays(self, grad: Array, needs: Sequence[bool]) -> _Grads:
        projected, h0, w_hh, b_hh = self.inputs()
        length, batch, gate_size = projected.shape
        size = gate_size // 3
        gates = self.gates
        previous_hidden = self._previous(self.hidden, np.asarray(h0))
        d_projected = np.empty_like(gates)
        d_hidden = np.empty_like(gates)  # gradient of h @ w_hh.T + b_hh
        dh_next = np.zeros((batch, size), grad.dtype)
        for t, active in reversed(self._steps(length, batch)):
            reset, update = gates[t, :, :size], gates[t, :, size : 2 * size]
            candidate = gates[t, :, 2 * size :]
            dh = grad[t] + dh_next
            d = d_projected[t]
            d_candidate = d[:, 2 * size :]
            np.multiply(dh * (1 - update), 1 - candidate * candidate, out=d_candidate)
            np.multiply(
                d_candidate * self.candidate_hidden[t], reset * (1 - reset), out=d[:, :size]
            )
            np.multiply(
                dh * (previous_hidden[t] - candidate),
                update * (1 - update),
                out=d[:, size : 2 * size],
            )
            if active < batch:
                d[active:] = 0
            dhid = d_hidden[t]
            dhid[:, : 2 * size] = d[:, : 2 * size]
            np.multiply(d_candidate, reset, out=dhid[:, 2 * size :])
            dh_next = dhid @ w_hh
            dh_next += dh * update
            if active < batch:
                _hold(active, (dh_next, dh))
        return (
            d_projected if needs[0] else None,
            dh_next if needs[1] else None,
            self._hidden_weight_grad(d_hidden, h0) if needs[2] else None,
            d_hidden.sum((0, 1)) if needs[3] else None,
        )

    def cell(  # type: ignore[override]  # the base takes the op's extra parameters
        self, projected: Tensor, state: tuple[Tensor, ...], w_hh_t: Tensor, b_hh: Tensor | None
    ) -> tuple[Tensor, ...]:
        return (gru_cell(projected, state[0], w_hh_t, b_hh),)


class LSTMSequence(RecurrentSequence):
    """One direction of an LSTM layer over ``projected`` (L, B, 4H), the input already multiplied by
    ``weight_ih`` with both biases added, from states ``h0``, ``c0`` (B, H) and ``weight_hh`` (4H, H).

    The result is (L + 1, B, H): the hidden state of every time step in time order, then the final
    cell state.
    """

    node_name = "LstmSequenceBackward0"
    saved_inputs = (0, 1, 2, 3)
    state_count = 2

    def forward(self, projected: Array, h0: Array, c0: Array, w_hh: Array) -> Array:
        length, batch, gate_size = projected.shape
        size = gate_size // 4
        dtype = np.result_type(projected, h0, c0, w_hh)
        out = np.empty((length + 1, batch, size), dtype)
        gates = np.empty((length, batch, gate_size), dtype)  # activated i, f, g, o
        cells = np.empty((length, batch, size), dtype)
        tanh_cells = np.empty((length, batch, size), dtype)
        w_hh_t = w_hh.T
        h, c = h0, c0
        for t, active in self._steps(length, batch):
            previous_h, previous_c = h, c
            input_forget, candidate, output = lstm_gates(projected[t], h, w_hh_t)
            act = gates[t]
            act[:, : 2 * size] = input_forget
            act[:, 2 * size : 3 * size] = candidate
            act[:, 3 * size :] = output
            h, c = out[t], cells[t]
            h[...], c[...], tanh_cells[t] = lstm_state(input_forget, candidate, output, previous_c)
            if active < batch:
                _hold(active, (h, previous_h), (c, previous_c))
        out[length] = c
        self.gates, self.cells, self.tanh_cells, self.hidden = gates, cells, tanh_cells, out
        return out

    def backward_arrays(self, grad: Array, needs: Sequence[bool]) -> _Grads:
        projected, h0, c0, w_hh = self.inputs()
        length, batch, gate_size = projected.shape
        size = gate_size // 4
        gates, tanh_cells = self.gates, self.tanh_cells
        previous_cells = self._previous(self.cells, np.asarray(c0))
        d_gates = np.empty_like(gates)
        dh_next = np.zeros((batch, size), grad.dtype)
        dc_next = np.array(grad[length])
        for t, active in reversed(self._steps(length, batch)):
            i, f = gates[t, :, :size], gates[t, :, size : 2 * size]
            g, o = gates[t, :, 2 * size : 3 * size], gates[t, :, 3 * size :]
            dh = grad[t] + dh_next
            tc = tanh_cells[t]
            dc = dc_next + dh * o * (1 - tc * tc)
            d = d_gates[t]
            np.multiply(dc * g, i * (1 - i), out=d[:, :size])
            np.multiply(dc * previous_cells[t], f * (1 - f), out=d[:, size : 2 * size])
            np.multiply(dc * i, 1 - g * g, out=d[:, 2 * size : 3 * size])
            np.multiply(dh * tc, o * (1 - o), out=d[:, 3 * size :])
            if active < batch:
                d[active:] = 0
            held_dc = dc_next
            dc_next = dc * f
            dh_next = d @ w_hh
            if active < batch:
                _hold(active, (dh_next, dh), (dc_next, held_dc))
        return (
            d_gates if needs[0] else None,
            dh_next if needs[1] else None,
            dc_next if needs[2] else None,
            self._hidden_weight_grad(d_gates, h0) if needs[3] else None,
        )

    def cell(  # type: ignore[override]  # the base takes the op's extra parameters
        self, projected: Tensor, state: tuple[Tensor, ...], w_hh_t: Tensor
    ) -> tuple[Tensor, ...]:
        return lstm_cell(projected, state[0], state[1], w_hh_t)
