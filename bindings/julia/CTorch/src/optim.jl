# optim.jl - optimizers over the library's (ctorch.h "Training": ct_optimizer_*). The update formulas
# run in the library; this file maps torch.optim's keyword names onto ct_optimizer_options.

"""
    CTorch.Optimizer

An optimizer of the library (`ct_optimizer`): one group of parameters, its hyperparameters and
per-parameter state (momentum buffers, moments, step counts). Make one with `CTorch.SGD`,
`CTorch.Adam`, `CTorch.AdamW`, `CTorch.RMSprop`, `CTorch.Adagrad`, `CTorch.Adamax`, `CTorch.NAdam`,
`CTorch.RAdam`, `CTorch.Adadelta`, `CTorch.ASGD`, `CTorch.Rprop` or `CTorch.LBFGS`; use it with
`CTorch.step!` (LBFGS: `CTorch.step!(closure, opt)`), `CTorch.zero_grad!`, `CTorch.optimizer_state`,
`CTorch.lr`/`CTorch.lr!`, `CTorch.options`/`CTorch.set_options!` and
`CTorch.save_state`/`CTorch.load_state!`. The library retains the parameters (the same tensors,
not copies) until the optimizer is released: by a finalizer, or at once by `close(opt)` (later
calls then throw `CTorchError` `CT_ERROR_INVALID_ARGUMENT`).
"""
mutable struct Optimizer
    ptr::Ptr{L.ct_optimizer}   # C_NULL once closed
    kind::Cint                 # INVARIANT: a ct_optimizer_kind, the one the library holds
    function Optimizer(p::Ptr{L.ct_optimizer}, kind::Cint)
        o = new(p, kind)
        finalizer(o -> (p = o.ptr; o.ptr = C_NULL; L.ct_optimizer_release(p)), o)
        return o
    end
end

Base.unsafe_convert(::Type{Ptr{L.ct_optimizer}}, o::Optimizer) = o.ptr
Base.close(o::Optimizer) = (p = o.ptr; o.ptr = C_NULL; L.ct_optimizer_release(p); nothing)
Base.isopen(o::Optimizer) = o.ptr != C_NULL

# Per kind: its name and the keywords it takes (torch.optim's names; `betas` is a pair).
const OPTIMIZER_KINDS = Dict{Cint,Tuple{Symbol,Tuple}}(
    L.CT_OPTIMIZER_SGD => (:SGD, (:lr, :momentum, :dampening, :weight_decay, :nesterov, :maximize)),
    L.CT_OPTIMIZER_ADAM => (:Adam, (:lr, :betas, :eps, :weight_decay, :amsgrad, :maximize)),
    L.CT_OPTIMIZER_ADAMW => (:AdamW, (:lr, :betas, :eps, :weight_decay, :amsgrad, :maximize)),
    L.CT_OPTIMIZER_RMSPROP => (:RMSprop, (:lr, :alpha, :eps, :weight_decay, :momentum, :centered, :maximize)),
    L.CT_OPTIMIZER_ADAGRAD => (:Adagrad, (:lr, :lr_decay, :weight_decay, :initial_accumulator_value, :eps, :maximize)),
    L.CT_OPTIMIZER_ADAMAX => (:Adamax, (:lr, :betas, :eps, :weight_decay, :maximize)),
    L.CT_OPTIMIZER_NADAM => (:NAdam, (:lr, :betas, :eps, :weight_decay, :momentum_decay, :decoupled_weight_decay,
                                      :maximize)),
    L.CT_OPTIMIZER_RADAM => (:RAdam, (:lr, :betas, :eps, :weight_decay, :decoupled_weight_decay, :maximize)),
    L.CT_OPTIMIZER_ADADELTA => (:Adadelta, (:lr, :rho, :eps, :weight_decay, :maximize)),
    L.CT_OPTIMIZER_ASGD => (:ASGD, (:lr, :lambd, :alpha, :t0, :weight_decay, :maximize)),
    L.CT_OPTIMIZER_RPROP => (:Rprop, (:lr, :etas, :step_sizes, :maximize)),
    L.CT_OPTIMIZER_LBFGS => (:LBFGS, (:lr, :max_iter, :max_eval, :tolerance_grad, :tolerance_change, :history_size,
                                      :line_search_fn)))
const OPTION_FLAGS = (:nesterov, :amsgrad, :centered, :maximize, :decoupled_weight_decay)
const OPTION_INTS = (:max_iter, :max_eval, :history_size)
# torch's pairs and the two C fields of each.
const OPTION_PAIRS = Dict(:betas => (:beta1, :beta2), :etas => (:etaminus, :etaplus),
                          :step_sizes => (:step_size_min, :step_size_max))

"""A copy of the struct o with the fields in `changes` replaced."""
_replace(o::T, changes::Dict{Symbol,Any}) where {T} =
    T((haskey(changes, f) ? convert(fieldtype(T, f), changes[f]) : getfield(o, f) for f in fieldnames(T))...)

"""The C fields behind the keyword `key` set to `value` (checking the types; the library checks ranges)."""
function _option_fields!(changes::Dict{Symbol,Any}, key::Symbol, value)
    if haskey(OPTION_PAIRS, key)
        (value isa Tuple && length(value) == 2 && all(x -> x isa Real, value)) ||
            throw(ArgumentError("$key must be a pair of numbers like (0.5, 1.2), got $(repr(value))"))
        first, second = OPTION_PAIRS[key]
        changes[first] = Float64(value[1])
        changes[second] = Float64(value[2])
    elseif key === :line_search_fn
        value in (nothing, :strong_wolfe, "strong_wolfe") ||
            throw(ArgumentError("line_search_fn must be nothing or :strong_wolfe, got $(repr(value))"))
        changes[:strong_wolfe] = Cint(value !== nothing)
    elseif key in OPTION_INTS
        value isa Integer || throw(ArgumentError("$key must be an integer, got $(repr(value))"))
        changes[key] = Int64(value)
    elseif key in OPTION_FLAGS
        value isa Bool || throw(ArgumentError("$key must be true or false, got $(repr(value))"))
        changes[key] = Cint(value)
    else
        value isa Real || throw(ArgumentError("$key must be a number, got $(repr(value))"))
        changes[key] = Float64(value)
    end
    return changes
end

function _default_options(kind::Cint)
    o = Ref{L.ct_optimizer_options}()
    check(L.ct_optimizer_options_default(kind, o))
    return o[]
end

"""ct_optimizer_options with kind's defaults, then the keywords that are not `nothing`."""
function _options(kind::Cint, kw::NamedTuple)
    changes = Dict{Symbol,Any}()
    for (k, v) in pairs(kw)
        v === nothing || _option_fields!(changes, k, v)  # line_search_fn's nothing is the default
    end
    return _replace(_default_options(kind), changes)
end

function _optimizer(kind::Cint, params, kw)
    ps = parameters(params)
    o = Ref(_options(kind, kw))
    ptrs = Ptr{L.ct_tensor}[open_ptr(p, "an optimizer's parameters") for p in ps]
    out = Ref{Ptr{L.ct_optimizer}}(C_NULL)
    GC.@preserve ps ptrs check(L.ct_optimizer_create(isempty(ptrs) ? C_NULL : pointer(ptrs), length(ptrs), o, out))
    return Optimizer(out[], kind)
end

"""
    CTorch.SGD(params; lr, momentum, dampening, weight_decay, nesterov, maximize) -> Optimizer

torch.optim.SGD over `params`: a vector of tensors, or a model (`CTorch.parameters(model)` is
taken). A keyword left out keeps PyTorch's default as the library gives it
(`ct_optimizer_options_default`): lr 1e-3, momentum 0, dampening 0, weight_decay 0, nesterov
false, maximize false. Out-of-range values throw `CTorchError` (`CT_ERROR_INVALID_ARGUMENT`, naming
the field), as do parameters that are not floating (or complex) leaf tensors. Complex parameters,
taken by every optimizer but LBFGS, are stepped as their real and imaginary parts, as torch 2.x does.
"""
SGD(params; lr = nothing, momentum = nothing, dampening = nothing, weight_decay = nothing, nesterov = nothing,
    maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_SGD, params, (lr = lr, momentum = momentum, dampening = dampening,
                                             weight_decay = weight_decay, nesterov = nesterov, maximize = maximize))

"""
    CTorch.Adam(params; lr, betas, eps, weight_decay, amsgrad, maximize) -> Optimizer

torch.optim.Adam (L2 weight decay added to the gradient). Defaults (the library's): lr 1e-3, betas
(0.9, 0.999), eps 1e-8, weight_decay 0, amsgrad false, maximize false. See `CTorch.SGD`.
"""
Adam(params; lr = nothing, betas = nothing, eps = nothing, weight_decay = nothing, amsgrad = nothing,
     maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_ADAM, params, (lr = lr, betas = betas, eps = eps, weight_decay = weight_decay,
                                              amsgrad = amsgrad, maximize = maximize))

"""
    CTorch.AdamW(params; lr, betas, eps, weight_decay, amsgrad, maximize) -> Optimizer

torch.optim.AdamW (decoupled weight decay: `p *= 1 - lr * weight_decay` before the Adam step).
Defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 1e-2, amsgrad false, maximize false.
"""
AdamW(params; lr = nothing, betas = nothing, eps = nothing, weight_decay = nothing, amsgrad = nothing,
      maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_ADAMW, params, (lr = lr, betas = betas, eps = eps, weight_decay = weight_decay,
                                               amsgrad = amsgrad, maximize = maximize))

"""
    CTorch.RMSprop(params; lr, alpha, eps, weight_decay, momentum, centered, maximize) -> Optimizer

torch.optim.RMSprop. Defaults: lr 1e-2, alpha 0.99, eps 1e-8, weight_decay 0, momentum 0, centered
false, maximize false.
"""
RMSprop(params; lr = nothing, alpha = nothing, eps = nothing, weight_decay = nothing, momentum = nothing,
        centered = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_RMSPROP, params, (lr = lr, alpha = alpha, eps = eps, weight_decay = weight_decay,
                                                 momentum = momentum, centered = centered, maximize = maximize))

"""
    CTorch.Adagrad(params; lr, lr_decay, weight_decay, initial_accumulator_value, eps, maximize) -> Optimizer

torch.optim.Adagrad. Defaults: lr 1e-2, lr_decay 0, weight_decay 0, initial_accumulator_value 0,
eps 1e-10, maximize false.
"""
Adagrad(params; lr = nothing, lr_decay = nothing, weight_decay = nothing, initial_accumulator_value = nothing,
        eps = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_ADAGRAD, params, (lr = lr, lr_decay = lr_decay, weight_decay = weight_decay,
                                                 initial_accumulator_value = initial_accumulator_value, eps = eps,
                                                 maximize = maximize))

"""
    CTorch.Adamax(params; lr, betas, eps, weight_decay, maximize) -> Optimizer

torch.optim.Adamax (Adam with an infinity-norm second moment). Defaults: lr 2e-3, betas (0.9,
0.999), eps 1e-8, weight_decay 0, maximize false.
"""
Adamax(params; lr = nothing, betas = nothing, eps = nothing, weight_decay = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_ADAMAX, params, (lr = lr, betas = betas, eps = eps, weight_decay = weight_decay,
                                                maximize = maximize))

"""
    CTorch.NAdam(params; lr, betas, eps, weight_decay, momentum_decay, decoupled_weight_decay, maximize) -> Optimizer

torch.optim.NAdam (Nesterov momentum in Adam). Defaults: lr 2e-3, betas (0.9, 0.999), eps 1e-8,
weight_decay 0, momentum_decay 4e-3, decoupled_weight_decay false, maximize false.
"""
NAdam(params; lr = nothing, betas = nothing, eps = nothing, weight_decay = nothing, momentum_decay = nothing,
      decoupled_weight_decay = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_NADAM, params, (lr = lr, betas = betas, eps = eps, weight_decay = weight_decay,
                                               momentum_decay = momentum_decay,
                                               decoupled_weight_decay = decoupled_weight_decay, maximize = maximize))

"""
    CTorch.RAdam(params; lr, betas, eps, weight_decay, decoupled_weight_decay, maximize) -> Optimizer

torch.optim.RAdam (rectified Adam). Defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8,
weight_decay 0, decoupled_weight_decay false, maximize false.
"""
RAdam(params; lr = nothing, betas = nothing, eps = nothing, weight_decay = nothing,
      decoupled_weight_decay = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_RADAM, params, (lr = lr, betas = betas, eps = eps, weight_decay = weight_decay,
                                               decoupled_weight_decay = decoupled_weight_decay, maximize = maximize))

"""
    CTorch.Adadelta(params; lr, rho, eps, weight_decay, maximize) -> Optimizer

torch.optim.Adadelta. Defaults: lr 1, rho 0.9, eps 1e-6, weight_decay 0, maximize false.
"""
Adadelta(params; lr = nothing, rho = nothing, eps = nothing, weight_decay = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_ADADELTA, params, (lr = lr, rho = rho, eps = eps, weight_decay = weight_decay,
                                                  maximize = maximize))

"""
    CTorch.ASGD(params; lr, lambd, alpha, t0, weight_decay, maximize) -> Optimizer

torch.optim.ASGD (averaged SGD; the average is `CTorch.optimizer_state(opt, 1, "ax")`). Defaults:
lr 1e-2, lambd 1e-4, alpha 0.75, t0 1e6, weight_decay 0, maximize false.
"""
ASGD(params; lr = nothing, lambd = nothing, alpha = nothing, t0 = nothing, weight_decay = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_ASGD, params, (lr = lr, lambd = lambd, alpha = alpha, t0 = t0,
                                              weight_decay = weight_decay, maximize = maximize))

"""
    CTorch.Rprop(params; lr, etas, step_sizes, maximize) -> Optimizer

torch.optim.Rprop (resilient backpropagation: per-element steps that grow by etas[2] while the
gradient keeps its sign and shrink by etas[1] when it flips). Defaults: lr 1e-2, etas (0.5, 1.2),
step_sizes (1e-6, 50), maximize false.
"""
Rprop(params; lr = nothing, etas = nothing, step_sizes = nothing, maximize = nothing) =
    _optimizer(L.CT_OPTIMIZER_RPROP, params, (lr = lr, etas = etas, step_sizes = step_sizes, maximize = maximize))

"""
    CTorch.LBFGS(params; lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size,
                 line_search_fn) -> Optimizer

torch.optim.LBFGS: all parameters (one dtype, one device) as one vector; step it with
`CTorch.step!(closure, opt)`. Defaults: lr 1, max_iter 20, max_eval max_iter * 5 ÷ 4,
tolerance_grad 1e-7, tolerance_change 1e-9, history_size 100, line_search_fn `nothing` (a fixed
step lr) or `:strong_wolfe`.
"""
function LBFGS(params; lr = nothing, max_iter = nothing, max_eval = nothing, tolerance_grad = nothing,
               tolerance_change = nothing, history_size = nothing, line_search_fn = nothing)
    _optimizer(L.CT_OPTIMIZER_LBFGS, params, (lr = lr, max_iter = max_iter, max_eval = max_eval,
                                               tolerance_grad = tolerance_grad, tolerance_change = tolerance_change,
                                               history_size = history_size, line_search_fn = line_search_fn))
end

"""
    CTorch.step!(opt::Optimizer) -> opt
    CTorch.step!(closure, opt::Optimizer) -> Float64

One update of every parameter that has a gradient (optimizer.step()), with grad mode off; parameters
whose grad is `nothing` are skipped. The same bits on every machine and thread count.

With a closure (optimizer.step(closure)), which zeroes the grads, computes the loss, calls backward
and returns the loss (a Tensor or a number): LBFGS calls it as often as its iterations need; other
kinds call it once, then step. Returns the first call's loss. When the closure throws, the step
throws a `CTorchError` whose `cause` is that exception, and the parameters and state are as they
were.

    loss0 = CTorch.step!(opt) do
        CTorch.zero_grad!(opt)
        loss = CTorch.sum((x .- c) .^ 2)
        CTorch.backward(loss)
        loss
    end
"""
step!(o::Optimizer) = (check(L.ct_optimizer_step(o)); o)

function step!(closure, o::Optimizer)
    user_data = root(closure)
    loss = Ref{Float64}(0)
    try
        check(L.ct_optimizer_step_closure(o, CFUNCTIONS[:closure], user_data, loss))
    finally
        unroot(user_data)
    end
    return loss[]
end

"""
    CTorch.optimizer_state(opt::Optimizer, i::Integer, name) -> Union{Tensor,Nothing}
    CTorch.optimizer_state_names(opt::Optimizer) -> Vector{String}

optimizer.state[p][name] of the `i`-th parameter (1-based): a buffer (the optimizer's own tensor,
so writing into it changes the next step; ASGD's average is "ax") or a scalar ("step", a 0-dim
copy); `nothing` while the parameter has none. The names are torch's, in torch's order.
"""
function optimizer_state(o::Optimizer, i::Integer, name::AbstractString)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_optimizer_state_get(o, i - 1, String(name), out))
    return out[] == C_NULL ? nothing : wrap(out[])
end

@doc (@doc optimizer_state) function optimizer_state_names(o::Optimizer)
    names = String[]
    while true
        out = Ref{Ptr{UInt8}}(C_NULL)
        L.ct_optimizer_state_name(o.kind, length(names), out) == L.CT_OK || return names
        push!(names, unsafe_string(out[]))
    end
end

"""
    CTorch.zero_grad!(opt::Optimizer; set_to_none=true) -> opt
    CTorch.zero_grad!(model; set_to_none=true) -> model

Clear the gradients of the optimizer's (or the model's) parameters: set them to `nothing`
(PyTorch 2's default), or with `set_to_none=false` fill the existing ones with zeros in place.
"""
zero_grad!(o::Optimizer; set_to_none::Bool = true) = (check(L.ct_optimizer_zero_grad(o, set_to_none)); o)

"""
    CTorch.lr(opt::Optimizer) -> Float64
    CTorch.lr!(opt::Optimizer, value) -> opt

The learning rate (param_groups[0]["lr"]); a scheduler bound to `opt` reads and writes the same
value. A negative or non-finite value throws `CTorchError` (`CT_ERROR_INVALID_ARGUMENT`).
"""
function lr(o::Optimizer)
    out = Ref{Float64}(0)
    check(L.ct_optimizer_get_lr(o, out))
    return out[]
end
@doc (@doc lr) lr!(o::Optimizer, value::Real) = (check(L.ct_optimizer_set_lr(o, Float64(value))); o)

function _get_options(o::Optimizer)
    out = Ref(_default_options(o.kind))   # struct_size set, as get_options wants
    check(L.ct_optimizer_get_options(o, out))
    return out[]
end

"""
    CTorch.options(opt::Optimizer) -> NamedTuple
    CTorch.set_options!(opt::Optimizer; kw...) -> opt

The hyperparameters of `opt`'s kind by torch's names (`(lr = 0.001, betas = (0.9, 0.999), eps =
1.0e-8, ...)` for Adam), and replacing some of them (the others stay; the kind cannot change). The
library checks the values as at creation; on failure nothing changes.
"""
function options(o::Optimizer)
    c = _get_options(o)
    keys = OPTIMIZER_KINDS[o.kind][2]
    vals = map(keys) do k
        haskey(OPTION_PAIRS, k) ? getfield.(Ref(c), OPTION_PAIRS[k]) :
        k === :line_search_fn ? (c.strong_wolfe != 0 ? :strong_wolfe : nothing) :
        k in OPTION_FLAGS ? getfield(c, k) != 0 : getfield(c, k)
    end
    return NamedTuple{keys}(vals)
end

@doc (@doc options) function set_options!(o::Optimizer; kw...)
    name, keys = OPTIMIZER_KINDS[o.kind]
    changes = Dict{Symbol,Any}()
    for (k, v) in kw
        k in keys || throw(ArgumentError("CTorch.$name has no option $k (it has $(join(keys, ", ")))"))
        _option_fields!(changes, k, v)
    end
    check(L.ct_optimizer_set_options(o, Ref(_replace(_get_options(o), changes))))
    return o
end

"""
    CTorch.parameters(opt::Optimizer) -> Vector{Tensor}

The tensors `opt` updates, in the order given (each a new reference to the parameter itself).
"""
function parameters(o::Optimizer)
    n = Ref{Csize_t}(0)
    check(L.ct_optimizer_num_params(o, n))
    return Tensor[_param(o, i) for i in 1:n[]]
end

function _param(o::Optimizer, i::Integer)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_optimizer_param(o, i - 1, out))
    return wrap(out[])
end

"""
    CTorch.save_state(opt::Optimizer) -> Vector{UInt8}
    CTorch.load_state!(opt::Optimizer, bytes::AbstractVector{UInt8}) -> opt

The optimizer's state as bytes (optimizer.state_dict(): kind, hyperparameters, step counts and
buffers, in the library's little-endian format, the same from every language), and restoring it
into an optimizer of the same kind over parameters of the same count, dtypes and sizes, which then
continues with the same bits. The parameters' values are not part of the state (save them with the
model: `CTorch.state_dict`). Bytes of another optimizer throw `CT_ERROR_INVALID_ARGUMENT`, damaged
ones `CT_ERROR_FORMAT` (with the byte offset); on failure `opt` is unchanged.
"""
function save_state(o::Optimizer)
    data = Ref{Ptr{UInt8}}(C_NULL)
    size = Ref{Csize_t}(0)
    check(L.ct_optimizer_state_save(o, data, size))
    bytes = copy(unsafe_wrap(Vector{UInt8}, data[], size[]))
    L.ct_string_release(data[])
    return bytes
end

@doc (@doc save_state) function load_state!(o::Optimizer, bytes::AbstractVector{UInt8})
    b = Vector{UInt8}(bytes)
    GC.@preserve b check(L.ct_optimizer_state_load(o, b, length(b)))
    return o
end

function Base.show(io::IO, o::Optimizer)
    name = OPTIMIZER_KINDS[o.kind][1]
    if !isopen(o)
        print(io, "CTorch.", name, "(<closed>)")
        return
    end
    n = Ref{Csize_t}(0)
    check(L.ct_optimizer_num_params(o, n))
    opts = join(("$k = $(repr(v))" for (k, v) in pairs(options(o))), ", ")
    print(io, "CTorch.", name, "(<", Int(n[]), " parameters>; ", opts, ")")
end
