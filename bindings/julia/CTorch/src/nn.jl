# nn.jl - a small neural-network layer: the functional forms (linear, relu, losses) over the
# library's operators, Linear and Sequential, and parameters/state_dict by walking a model's fields.
#
# Note [Models are plain structs]
# A model is any Julia value: a CTorch.Linear, a CTorch.Sequential, or a struct of the user's whose
# fields hold tensors, layers, tuples, vectors or dicts of them. named_tensors walks it in field
# order and names what it finds as PyTorch's state_dict would: field names joined by dots, and
# positions in Sequential, tuples and vectors counted from 0 ("0.weight", "layers.2.bias"), so a
# checkpoint written from Julia has the keys the same model has in PyTorch. Tensors that require
# grad are the parameters (the optimizer's input); the others are buffers, saved but not trained.
# Functions (relu, closures) hold no state and are skipped.

_reduction(r::Symbol) = r === :mean ? L.CT_REDUCTION_MEAN : r === :sum ? L.CT_REDUCTION_SUM : r === :none ?
    L.CT_REDUCTION_NONE : throw(ArgumentError("reduction must be :mean, :sum or :none, got :$r"))

_opt(t::Union{Tensor,Nothing}) = t === nothing ? Ptr{L.ct_tensor}(C_NULL) : open_ptr(t, "a layer or loss")

"""
    CTorch.linear(x, weight, bias=nothing) -> Tensor

`x * weightᵀ .+ bias` (torch.nn.functional.linear): `x` is `[batch..., in]`, `weight` `[out, in]`,
`bias` `[out]`, the result `[batch..., out]`.
"""
function linear(x::Tensor, weight::Tensor, bias::Union{Tensor,Nothing} = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_linear(x, weight, _opt(bias), out))
    return wrap(out[])
end

"""
    CTorch.relu(x) -> Tensor

`max(x, 0)` elementwise (a function, so it can be a layer of `CTorch.Sequential`).
"""
relu(x::Tensor) = _unary(L.ct_tensor_relu, x)

"""
    CTorch.cross_entropy(logits, target; weight=nothing, reduction=:mean, ignore_index=-100,
                         label_smoothing=0) -> Tensor

torch.nn.functional.cross_entropy: `logits` is `[batch, classes]` (or `[classes]`), `target` the
class indices (`Int64`, counted from 0 as in PyTorch: labels 0 to 9 for ten classes) or class
probabilities of the logits' size. `reduction` is `:mean`, `:sum` or `:none`.
"""
function cross_entropy(input::Tensor, target::Tensor; weight::Union{Tensor,Nothing} = nothing,
                       reduction::Symbol = :mean, ignore_index::Integer = -100, label_smoothing::Real = 0)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_cross_entropy(input, target, _opt(weight), _reduction(reduction), ignore_index,
                                    Float64(label_smoothing), out))
    return wrap(out[])
end

"""
    CTorch.mse_loss(input, target; reduction=:mean) -> Tensor

The mean (`:sum`: the sum, `:none`: each) of the squared differences (torch.nn.functional.mse_loss).
"""
function mse_loss(input::Tensor, target::Tensor; reduction::Symbol = :mean)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_mse_loss(input, target, _reduction(reduction), out))
    return wrap(out[])
end

"""
    CTorch.Linear(in, out; bias=true, dtype=CTorch.get_default_dtype(), device=nothing, gen=nothing)

A fully connected layer, callable: `m(x) == CTorch.linear(x, m.weight, m.bias)` maps `[batch, in]`
to `[batch, out]` (PyTorch's layout: one sample per row). `m.weight` is `out × in` and `m.bias`
has `out` elements (or is `nothing`); both require grad and start as `nn.Linear`'s do
(`CTorch.init.linear!`: U(-1/√in, 1/√in), drawn from `gen` or the default generator, weight
first). `Linear(weight, bias)` wraps existing tensors.
"""
struct Linear
    weight::Tensor
    bias::Union{Tensor,Nothing}
end

function Linear(in::Integer, out::Integer; bias::Bool = true, dtype::Type = get_default_dtype(), device = nothing,
                gen = nothing)
    w = empty(dtype, out, in; device = device)
    b = bias ? empty(dtype, out; device = device) : nothing
    init.linear!(w, b; gen = gen)
    requires_grad!(w)
    b === nothing || requires_grad!(b)
    return Linear(w, b)
end

(m::Linear)(x::Tensor) = linear(x, m.weight, m.bias)

function Base.show(io::IO, m::Linear)
    out, in = isopen(m.weight) ? size(m.weight) : ("?", "?")
    print(io, "CTorch.Linear(", in, ", ", out, m.bias === nothing ? "; bias = false)" : ")")
end

"""
    CTorch.Sequential(layers...)

Composition: `Sequential(f, g, h)(x) == h(g(f(x)))`, each layer a callable (a `CTorch.Linear`, a
function such as `CTorch.relu`, another `Sequential`, a model struct). `s[i]`, `length(s)` and
iteration reach the layers; in `state_dict` names they count from 0, as in PyTorch
(`"0.weight"`, `"2.bias"`).
"""
struct Sequential{T<:Tuple}
    layers::T
    Sequential(layers...) = new{typeof(layers)}(layers)
end

(s::Sequential)(x) = foldl((y, f) -> f(y), s.layers; init = x)
Base.getindex(s::Sequential, i) = s.layers[i]
Base.length(s::Sequential) = length(s.layers)
Base.iterate(s::Sequential, i...) = iterate(s.layers, i...)
Base.show(io::IO, s::Sequential) = (print(io, "CTorch.Sequential("); join(io, s.layers, ", "); print(io, ")"))

# ---- walking a model (See Note [Models are plain structs]) ----

_join(prefix::String, name) = isempty(prefix) ? string(name) : string(prefix, ".", name)

_walk!(out, seen, prefix, t::Tensor) = (push!(out, prefix => t); nothing)
_walk!(out, seen, prefix, ::Union{Function,Number,AbstractString,Symbol,Nothing,Type,Module,Ptr}) = nothing
_walk!(out, seen, prefix, ::AbstractArray{<:Number}) = nothing
_walk!(out, seen, prefix, s::Sequential) = _walk!(out, seen, prefix, s.layers)
function _walk!(out, seen, prefix, xs::Union{Tuple,AbstractVector})
    for (i, x) in enumerate(xs)
        _walk!(out, seen, _join(prefix, i - 1), x)
    end
end
function _walk!(out, seen, prefix, d::AbstractDict)
    for k in sort!(collect(keys(d)); by = string)
        _walk!(out, seen, _join(prefix, k), d[k])
    end
end
function _walk!(out, seen, prefix, m)
    T = typeof(m)
    isstructtype(T) || return nothing
    if ismutable(m)
        m in seen && return nothing   # a cycle, or a layer shared by two fields: named once
        push!(seen, m)
    end
    for f in fieldnames(T)
        isdefined(m, f) && _walk!(out, seen, _join(prefix, f), getfield(m, f))
    end
end

"""
    CTorch.named_tensors(model) -> Vector{Pair{String,Tensor}}

Every tensor `model` holds with its PyTorch-style name, in field order (see `CTorch.state_dict`).
"""
function named_tensors(model)
    out = Pair{String,Tensor}[]
    _walk!(out, Base.IdSet{Any}(), "", model)
    return out
end

"""
    CTorch.named_parameters(model) -> Vector{Pair{String,Tensor}}

The tensors of `model` that require grad, with their names, in field order; a tensor held twice
is listed once.
"""
function named_parameters(model)
    out = Pair{String,Tensor}[]
    for (name, t) in named_tensors(model)
        requires_grad(t) && !any(p -> p.second === t, out) && push!(out, name => t)
    end
    return out
end

"""
    CTorch.parameters(model) -> Vector{Tensor}

What an optimizer updates: for a `Tensor` or a collection of tensors, those tensors as given; for a
model (a `CTorch.Linear`, a `CTorch.Sequential`, any struct holding tensors and layers), its
tensors that require grad in field order (`[l1.weight, l1.bias, l2.weight, l2.bias]`).
"""
parameters(t::Tensor) = Tensor[t]
function parameters(model)
    if (model isa Union{Tuple,AbstractVector}) && all(x -> x isa Tensor, model)
        return Tensor[model...]
    end
    return Tensor[p.second for p in named_parameters(model)]
end

zero_grad!(model; set_to_none::Bool = true) = (foreach(p -> _zero_grad(p, set_to_none), parameters(model)); model)
function _zero_grad(p::Tensor, set_to_none::Bool)
    g = grad(p)
    g === nothing && return
    set_to_none ? set_grad!(p, nothing) : no_grad(() -> ops.zero_(g))
    close(g)
end

"""
    CTorch.state_dict(model) -> Dict{String,Tensor}

Every tensor of `model` (parameters and buffers) under its PyTorch-style name (see Note [Models are
plain structs]), detached: the tensors share memory with the model's, without autograd history.
`CTorch.save_checkpoint(path, CTorch.state_dict(model))` writes a checkpoint that PyTorch's same
model loads.
"""
state_dict(model) = Dict{String,Tensor}(name => detach(t) for (name, t) in named_tensors(model))

"""
    CTorch.load_state_dict!(model, source; strict=true) -> model

Copy the tensors of `source` (a `Dict` like `state_dict`'s, or an open `CTorch.Checkpoint`) into
the model's tensors of the same names, in place and without recording autograd history (dtypes
convert as `copyto!` does). Every name and size is checked before anything is copied: a model
tensor missing from `source`, a size that differs, or (with `strict`) a name of `source` the model
lacks throws `ArgumentError` naming them.
"""
function load_state_dict!(model, source; strict::Bool = true)
    mine = named_tensors(model)
    names = Set(first.(mine))
    srcnames = collect(String, keys(source))
    missing = [n for (n, _) in mine if !(n in srcnames)]
    unexpected = strict ? [n for n in srcnames if !(n in names)] : String[]
    if !isempty(missing) || !isempty(unexpected)
        throw(ArgumentError("load_state_dict!: " *
                            join(filter(!isempty, [isempty(missing) ? "" : "missing $(join(missing, ", "))",
                                                   isempty(unexpected) ? "" : "unexpected $(join(unexpected, ", "))"]),
                                 "; ") * ". Load a state of the same model, or pass strict = false to ignore extras"))
    end
    pairs_ = [(t, source[n], n) for (n, t) in mine]
    for (t, s, n) in pairs_
        size(s) == size(t) || throw(ArgumentError("load_state_dict!: $n has size $(collect(size(s))) in the source " *
                                                  "and $(collect(size(t))) in the model. Load a state of the same model"))
    end
    no_grad() do
        for (t, s, _) in pairs_
            ops.copy_(t, s)
        end
    end
    return model
end
