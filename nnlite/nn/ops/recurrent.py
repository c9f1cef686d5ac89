"""Recurrent layers' time loops as single ops: ``RNNSequence`` (tanh or relu), ``GRUSequence`` and
``LSTMSequence`` each run one direction of a layer over a whole sequence; ``rnn_cell``,
``gru_cell`` and ``lstm_cell`` are one step of each, composed of small ops.

A sequence op runs the time loop on arrays: per step one matrix product with ``weight_hh`` and the
gate arithmetic on all gates together, and in backward the reverse loop with one product per step,
the ``weight_hh`` gradient then coming from one product over all steps. Under ``create_graph`` its
gradient is the one of the composite steps, recomputed, so that gradients of gradients exist.

Packed sequences (sorted longest first) pass ``batch_sizes``, the number of sequences still
running at each time step: the others hold their state through that step, and the output there
repeats the held state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

from ...autograd import grad_mode
from ...autograd.op import Op
from ...autograd.ops import vjp

if TYPE_CHECKING:
    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor

_Grads = tuple["Gradient | None", ...]


# ------------------------------------------------------------------------------- one step, composed
def rnn_cell(
    projected: Tensor, h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None = None, relu: bool = False
) -> Tensor:
    """One Elman step from ``projected = x @ w_ih.T + b_ih``: returns ``h'``."""
    pre = projected + h @ w_hh_t
    if b_hh is not None:
        pre = pre + b_hh
    return pre.relu() if relu else pre.tanh()


def gru_cell(projected: Tensor, h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None = None) -> Tensor:
    """One GRU step from ``projected = x @ w_ih.T + b_ih``: returns ``h'`` (gates r, z, n)."""
    hidden = h @ w_hh_t
    if b_hh is not None:
        hidden = hidden + b_hh
    size = h.shape[-1]
    reset_update = (projected[..., : 2 * size] + hidden[..., : 2 * size]).sigmoid()
    reset, update = reset_update[..., :size], reset_update[..., size:]
    candidate = (projected[..., 2 * size :] + reset * hidden[..., 2 * size :]).tanh()
    return candidate + update * (h - candidate)


def lstm_cell(
    projected: Tensor, h: Tensor, c: Tensor, w_hh_t: Tensor, b_hh: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """One LSTM step from ``projected = x @ w_ih.T + b_ih``: returns ``(h', c')`` (gates i, f, g, o)."""
    gates = projected + h @ w_hh_t
    if b_hh is not None:
        gates = gates + b_hh
    size = h.shape[-1]
    input_forget = gates[..., : 2 * size].sigmoid()
    candidate = gates[..., 2 * size : 3 * size].tanh()
    output_gate = gates[..., 3 * size :].sigmoid()
    c = input_forget[..., size:] * c + input_forget[..., :size] * candidate
    return output_gate * c.tanh(), c


def _sigmoid_into(z: Array, out: Array) -> None:
    # 1 / (1 + exp(-z)) written through tanh: one ufunc, no overflow for any z
    np.multiply(z, 0.5, out=out)
    np.tanh(out, out=out)
    out += 1.0
    out *= 0.5


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
    count per time step, or None) marks packed sequences. A subclass writes ``forward``, the
    array ``backward`` (``array_backward``) and ``cell``, one step as composite ops.
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
        return d_hidden.reshape(-1, gate_size).T @ previous.reshape(-1, previous.shape[-1])

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        if vjp.is_tensor(grad):
            return self._composite_backward(grad, needs)
        return self.array_backward(cast("Array", grad), needs)  # not a Tensor: an array

    def cell(
        self, projected: Tensor, state: tuple[Tensor, ...], w_hh_t: Tensor, *params: Tensor | None
    ) -> tuple[Tensor, ...]:
        """One step on Tensors: the new state tuple from ``state``."""
        raise NotImplementedError

    def array_backward(self, grad: Array, needs: Sequence[bool]) -> _Grads:
        """The first-order backward, on arrays."""
        raise NotImplementedError

    def _composite_backward(self, grad: Tensor, needs: Sequence[bool]) -> _Grads:
        """Under ``create_graph``: the gradient of the composite steps, recomputed and recorded."""
        from ...autograd.creation import cat, stack
        from ...autograd.engine import grad as autograd_grad

        inputs = self.inputs()
        projected, params = inputs[0], inputs[1 + self.state_count :]
        state = tuple(inputs[1 : 1 + self.state_count])
        length, batch = projected.shape[0], projected.shape[1]
        hidden: list[Tensor | None] = [None] * length
        w_hh_t = params[0].t()
        with grad_mode.enable_grad():
            for t, active in self._steps(length, batch):
                new = self.cell(projected[t], state, w_hh_t, *params[1:])
                if active < batch:
                    new = tuple(cat([n[:active], s[active:]]) for n, s in zip(new, state))
                state = new
                hidden[t] = state[0]
            result = stack([h for h in hidden if h is not None] + list(state[1:]))
        wanted = [x for x, need in zip(inputs, needs) if need]
        grads = iter(autograd_grad([result], wanted, [grad], create_graph=True, allow_unused=True))
        return tuple(next(grads) if need else None for need in needs)


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
            np.matmul(previous, w_hh_t, out=h)
            h += projected[t]
            if self.relu:
                np.maximum(h, 0, out=h)
            else:
                np.tanh(h, out=h)
            if active < batch:
                _hold(active, (h, previous))
        self.hidden = out
        return out

    def array_backward(self, grad: Array, needs: Sequence[bool]) -> _Grads:
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
            hidden = h @ w_hh_t
            if b_hh is not None:
                hidden += b_hh
            act = gates[t]
            reset_update, candidate = act[:, : 2 * size], act[:, 2 * size :]
            np.add(projected[t, :, : 2 * size], hidden[:, : 2 * size], out=reset_update)
            _sigmoid_into(reset_update, reset_update)
            candidate_hidden[t] = hidden[:, 2 * size :]
            np.multiply(act[:, :size], candidate_hidden[t], out=candidate)
            candidate += projected[t, :, 2 * size :]
            np.tanh(candidate, out=candidate)
            previous, h = h, out[t]
            np.subtract(previous, candidate, out=h)  # h' = n + z * (h - n)
            h *= act[:, size : 2 * size]
            h += candidate
            if active < batch:
                _hold(active, (h, previous))
        self.gates, self.candidate_hidden, self.hidden = gates, candidate_hidden, out
        return out

    def array_backward(self, grad: Array, needs: Sequence[bool]) -> _Grads:
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
            act = gates[t]
            np.matmul(h, w_hh_t, out=act)
            act += projected[t]
            g = act[:, 2 * size : 3 * size]
            candidate = np.tanh(g)
            _sigmoid_into(act, act)  # all four gates at once (contiguous), then g put back
            g[...] = candidate
            c = cells[t]
            np.multiply(act[:, size : 2 * size], previous_c, out=c)
            c += act[:, :size] * act[:, 2 * size : 3 * size]
            np.tanh(c, out=tanh_cells[t])
            h = out[t]
            np.multiply(act[:, 3 * size :], tanh_cells[t], out=h)
            if active < batch:
                _hold(active, (h, previous_h), (c, previous_c))
        out[length] = c
        self.gates, self.cells, self.tanh_cells, self.hidden = gates, cells, tanh_cells, out
        return out

    def array_backward(self, grad: Array, needs: Sequence[bool]) -> _Grads:
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
