// rnn.cpp - recurrent layers as torch has them: one step (rnn_tanh_cell, rnn_relu_cell, lstm_cell,
// gru_cell) and whole sequences over several layers and both directions (rnn_tanh, rnn_relu, lstm,
// gru), on padded input ([T, B, F], or [B, T, F] with batch_first) or on packed data (the rows of
// every time step in turn, with batch_sizes as nn.utils.rnn.PackedSequence holds them).
//
// Composites: a step is linear, sigmoid and tanh operators, so the derivative and every device come
// from them. As torch does on the CPU, a layer's input projection (x W_ih^T + b_ih) is one product
// over the whole sequence; only the hidden projection runs per step. Padded input is packed data
// whose batch_sizes are all B, so one loop serves both.
#include <string>
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

enum class Cell { Tanh, Relu, Lstm, Gru };

const char* cell_name(Cell c) {
  static constexpr const char* kNames[] = {"rnn_tanh", "rnn_relu", "lstm", "gru"};
  return kNames[static_cast<int>(c)];
}

int64_t gate_count(Cell c) { return c == Cell::Lstm ? 4 : c == Cell::Gru ? 3 : 1; }

Tensor cat_list(const std::vector<Tensor>& parts, int64_t dim) {
  std::vector<const TensorImpl*> ptrs;
  ptrs.reserve(parts.size());
  for (const Tensor& t : parts) ptrs.push_back(t.impl());
  return cat(ptrs, dim);
}

// One layer's weights in one direction, in torch's _flat_weights order: w_ih, w_hh, then b_ih, b_hh
// when the layer has biases, then w_hr when the LSTM projects its output (proj_size > 0).
struct Weights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// One step from gates_x = x W_ih^T + b_ih (already computed) and the state (h, or h and c). Returns
// the new state; its first tensor is the step's output. The arithmetic follows torch's order
// (gru: (h - n) * z + n), so the results round as torch's do.
std::vector<Tensor> step(Cell cell, const Tensor& gates_x, const std::vector<Tensor>& state, const Weights& w) {
  const Tensor gates_h = linear(state[0], w.w_hh, w.b_hh);
  switch (cell) {
    case Cell::Tanh:
      return {tanh(add(gates_h, gates_x))};
    case Cell::Relu:
      return {relu(add(gates_h, gates_x))};
    case Cell::Lstm: {
      const std::vector<Tensor> g = chunk(add(gates_h, gates_x), 4, 1);
      const Tensor c = add(mul(sigmoid(g[1]), state[1]), mul(sigmoid(g[0]), tanh(g[2])));
      Tensor h = mul(sigmoid(g[3]), tanh(c));
      if (w.w_hr.defined()) h = linear(h, w.w_hr);
      return {h, c};
    }
    case Cell::Gru: {
      const std::vector<Tensor> gx = chunk(gates_x, 3, 1), gh = chunk(gates_h, 3, 1);
      const Tensor r = sigmoid(add(gx[0], gh[0])), z = sigmoid(add(gx[1], gh[1]));
      const Tensor n = tanh(add(gx[2], mul(gh[2], r)));
      return {add(mul(sub(state[0], n), z), n)};
    }
  }
  return {};
}

// w_hh is [gates * hidden_size, hidden_size (or proj_size)].
SymInt hidden_size(Cell cell, const Weights& w) {
  return w.w_hh->dim() == 2 ? w.w_hh->sym_size(0) / gate_count(cell) : SymInt(-1);
}

void check_cell(Cell cell, const char* op, const Tensor& x, const Tensor& h, const Weights& w, SymInt hidden) {
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": input is ", x->dtype(), "; it takes a floating dtype");
  for (const Tensor* t : {&h, &w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh, &w.w_hr}) {
    CT_CHECK(!t->defined() || (*t)->dtype() == x->dtype(), CT_ERROR_DTYPE, op, ": input is ", x->dtype(),
             " but a state or weight is ", (*t)->dtype(), ". Give them one dtype");
  }
  CT_CHECK(w.w_ih->dim() == 2 && w.w_hh->dim() == 2 && w.w_ih->sym_size(0) == gate_count(cell) * hidden,
           CT_ERROR_SHAPE, op, ": w_ih ", w.w_ih->sym_sizes(), " and w_hh ", w.w_hh->sym_sizes(), " must both have ",
           gate_count(cell), " * hidden_size rows: [", gate_count(cell) * hidden, ", input_size] and [",
           gate_count(cell) * hidden, ", hidden_size]");
  CT_CHECK(x->sym_size(x->dim() - 1) == w.w_ih->sym_size(1), CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(),
           " has ", x->sym_size(x->dim() - 1), " features but w_ih ", w.w_ih->sym_sizes(), " takes ",
           w.w_ih->sym_size(1));
  const SymInt out = w.w_hr.defined() ? w.w_hr->sym_size(0) : hidden;
  CT_CHECK(w.w_hh->sym_size(0) == gate_count(cell) * hidden && w.w_hh->sym_size(1) == out, CT_ERROR_SHAPE, op,
           ": w_hh is ", w.w_hh->sym_sizes(), "; it must be [", gate_count(cell) * hidden, ", ", out, "]");
  for (const Tensor* b : {&w.b_ih, &w.b_hh}) {
    CT_CHECK(!b->defined() || ((*b)->dim() == 1 && (*b)->sym_size(0) == gate_count(cell) * hidden), CT_ERROR_SHAPE,
             op, ": a bias is ", (*b)->sym_sizes(), "; it must be [", gate_count(cell) * hidden, "]");
  }
}

// ---- One step: rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell --------------------------------

// rnn_tanh_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None)
// lstm_cell(Tensor input, Tensor[] hx, ...) -> (Tensor, Tensor), hx = [h, c].
template <Cell C>
void cell_kernel(void*, Frame& f) {
  const std::string op = std::string(cell_name(C)) + "_cell";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  std::vector<Tensor> state;
  if (C == Cell::Lstm) {
    const ArrayRef<const TensorImpl*> hx = f.arg(1).tensor_list();
    CT_CHECK(hx.size() == 2, CT_ERROR_INVALID_ARGUMENT, op, ": hx holds ", hx.size(),
             " tensors; it takes two, [h, c]");
    state = {Tensor::borrow(hx[0]), Tensor::borrow(hx[1])};
  } else {
    state = {Tensor::borrow(&f.tensor(1))};
  }
  const Weights w{Tensor::borrow(&f.tensor(2)), Tensor::borrow(&f.tensor(3)), optional_tensor(f, 4),
                  optional_tensor(f, 5), Tensor()};
  CT_CHECK(x->dim() == 2, CT_ERROR_SHAPE, op.c_str(), ": input is ", x->sym_sizes(),
           "; it takes [batch, input_size] (nn.", C == Cell::Lstm ? "LSTMCell" : C == Cell::Gru ? "GRUCell" : "RNNCell",
           " also takes one unbatched row)");
  const SymInt hidden = hidden_size(C, w);
  for (const Tensor& s : state) {
    CT_CHECK(s->dim() == 2 && s->sym_size(0) == x->sym_size(0) && s->sym_size(1) == hidden, CT_ERROR_SHAPE,
             op.c_str(), ": input is ", x->sym_sizes(), " and w_hh ", w.w_hh->sym_sizes(), ", so the state must be [",
             x->sym_size(0), ", ", hidden, "], but it is ", s->sym_sizes());
  }
  check_cell(C, op.c_str(), x, state[0], w, hidden);
  const std::vector<Tensor> next = step(C, linear(x, w.w_ih, w.b_ih), state, w);
  for (size_t i = 0; i < next.size(); ++i) f.outs[i] = next[i];
}

// ---- Whole sequences ----------------------------------------------------------------------------

struct Stack {
  Cell cell;
  bool has_biases;
  int64_t num_layers;
  double dropout;
  bool train;
  bool bidirectional;
};

// Reads params (num_layers * directions groups of 2, 4 or 5 tensors) into weights per layer and
// direction; an LSTM group with one more tensor than its biases need carries w_hr.
std::vector<Weights> read_weights(const char* op, const Stack& s, ArrayRef<const TensorImpl*> params) {
  const int64_t dirs = s.bidirectional ? 2 : 1, groups = s.num_layers * dirs;
  const int64_t base = s.has_biases ? 4 : 2;
  CT_CHECK(s.num_layers >= 1, CT_ERROR_INVALID_ARGUMENT, op, ": num_layers is ", s.num_layers, "; pass 1 or more");
  const int64_t n = static_cast<int64_t>(params.size());
  const bool projected = s.cell == Cell::Lstm && n == groups * (base + 1);
  CT_CHECK(n == groups * base || projected, CT_ERROR_INVALID_ARGUMENT, op, ": params holds ", n, " tensors; ",
           s.num_layers, " layer(s) in ", dirs, " direction(s) ", s.has_biases ? "with" : "without", " biases take ",
           groups * base, s.cell == Cell::Lstm ? " (one more per group with proj_size)" : "");
  const int64_t per = projected ? base + 1 : base;
  std::vector<Weights> out;
  for (int64_t g = 0; g < groups; ++g) {
    const TensorImpl* const* p = params.data() + g * per;
    Weights w{Tensor::borrow(p[0]), Tensor::borrow(p[1]), Tensor(), Tensor(), Tensor()};
    if (s.has_biases) {
      w.b_ih = Tensor::borrow(p[2]);
      w.b_hh = Tensor::borrow(p[3]);
    }
    if (projected) w.w_hr = Tensor::borrow(p[base]);
    out.push_back(w);
  }
  return out;
}

// One direction of one layer over packed rows. x: [rows, F]; sizes: rows per time step (not
// increasing); state: [B, H] each. Returns the outputs [rows, H_out] and the final state, rows in
// batch order. A forward pass drops finished sequences from the state as the batch shrinks; a
// reverse pass starts at the last step and adds each sequence's initial state when it begins.
Tensor run_direction(Cell cell, const Tensor& x, const std::vector<int64_t>& sizes, std::vector<Tensor> state,
                     const Weights& w, bool reverse, std::vector<Tensor>* final_state) {
  const Tensor gates_x = linear(x, w.w_ih, w.b_ih);
  const int64_t steps = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> offsets(sizes.size() + 1, 0);
  for (int64_t t = 0; t < steps; ++t) offsets[t + 1] = offsets[t] + sizes[t];
  std::vector<Tensor> outputs(sizes.size());
  const std::vector<Tensor> initial = state;
  std::vector<std::vector<Tensor>> finished(state.size());  // forward: rows dropped, last rows first
  int64_t rows = reverse ? 0 : sizes[0];
  if (reverse) {
    for (Tensor& s : state) s = narrow(s, 0, 0, 0);
  }
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t t = reverse ? steps - 1 - i : i, b = sizes[t];
    if (b != rows) {
      for (size_t k = 0; k < state.size(); ++k) {
        if (b < rows) {
          finished[k].push_back(narrow(state[k], 0, b, rows - b));
          state[k] = narrow(state[k], 0, 0, b);
        } else {
          state[k] = cat_list({state[k], narrow(initial[k], 0, rows, b - rows)}, 0);
        }
      }
      rows = b;
    }
    state = step(cell, narrow(gates_x, 0, offsets[t], b), state, w);
    outputs[t] = state[0];
  }
  for (size_t k = 0; k < state.size(); ++k) {
    std::vector<Tensor> parts{state[k]};
    parts.insert(parts.end(), finished[k].rbegin(), finished[k].rend());
    (*final_state)[k] = parts.size() == 1 ? parts[0] : cat_list(parts, 0);
  }
  return outputs.size() == 1 ? outputs[0] : cat_list(outputs, 0);
}

// The layers over packed rows x [rows, F] with hx (one [L * D, B, H] tensor, two for an LSTM).
// Returns the output rows and the final states, [L * D, B, H] each.
std::vector<Tensor> run_stack(const char* op, const Stack& s, Tensor x, const std::vector<int64_t>& sizes,
                              const std::vector<Tensor>& hx, ArrayRef<const TensorImpl*> params) {
  const std::vector<Weights> weights = read_weights(op, s, params);
  const int64_t dirs = s.bidirectional ? 2 : 1, groups = s.num_layers * dirs;
  const SymInt hidden = hidden_size(s.cell, weights[0]);
  const int64_t batch = sizes[0];
  CT_CHECK(s.dropout >= 0 && s.dropout <= 1, CT_ERROR_INVALID_ARGUMENT, op, ": dropout is ", s.dropout,
           ". Pass a probability in [0, 1]");
  for (size_t k = 0; k < hx.size(); ++k) {
    const SymInt size = k == 0 && weights[0].w_hr.defined() ? weights[0].w_hr->sym_size(0) : hidden;
    CT_CHECK(hx[k]->dim() == 3 && hx[k]->sym_size(0) == groups && hx[k]->sym_size(1) == batch &&
                 hx[k]->sym_size(2) == size,
             CT_ERROR_SHAPE, op, ": ", k == 0 ? "h_0" : "c_0", " is ", hx[k]->sym_sizes(), "; ", s.num_layers,
             " layer(s) in ", dirs, " direction(s) over a batch of ", batch, " take [", groups, ", ", batch, ", ", size,
             "]");
  }
  std::vector<std::vector<Tensor>> finals(hx.size(), std::vector<Tensor>(static_cast<size_t>(groups)));
  for (int64_t layer = 0; layer < s.num_layers; ++layer) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t g = layer * dirs + d;
      CT_CHECK(hidden_size(s.cell, weights[g]) == hidden, CT_ERROR_SHAPE, op, ": layer ", layer, "'s w_hh is ",
               weights[g].w_hh->sym_sizes(), "; every layer takes hidden_size ", hidden);
      check_cell(s.cell, op, x, hx[0], weights[g], hidden);
      std::vector<Tensor> state, last(hx.size());
      for (const Tensor& h : hx) state.push_back(select(h, 0, g));
      outs.push_back(run_direction(s.cell, x, sizes, state, weights[g], d == 1, &last));
      for (size_t k = 0; k < hx.size(); ++k) finals[k][static_cast<size_t>(g)] = last[k];
    }
    x = dirs == 1 ? outs[0] : cat_list(outs, 1);
    if (s.dropout > 0 && s.train && layer + 1 < s.num_layers) x = dropout(x, s.dropout, true);
  }
  std::vector<Tensor> result{x};
  for (const std::vector<Tensor>& f : finals) {
    std::vector<const TensorImpl*> ptrs;
    for (const Tensor& t : f) ptrs.push_back(t.impl());
    result.push_back(stack(ptrs, 0));
  }
  return result;
}

// The initial state: hx is one tensor for rnn_* and gru, a list [h_0, c_0] for lstm.
std::vector<Tensor> read_hx(Cell cell, const char* op, const Value& v) {
  if (cell != Cell::Lstm) return {Tensor::borrow(&v.tensor())};
  const ArrayRef<const TensorImpl*> hx = v.tensor_list();
  CT_CHECK(hx.size() == 2, CT_ERROR_INVALID_ARGUMENT, op, ": hx holds ", hx.size(), " tensors; it takes [h_0, c_0]");
  return {Tensor::borrow(hx[0]), Tensor::borrow(hx[1])};
}

// lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers,
//     float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)
template <Cell C>
void sequence_kernel(void*, Frame& f) {
  const char* op = cell_name(C);
  Tensor input = Tensor::borrow(&f.tensor(0));
  const std::vector<Tensor> hx = read_hx(C, op, f.arg(1));
  const Stack s{C, f.arg(3).to_bool(), f.arg(4).to_int(), f.arg(5).to_double(), f.arg(6).to_bool(),
                f.arg(7).to_bool()};
  const bool batch_first = f.arg(8).to_bool();
  CT_CHECK(input->dim() == 3, CT_ERROR_SHAPE, op, ": input is ", input->sym_sizes(), "; it takes ",
           batch_first ? "[batch, seq, feature]" : "[seq, batch, feature]",
           " (the nn modules also take one unbatched sequence)");
  if (batch_first) input = transpose(input, 0, 1);
  const int64_t steps = input->sym_size(0).guard_int(), batch = input->sym_size(1).guard_int();
  const int64_t features = input->sym_size(2).guard_int();
  CT_CHECK(steps > 0, CT_ERROR_SHAPE, op, ": input ", input->sym_sizes(), " has no time steps");
  // An empty batch computes nothing at any step: one step of no rows gives the output's width and
  // leaves the states as they are, however many steps there are.
  const std::vector<int64_t> sizes = batch == 0 ? std::vector<int64_t>{0}
                                                : std::vector<int64_t>(static_cast<size_t>(steps), batch);
  const int64_t rows = checked_numel(DimVector{steps, batch}, op);
  std::vector<Tensor> r = run_stack(op, s, reshape(input, DimVector{rows, features}), sizes, hx,
                                    f.arg(2).tensor_list());
  Tensor out = reshape_symint(r[0], SymDimVector{steps, batch, r[0]->sym_size(1)});
  if (batch_first) out = transpose(out, 0, 1);
  f.outs[0] = out;
  for (size_t i = 1; i < r.size(); ++i) f.outs[i] = r[i];
}

// lstm.data(Tensor data, Tensor batch_sizes, Tensor[] hx, Tensor[] params, bool has_biases,
//     int num_layers, float dropout, bool train, bool bidirectional) -> (Tensor, Tensor, Tensor)
template <Cell C>
void packed_kernel(void*, Frame& f) {
  const char* op = cell_name(C);
  const Tensor data = Tensor::borrow(&f.tensor(0)), batch_sizes = Tensor::borrow(&f.tensor(1));
  const std::vector<Tensor> hx = read_hx(C, op, f.arg(2));
  const Stack s{C, f.arg(4).to_bool(), f.arg(5).to_int(), f.arg(6).to_double(), f.arg(7).to_bool(),
                f.arg(8).to_bool()};
  CT_CHECK(data->dim() == 2, CT_ERROR_SHAPE, op, ": packed data is ", data->sym_sizes(), "; it takes [rows, feature]");
  CT_CHECK(batch_sizes->dtype() == DType::Int64 && batch_sizes->dim() == 1 && !batch_sizes->device().is_meta(),
           CT_ERROR_INVALID_ARGUMENT, op, ": batch_sizes is ", batch_sizes->dtype(), " ", batch_sizes->sym_sizes(),
           " on ", batch_sizes->device(), "; it takes the int64 rows per step, as PackedSequence holds them");
  const Tensor host = host_contiguous(batch_sizes);  // Note [Values read on the host]
  const int64_t* bs = host->data_as<int64_t>();
  std::vector<int64_t> sizes(bs, bs + host->numel());
  CT_CHECK(!sizes.empty(), CT_ERROR_SHAPE, op, ": batch_sizes is empty; a packed sequence has at least one step");
  int64_t rows = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    CT_CHECK(sizes[t] > 0 && (t == 0 || sizes[t] <= sizes[t - 1]), CT_ERROR_INVALID_ARGUMENT, op,
             ": batch_sizes must be positive and not increasing (sequences sorted longest first); step ", t, " has ",
             sizes[t]);
    rows += sizes[t];
  }
  CT_CHECK(data->sym_size(0) == rows, CT_ERROR_SHAPE, op, ": packed data has ", data->sym_size(0),
           " rows but batch_sizes sum to ", rows);
  std::vector<Tensor> r = run_stack(op, s, data, sizes, hx, f.arg(3).tensor_list());
  for (size_t i = 0; i < r.size(); ++i) f.outs[i] = r[i];
}

}  // namespace

void define_rnn(Registry& r) {
  const std::string cell_args = "Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None)";
  r.def("rnn_tanh_cell(Tensor input, Tensor hx, " + cell_args + " -> Tensor").composite(cell_kernel<Cell::Tanh>);
  r.def("rnn_relu_cell(Tensor input, Tensor hx, " + cell_args + " -> Tensor").composite(cell_kernel<Cell::Relu>);
  r.def("gru_cell(Tensor input, Tensor hx, " + cell_args + " -> Tensor").composite(cell_kernel<Cell::Gru>);
  r.def("lstm_cell(Tensor input, Tensor[] hx, " + cell_args + " -> (Tensor, Tensor)")
      .composite(cell_kernel<Cell::Lstm>);

  const std::string stack_args = "Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
                                 "bool bidirectional";
  for (const char* name : {"rnn_tanh", "rnn_relu", "gru"}) {
    const Cell c = std::string(name) == "gru" ? Cell::Gru : std::string(name) == "rnn_tanh" ? Cell::Tanh : Cell::Relu;
    const KernelFn padded = c == Cell::Gru ? sequence_kernel<Cell::Gru>
                            : c == Cell::Tanh ? sequence_kernel<Cell::Tanh>
                                              : sequence_kernel<Cell::Relu>;
    const KernelFn packed = c == Cell::Gru ? packed_kernel<Cell::Gru>
                            : c == Cell::Tanh ? packed_kernel<Cell::Tanh>
                                              : packed_kernel<Cell::Relu>;
    r.def(std::string(name) + ".input(Tensor input, Tensor hx, " + stack_args +
          ", bool batch_first) -> (Tensor, Tensor)")
        .composite(padded);
    r.def(std::string(name) + ".data(Tensor data, Tensor batch_sizes, Tensor hx, " + stack_args +
          ") -> (Tensor, Tensor)")
        .composite(packed);
  }
  r.def("lstm.input(Tensor input, Tensor[] hx, " + stack_args + ", bool batch_first) -> (Tensor, Tensor, Tensor)")
      .composite(sequence_kernel<Cell::Lstm>);
  r.def("lstm.data(Tensor data, Tensor batch_sizes, Tensor[] hx, " + stack_args + ") -> (Tensor, Tensor, Tensor)")
      .composite(packed_kernel<Cell::Lstm>);
}

}  // namespace ct::ops
