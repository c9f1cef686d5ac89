"""Recurrent steps: ``lstm_cell`` (one step, a composite of small ops) and ``LSTMSequence``, one
direction of an LSTM layer over a whole sequence as a single op.

The sequence op runs the time loop on arrays: per step one matrix product with ``weight_hh`` and
the gate arithmetic on the four gates together, and in backward the reverse loop with one product
per step, the ``weight_hh`` gradient then coming from one product over all steps. Under
``create_graph`` its gradient is the one of the composite steps, recomputed, so that gradients of
gradients exist.
"""

import numpy as np

from ...autograd import grad_mode
from ...autograd.op import Op
from ...autograd.ops import vjp


def lstm_cell(projected, h, c, w_hh_t, b_hh=None):
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


def _sigmoid_into(z, out):
    # 1 / (1 + exp(-z)) written through tanh: one ufunc, no overflow for any z
    np.multiply(z, 0.5, out=out)
    np.tanh(out, out=out)
    out += 1.0
    out *= 0.5


class LSTMSequence(Op):
    """One direction of an LSTM layer over ``projected`` (L, B, 4H), the input already multiplied by
    ``weight_ih`` with both biases added, from states ``h0``, ``c0`` (B, H) and ``weight_hh`` (4H, H).

    The result is (L + 1, B, H): the hidden state of every time step in time order, then the final
    cell state. ``reverse`` runs from the last time step to the first.
    """

    node_name = "LstmSequenceBackward0"
    saved_inputs = (0, 1, 2, 3)
    reverse = False

    def _order(self, length):
        return range(length - 1, -1, -1) if self.reverse else range(length)

    def forward(self, projected, h0, c0, w_hh):
        length, batch, gate_size = projected.shape
        size = gate_size // 4
        dtype = np.result_type(projected, h0, c0, w_hh)
        out = np.empty((length + 1, batch, size), dtype)
        gates = np.empty((length, batch, gate_size), dtype)  # activated i, f, g, o
        cells = np.empty((length, batch, size), dtype)
        tanh_cells = np.empty((length, batch, size), dtype)
        w_hh_t = w_hh.T
        h, c = h0, c0
        for t in self._order(length):
            previous_c = c
            z = projected[t] + h @ w_hh_t
            act = gates[t]
            _sigmoid_into(z[:, : 2 * size], act[:, : 2 * size])
            np.tanh(z[:, 2 * size : 3 * size], out=act[:, 2 * size : 3 * size])
            _sigmoid_into(z[:, 3 * size :], act[:, 3 * size :])
            c = cells[t]
            np.multiply(act[:, size : 2 * size], previous_c, out=c)
            c += act[:, :size] * act[:, 2 * size : 3 * size]
            np.tanh(c, out=tanh_cells[t])
            h = out[t]
            np.multiply(act[:, 3 * size :], tanh_cells[t], out=h)
        out[length] = c
        self.gates, self.cells, self.tanh_cells, self.hidden = gates, cells, tanh_cells, out
        return out

    def _previous(self, states, first):
        """The state entering each time step: ``first`` at the first step, else the neighbour's."""
        if not len(states):
            return states
        if self.reverse:
            return np.concatenate([states[1:], first[None]])
        return np.concatenate([first[None], states[:-1]])

    def backward(self, grad, needs):
        if vjp.is_tensor(grad):
            return self._composite_backward(grad, needs)
        projected, h0, c0, w_hh = self.inputs()
        length, batch, gate_size = projected.shape
        size = gate_size // 4
        gates, tanh_cells = self.gates, self.tanh_cells
        previous_cells = self._previous(self.cells, np.asarray(c0))
        d_gates = np.empty_like(gates)
        dh_next = np.zeros((batch, size), grad.dtype)
        dc_next = np.array(grad[length])
        for t in reversed(self._order(length)):
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
            dc_next = dc * f
            dh_next = d @ w_hh
        d_w_hh = None
        if needs[3]:
            previous_hidden = self._previous(self.hidden[:length], np.asarray(h0))
            d_w_hh = d_gates.reshape(-1, gate_size).T @ previous_hidden.reshape(-1, size)
        return (
            d_gates if needs[0] else None,
            dh_next if needs[1] else None,
            dc_next if needs[2] else None,
            d_w_hh,
        )

    def _composite_backward(self, grad, needs):
        """Under ``create_graph``: the gradient of the composite steps, recomputed and recorded."""
        from ...autograd.creation import stack
        from ...autograd.engine import grad as autograd_grad

        projected, h0, c0, w_hh = self.inputs()
        h, c = h0, c0
        hidden = [None] * projected.shape[0]
        w_hh_t = w_hh.t()
        with grad_mode.enable_grad():
            for t in self._order(projected.shape[0]):
                h, c = lstm_cell(projected[t], h, c, w_hh_t)
                hidden[t] = h
            result = stack(hidden + [c])
        wanted = [x for x, need in zip((projected, h0, c0, w_hh), needs) if need]
        grads = iter(autograd_grad([result], wanted, [grad], create_graph=True, allow_unused=True))
        return tuple(next(grads) if need else None for need in needs)
