# array_interface.jl - what generic Julia code asks of an array, answered for tensors: iteration,
# map, similar, zero, fill!, copyto!, axes, and the activation and argmax idioms with 1-based dims.
#
# Note [Tensors and AbstractArray]
# Tensor is not a subtype of AbstractArray{T,N}, although it answers the interface's questions
# (size, eltype, ndims, iteration, similar, indexing). A subtype would carry its element type and
# rank in its Julia type, so every result the library hands back would need two more calls (dtype,
# rank) and a Julia type chosen at run time before it could be wrapped, on every operator; and the
# library's in-place view operators (unsqueeze_, squeeze_, resize_, as_strided_) change a tensor's
# rank under its Julia object, which would then claim an N it no longer has. Base's AbstractArray
# fallbacks also read one element per call (getindex for show, ==, iteration, reductions), one
# library call each, where a tensor is best read whole. So each method generic code needs is defined
# here on Tensor directly, reading a tensor's elements once (Array(t)) where Julia needs them one by
# one, and results stay tensors wherever the element type allows.

"""
    iterate(t::Tensor)

Iterates `t`'s elements in Julia's (column-major) order, as `Array(t)` holds them: the elements are
copied out once when the iteration starts, so a loop over a large tensor costs one copy, not one
library call per element.
"""
function Base.iterate(t::Tensor, state = (Array(t), 1))
    A, i = state
    i > length(A) && return nothing
    return (@inbounds A[i], (A, i + 1))
end

_tensor_or_array(A::AbstractArray) = eltype(A) in ELTYPES ? Tensor(A) : A

"""
    map(f, t::Tensor, ts::Tensor...)

`f` applied to each element (to elements at the same index of several tensors of one size), in
Julia, on a copy of the elements: a `Tensor` of the results when their type is a tensor element
type, else an `Array`. Broadcasting (`f.(t)`) runs library operators instead and is the fast form
for the functions it knows.
"""
Base.map(f, t::Tensor) = _tensor_or_array(map(f, Array(t)))
Base.map(f, t::Tensor, ts::Tensor...) = _tensor_or_array(map(f, Array(t), map(Array, ts)...))

"""
    similar(t::Tensor[, T][, dims]) -> Tensor

A new uninitialized tensor on `t`'s device, with element type `T` (default `eltype(t)`) and sizes
`dims` (default `size(t)`).
"""
Base.similar(t::Tensor, ::Type{T} = eltype(t), dims::Tuple{Vararg{Integer}} = size(t)) where {T} =
    empty(T, dims; device = device(t))
Base.similar(t::Tensor, dims::Tuple{Vararg{Integer}}) = similar(t, eltype(t), dims)
Base.similar(t::Tensor, ::Type{T}, dims::Integer...) where {T} = similar(t, T, dims)
Base.similar(t::Tensor, dims::Integer...) = similar(t, eltype(t), dims)

"""
    zero(t::Tensor) -> Tensor

Zeros of `t`'s sizes, element type and device.
"""
Base.zero(t::Tensor) = zeros(eltype(t), size(t); device = device(t))

"""
    fill!(t::Tensor, x) -> t

Sets every element of `t` to the number `x`, in place (`fill_`).
"""
Base.fill!(t::Tensor, x::Number) = (ops.fill_(t, x); t)

"""
    copyto!(dest::Array, src::Tensor), copyto!(dest::Tensor, src::AbstractArray)

Copies the elements between a tensor and an array of the same size, in one library call.
"""
function Base.copyto!(dest::Array, src::Tensor)
    size(dest) == size(src) || throw(DimensionMismatch("copyto!: array of size $(size(dest)), tensor of size " *
                                                       "$(size(src)); sizes must be equal"))
    return copyto!(dest, Array(src))
end
function Base.copyto!(dest::Tensor, src::AbstractArray)
    size(dest) == size(src) || throw(DimensionMismatch("copyto!: tensor of size $(size(dest)), array of size " *
                                                       "$(size(src)); sizes must be equal"))
    ops.copy_(dest, Tensor(src))
    return dest
end

Base.axes(t::Tensor) = map(Base.OneTo, size(t))
Base.firstindex(t::Tensor) = 1
Base.lastindex(t::Tensor) = length(t)

"""A 1-based dim of Julia's as the library's 0-based one (checked against ndims)."""
function _dim0(t::Tensor, d::Integer, what::AbstractString)
    n = ndims(t)
    1 <= d <= max(n, 1) || throw(ArgumentError("$what: dims = $d is out of range for a tensor of $n dimensions " *
                                               "(dims count from 1)"))
    return Int64(d - 1)
end

"""
    CTorch.sigmoid(t), CTorch.softmax(t; dims = 1), CTorch.logsoftmax(t; dims = 1)

The logistic function elementwise (`CTorch.sigmoid.(t)` is the same call), and softmax and its log
along `dims` (1-based, one dim; NNlib's default, the first). `using CTorch: sigmoid, softmax`
brings them into scope.
"""
sigmoid(t::Tensor) = _unary(L.ct_tensor_sigmoid, t)
UNARY[sigmoid] = L.ct_tensor_sigmoid   # sigmoid.(t): one library operator, as exp.(t)
@doc (@doc sigmoid) function softmax(t::Tensor; dims::Integer = 1)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_softmax(t, _dim0(t, dims, "softmax"), C_NULL, out))
    return wrap(out[])
end
@doc (@doc sigmoid) function logsoftmax(t::Tensor; dims::Integer = 1)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_log_softmax(t, _dim0(t, dims, "logsoftmax"), C_NULL, out))
    return wrap(out[])
end

"""
    argmax(t::Tensor), argmin(t::Tensor)
    argmax(t::Tensor; dims), argmin(t::Tensor; dims)

Without `dims`, the index of the first largest (smallest) element, as for an array: an `Int` for a
1-D tensor, a `CartesianIndex` otherwise. With `dims` (1-based, one dim), an `Int64` tensor of the
1-based positions along `dims`, that dim kept as size 1 as Julia's reductions keep it (an array's
`argmax(A; dims)` gives `CartesianIndex`es; take `Array` of the positions where those are needed).
"""
Base.argmax(t::Tensor; dims = :) = _arg_extreme(ops.argmax, t, dims, "argmax")
Base.argmin(t::Tensor; dims = :) = _arg_extreme(ops.argmin, t, dims, "argmin")

function _arg_extreme(f, t::Tensor, dims, what)
    if dims === (:)
        flat = item(f(t))   # an index into the library's row-major order of the elements
        s = size(t)
        length(s) <= 1 && return flat + 1
        return CartesianIndex(reverse(Tuple(CartesianIndices(reverse(s))[flat + 1]))...)
    end
    dims isa Integer || throw(ArgumentError("$what: dims = $dims; one dim is supported"))
    return f(t, _dim0(t, dims, what); keepdim = true) .+ 1
end
