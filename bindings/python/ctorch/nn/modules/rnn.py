"""RNN, LSTM, GRU and their cells (torch.nn's), over the library's recurrent operators.

The layers hold torch's parameters under torch's names (weight_ih_l0, bias_hh_l1_reverse,
weight_hr_l0 with proj_size), so state dicts move between ctorch and torch. forward calls one
operator (ctorch.ops.lstm, gru, rnn_tanh, rnn_relu) for the whole stack of layers, on a padded batch
or on a PackedSequence; the cells call lstm_cell, gru_cell and rnn_*_cell.
"""

import math
import numbers
import warnings

from ... import ops as _ops
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_OPERATORS = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def _permute(hx, permutation):
    return hx if permutation is None else hx.index_select(1, permutation)


class RNNBase(Module):
    """The layers' shared parameters and forward; mode is 'LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU'."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        from ... import empty

        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError(f"hidden_size must be a positive integer, got {hidden_size!r}")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"num_layers must be a positive integer, got {num_layers!r}")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(*shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as torch's."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Does nothing: ctorch keeps each weight its own tensor, and there is no fused weight buffer
        to compact (torch's is cuDNN's)."""

    def _initial_state(self, input, batch):
        from ... import zeros

        directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h = zeros(self.num_layers * directions, batch, real_hidden, dtype=input.dtype, device=input.device)
        if self.mode != "LSTM":
            return h
        return h, zeros(self.num_layers * directions, batch, self.hidden_size, dtype=input.dtype,
                        device=input.device)

    def forward(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        operator = _OPERATORS[self.mode]
        lstm = self.mode == "LSTM"
        if packed:
            data, batch_sizes, sorted_indices, unsorted_indices = input
            batch = int(batch_sizes[0])
            batched = True
        else:
            batched = input.dim() == 3
            if input.dim() not in (2, 3):
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
            if not batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
            batch = input.shape[0 if self.batch_first else 1]
            sorted_indices = unsorted_indices = None
        if hx is None:
            hx = self._initial_state(data if packed else input, batch)
        else:
            if not batched:
                hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
            hx = tuple(_permute(h, sorted_indices) for h in hx) if lstm else _permute(hx, sorted_indices)
        state = list(hx) if lstm else hx
        options = (self.bias, self.num_layers, self.dropout, self.training, self.bidirectional)
        if packed:
            result = _ops.call(operator, data, batch_sizes, state, self._flat_weights, *options)
        else:
            result = _ops.call(operator, input, state, self._flat_weights, *options, self.batch_first)
        output, hidden = result[0], (tuple(result[1:]) if lstm else result[1])
        if packed:
            output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            hidden = tuple(_permute(h, unsorted_indices) for h in hidden) if lstm else \
                _permute(hidden, unsorted_indices)
        elif not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = tuple(h.squeeze(1) for h in hidden) if lstm else hidden.squeeze(1)
        return output, hidden

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """An Elman RNN: h_t = nonlinearity(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), tanh or relu."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:  # RNN(input_size, hidden_size, num_layers, nonlinearity, bias, ...)
            nonlinearity, args = args[3], args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; returns output, (h_n, c_n). proj_size > 0 projects
    h_t to proj_size features (weight_hr)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: gates r, z, n, h_t = (1 - z) * n + z * h_{t-1}."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """One step's parameters: weight_ih [gates * hidden, input], weight_hh, and the two biases."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        from ... import empty

        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _step(self, operator, input, hx, lstm):
        from ... import zeros

        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            h = zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (h, h) if lstm else h
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if lstm else hx.unsqueeze(0)
        state = list(hx) if lstm else hx
        out = _ops.call(operator, input, state, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if lstm else out.squeeze(0)
        return tuple(out) if lstm else out


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        return self._step("rnn_tanh_cell" if self.nonlinearity == "tanh" else "rnn_relu_cell", input, hx, False)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        return self._step("lstm_cell", input, hx, True)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._step("gru_cell", input, hx, False)
