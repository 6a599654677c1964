# operators.jl - Base operators and broadcasting over the library's typed functions.
#
# Note [Operators in Julia]
# `+` and `-` of two tensors are elementwise (as for arrays, with the library's broadcasting); `*` of
# two tensors is the matrix product (`matmul`: matrix-matrix, matrix-vector, batched), as Julia's `*`
# of matrices; `*` and `/` with a number scale. Elementwise products, quotients and powers of tensors
# are the broadcast forms `a .* b`, `a ./ b`, `a .^ b`, which with every other broadcast call map to
# one library operator each (`exp.(a)` is `exp`, `a .< b` is `lt`, ...), evaluated eagerly, so
# autograd records them. Broadcasting follows Julia's rule, as it would for the arrays `Array(t)`:
# see Note [Broadcast alignment].
#
# Note [Broadcast alignment]
# Julia pads the shorter of two sizes with trailing 1s (a length-3 vector against a 3x3 matrix runs
# down each column); the library, as PyTorch, pads with leading 1s (along each row). Sizes keep
# Julia's order (Tensor(A) has size(A)), so handing mixed ranks to the library as they are would give
# the transpose of Julia's `A .+ v`, silently. Every tensor operand of a broadcast, and of `+` and
# `-`, is therefore first given the largest rank by appending size-1 dims (`unsqueeze` at the end,
# a view, which works on symbolic sizes too); with equal ranks both rules are the same.

@inline function _binary(f, a::Tensor, b::Tensor)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    st = f(a, b, out)
    st == 0 || throw_status(st)
    return wrap(out[])
end

@inline function _scalar_op(f, a::Tensor, x::Number)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    s = Ref(scalar(x))
    st = f(a, s, out)
    st == 0 || throw_status(st)
    return wrap(out[])
end

@inline function _unary(f, a::Tensor)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    st = f(a, out)
    st == 0 || throw_status(st)
    return wrap(out[])
end

"""t with trailing size-1 dims up to n dims (a view): See Note [Broadcast alignment]."""
function _pad_rank(t::Tensor, n::Integer)
    k = ndims(t)
    k >= n && return t
    for d in k:n-1
        t = _unsqueeze(t, d)
    end
    return t
end

function _unsqueeze(t::Tensor, d::Integer)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_unsqueeze(t, d, out))
    return wrap(out[])
end

@inline function _binary_aligned(f, a::Tensor, b::Tensor)
    na, nb = ndims(a), ndims(b)
    na == nb && return _binary(f, a, b)
    return _binary(f, _pad_rank(a, nb), _pad_rank(b, na))
end

"""
    a + b, a - b

Elementwise sum and difference of tensors (or a tensor and a number), broadcasting as `a .+ b`
does (Julia's alignment, see Note [Broadcast alignment]) and promoting dtypes as PyTorch does.
"""
Base.:+(a::Tensor, b::Tensor) = _binary_aligned(L.ct_tensor_add, a, b)
Base.:+(a::Tensor, x::Number) = _scalar_op(L.ct_tensor_add_scalar, a, x)
Base.:+(x::Number, a::Tensor) = _scalar_op(L.ct_tensor_add_scalar, a, x)
Base.:-(a::Tensor, b::Tensor) = _binary_aligned(L.ct_tensor_sub, a, b)
Base.:-(a::Tensor, x::Number) = _scalar_op(L.ct_tensor_sub_scalar, a, x)
Base.:-(x::Number, a::Tensor) = ops.rsub(a, x)
Base.:-(a::Tensor) = _unary(L.ct_tensor_neg, a)
Base.:+(a::Tensor) = a

"""
    a * b

For two tensors the matrix product (`matmul`): `[m, k] * [k, n] -> [m, n]`, matrix-vector,
vector-vector (a 0-dim dot product), and batched with broadcast batch dims, as Julia's `*` of
matrices. With a number, scaling. The elementwise product is `a .* b`.
"""
Base.:*(a::Tensor, b::Tensor) = _binary(L.ct_tensor_matmul, a, b)
Base.:*(a::Tensor, x::Number) = _scalar_op(L.ct_tensor_mul_scalar, a, x)
Base.:*(x::Number, a::Tensor) = _scalar_op(L.ct_tensor_mul_scalar, a, x)

"""
    a / x

Elementwise true division by a number (integers give floats). For two tensors use `a ./ b`.
"""
Base.:/(a::Tensor, x::Number) = _scalar_op(L.ct_tensor_div_scalar, a, x)

"""
    a == b -> Bool

Whether two tensors have the same sizes and elements (`ops.equal` is not used: this is the
library's `eq` reduced with `all`, after checking sizes). Elementwise comparison is `a .== b`.
A tensor and a Julia array compare as two arrays do: same size, and `==` for every element
(`Tensor(A) == A` is true).
"""
function Base.:(==)(a::Tensor, b::Tensor)
    size(a) == size(b) || return false
    return item(ops.all(_binary(L.ct_tensor_eq, a, b))) == true
end
Base.:(==)(a::Tensor, b::AbstractArray) = size(a) == size(b) && Array(a) == b
Base.:(==)(a::AbstractArray, b::Tensor) = b == a

"""
    isapprox(a::Tensor, b::Tensor; rtol, atol) -> Bool

`all(|a - b| <= atol + rtol * |b|)` elementwise, with sizes equal (defaults: `rtol = sqrt(eps)` of
the element type, `atol = 0`).
"""
function Base.isapprox(a::Tensor, b::Tensor; rtol::Real = sqrt(eps(float_type(a))), atol::Real = 0)
    size(a) == size(b) || return false
    d = abs.(a .- b)
    lim = atol .+ rtol .* abs.(b)
    return item(ops.all(d .<= lim)) == true
end
Base.isapprox(a::Tensor, b::AbstractArray; kwargs...) = size(a) == size(b) && isapprox(a, Tensor(b); kwargs...)
Base.isapprox(a::AbstractArray, b::Tensor; kwargs...) = size(a) == size(b) && isapprox(Tensor(a), b; kwargs...)

float_type(t::Tensor) = (T = eltype(t); T <: AbstractFloat && T !== BFloat16 ? T : Float32)

"""
    sum(t::Tensor; dims=:), prod(t; dims=:), maximum(t; dims=:), minimum(t; dims=:)

Reductions as for arrays: over every element (a 0-dim tensor), or over `dims` (1-based, an integer
or a tuple) keeping them as size 1, as Julia does. `CTorch.ops.sum` etc. take the library's 0-based
dims.
"""
Base.sum(t::Tensor; dims = :) = dims === (:) ? ops.sum(t) : ops.sum(t, _dims0(t, dims); keepdim = true)
Base.prod(t::Tensor; dims = :) = dims === (:) ? ops.prod(t) : _reduce_each(ops.prod, t, dims)
Base.maximum(t::Tensor; dims = :) = dims === (:) ? ops.amax(t) : ops.amax(t, _dims0(t, dims); keepdim = true)
Base.minimum(t::Tensor; dims = :) = dims === (:) ? ops.amin(t) : ops.amin(t, _dims0(t, dims); keepdim = true)

"""Julia's 1-based dims as the library's 0-based ones (checked against ndims)."""
function _dims0(t::Tensor, dims)
    n = ndims(t)
    ds = Int64[]
    for d in (dims isa Integer ? (dims,) : dims)
        1 <= d <= n || throw(ArgumentError("dims: $d is out of range for a tensor of $n dimensions (dims count from 1)"))
        push!(ds, d - 1)
    end
    return ds
end

function _reduce_each(f, t::Tensor, dims)
    r = t
    for d in _dims0(t, dims)
        r = f(r, d; keepdim = true)
    end
    return r
end

"""
    CTorch.mean(t; dims=:)

The mean of every element, or over `dims` (1-based, kept as size 1).
"""
mean(t::Tensor; dims = :) = dims === (:) ? ops.mean(t) : ops.mean(t, _dims0(t, dims); keepdim = true)

"""
    reshape(t::Tensor, dims...) -> Tensor

A tensor of sizes `dims` with `t`'s elements in the library's row-major order (a view when
possible), as `ops.reshape`. Note: Julia's `reshape` of an array keeps column-major order; on
tensors the order is the library's, as in PyTorch. `-1` infers one size.
"""
Base.reshape(t::Tensor, dims::Integer...) = ops.reshape(t, Int64[dims...])
Base.reshape(t::Tensor, dims::Tuple{Vararg{Integer}}) = ops.reshape(t, Int64[dims...])
Base.vec(t::Tensor) = ops.reshape(t, Int64[-1])

"""
    permutedims(t::Tensor, perm) -> Tensor

A view with dims permuted: dim `i` of the result is dim `perm[i]` of `t` (1-based, as for arrays).
"""
Base.permutedims(t::Tensor, perm) = ops.permute(t, Int64[p - 1 for p in perm])

"""
    transpose(t::Tensor), adjoint(t::Tensor), t'

The transpose of a matrix (a view; dims 1 and 2 swapped), or a 1-D tensor unchanged as a
`[1, n]` row. Tensors are real, so `adjoint` is `transpose`.
"""
Base.transpose(t::Tensor) = ndims(t) == 1 ? ops.unsqueeze(t, 0) : ops.transpose(t, 0, 1)
Base.adjoint(t::Tensor) = transpose(t)

for (jl, c) in ((:abs, :ct_tensor_abs), (:exp, :ct_tensor_exp), (:log, :ct_tensor_log), (:sqrt, :ct_tensor_sqrt),
                (:sin, :ct_tensor_sin), (:cos, :ct_tensor_cos), (:tanh, :ct_tensor_tanh), (:tan, :ct_tensor_tan),
                (:asin, :ct_tensor_asin), (:acos, :ct_tensor_acos), (:atan, :ct_tensor_atan),
                (:sinh, :ct_tensor_sinh), (:cosh, :ct_tensor_cosh), (:asinh, :ct_tensor_asinh),
                (:acosh, :ct_tensor_acosh), (:atanh, :ct_tensor_atanh), (:exp2, :ct_tensor_exp2),
                (:expm1, :ct_tensor_expm1), (:log1p, :ct_tensor_log1p), (:log2, :ct_tensor_log2),
                (:log10, :ct_tensor_log10), (:floor, :ct_tensor_floor), (:ceil, :ct_tensor_ceil),
                (:round, :ct_tensor_round), (:trunc, :ct_tensor_trunc), (:sign, :ct_tensor_sign),
                (:isnan, :ct_tensor_isnan), (:isinf, :ct_tensor_isinf), (:isfinite, :ct_tensor_isfinite),
                (:inv, :ct_tensor_reciprocal))
    @eval begin
        @doc """
            $($(string(jl)))(t::Tensor)

        Elementwise `$($(string(c)))` (`$($(string(jl))).(t)` is the same). `inv` is the elementwise
        reciprocal, not a matrix inverse.
        """ Base.$jl(t::Tensor) = _unary(L.$c, t)
    end
end

# ---- broadcasting ----

"""The broadcast style of tensors: every broadcast call with a Tensor runs library operators."""
struct TensorStyle <: Broadcast.BroadcastStyle end

Base.BroadcastStyle(::Type{Tensor}) = TensorStyle()
Base.BroadcastStyle(::TensorStyle, ::Broadcast.BroadcastStyle) = TensorStyle()
Base.BroadcastStyle(::TensorStyle, ::TensorStyle) = TensorStyle()
Base.broadcastable(t::Tensor) = t

# One library operator per function: binary (tensor-tensor, tensor-number), then unary.
const BINARY = Dict{Any,Tuple{Any,Any}}(
    (+) => (L.ct_tensor_add, L.ct_tensor_add_scalar), (-) => (L.ct_tensor_sub, L.ct_tensor_sub_scalar),
    (*) => (L.ct_tensor_mul, L.ct_tensor_mul_scalar), (/) => (L.ct_tensor_div, L.ct_tensor_div_scalar),
    (^) => (L.ct_tensor_pow, L.ct_tensor_pow_scalar), (==) => (L.ct_tensor_eq, L.ct_tensor_eq_scalar),
    (!=) => (L.ct_tensor_ne, L.ct_tensor_ne_scalar), (<) => (L.ct_tensor_lt, L.ct_tensor_lt_scalar),
    (<=) => (L.ct_tensor_le, L.ct_tensor_le_scalar), (>) => (L.ct_tensor_gt, L.ct_tensor_gt_scalar),
    (>=) => (L.ct_tensor_ge, L.ct_tensor_ge_scalar), max => (L.ct_tensor_maximum, nothing),
    min => (L.ct_tensor_minimum, nothing), (&) => (L.ct_tensor_bitwise_and, nothing),
    (|) => (L.ct_tensor_bitwise_or, nothing), xor => (L.ct_tensor_bitwise_xor, nothing),
    rem => (L.ct_tensor_fmod, L.ct_tensor_fmod_scalar), mod => (L.ct_tensor_remainder, L.ct_tensor_remainder_scalar),
    atan => (L.ct_tensor_atan2, nothing), hypot => (L.ct_tensor_hypot, nothing),
    fld => (L.ct_tensor_floor_divide, L.ct_tensor_floor_divide_scalar))
const UNARY = Dict{Any,Any}(
    (-) => L.ct_tensor_neg, abs => L.ct_tensor_abs, exp => L.ct_tensor_exp, log => L.ct_tensor_log,
    sqrt => L.ct_tensor_sqrt, sin => L.ct_tensor_sin, cos => L.ct_tensor_cos, tan => L.ct_tensor_tan,
    tanh => L.ct_tensor_tanh, asin => L.ct_tensor_asin, acos => L.ct_tensor_acos, atan => L.ct_tensor_atan,
    sinh => L.ct_tensor_sinh, cosh => L.ct_tensor_cosh, asinh => L.ct_tensor_asinh, acosh => L.ct_tensor_acosh,
    atanh => L.ct_tensor_atanh, exp2 => L.ct_tensor_exp2, expm1 => L.ct_tensor_expm1, log1p => L.ct_tensor_log1p,
    log2 => L.ct_tensor_log2, log10 => L.ct_tensor_log10, floor => L.ct_tensor_floor, ceil => L.ct_tensor_ceil,
    round => L.ct_tensor_round, trunc => L.ct_tensor_trunc, sign => L.ct_tensor_sign, isnan => L.ct_tensor_isnan,
    isinf => L.ct_tensor_isinf, isfinite => L.ct_tensor_isfinite, inv => L.ct_tensor_reciprocal,
    (!) => L.ct_tensor_logical_not, (~) => L.ct_tensor_bitwise_not)

_bc_arg(x::Tensor) = x
_bc_arg(x::Number) = x
_bc_arg(x::Base.RefValue) = _bc_arg(x[])
_bc_arg(x::AbstractArray) = ndims(x) == 0 ? x[] : Tensor(x)
_bc_arg(x::Broadcast.Broadcasted) = _bc_arg(Broadcast.materialize(x))
_bc_arg(x) = throw(ArgumentError("broadcasting a $(typeof(x)) with tensors: pass tensors, numbers or arrays"))

_as_tensor(x::Tensor, like::Tensor) = x
# A number beside tensors as a 0-dim tensor, which promotes as a number does (a 0-dim tensor only
# counts when its category is higher than the other inputs').
_as_tensor(x::Number, like::Tensor) = full(x, x isa Bool ? Bool : x isa Integer ? Int64 : float_type(like))

"""
    f.(args...) with a Tensor among args

Runs one library operator per call, eagerly: `+ - * / ^` (elementwise), `== != < <= > >=` (bool
results), `max min & | xor rem mod fld atan hypot` of two arguments; `- abs exp log sqrt sin cos tan
tanh asin acos atan sinh cosh asinh acosh atanh exp2 expm1 log1p log2 log10 floor ceil round trunc
sign isnan isinf isfinite inv ! ~` of one; `ifelse.(c, a, b)` (`where`); a type, `Float64.(t)`,
converts. Numbers and arrays may stand beside tensors (arrays are copied in with `Tensor`). Sizes
broadcast by Julia's rule, as for `Array(t)`: a shorter size gets trailing 1s (see Note
[Broadcast alignment]). Other functions throw an `ArgumentError`: compose library operators
instead, or `Array(t)` first.
"""
function Base.broadcasted(::TensorStyle, f, args...)
    if f === Base.literal_pow   # t .^ 2 arrives as literal_pow(Ref(^), t, Ref(Val(2)))
        f, args = _unref(args[1]), (args[2], _val(args[3]))
    end
    xs = _align_ranks(f, map(_bc_arg, args))
    if length(xs) == 1
        x = xs[1]
        f === identity && return x
        f isa Type && f in ELTYPES && return to(x, f)
        g = get(UNARY, f, nothing)
        g === nothing && _no_operator(f, 1)
        return _unary(g, x)
    elseif length(xs) == 2
        a, b = xs
        fs = get(BINARY, f, nothing)
        fs === nothing && _no_operator(f, 2)
        tensor_f, scalar_f = fs
        if a isa Tensor && b isa Tensor
            return _binary(tensor_f, a, b)
        elseif a isa Tensor && scalar_f !== nothing
            return _scalar_op(scalar_f, a, b)
        elseif b isa Tensor && scalar_f !== nothing && (f === (+) || f === (*) || f === (==) || f === (!=))
            return _scalar_op(scalar_f, b, a)   # commutative
        elseif b isa Tensor && f === (-)
            return ops.rsub(b, a)
        elseif a isa Tensor
            return _binary(tensor_f, a, _as_tensor(b, a))
        else
            return _binary(tensor_f, _as_tensor(a, b), b)
        end
    elseif length(xs) == 3 && f === ifelse
        c, a, b = xs
        like = c isa Tensor ? c : a isa Tensor ? a : b
        return ops.where(c, a isa Tensor ? a : _as_tensor(a, like), b isa Tensor ? b : _as_tensor(b, like))
    end
    _no_operator(f, length(xs))
end

"""The broadcast operands with every tensor open and padded to the largest rank (Note [Broadcast alignment])."""
function _align_ranks(f, xs::Tuple)
    n = 0
    for (k, x) in enumerate(xs)
        x isa Tensor || continue
        isopen(x) || throw(closed_error("broadcasting $f (argument $k)"))
        n = max(n, ndims(x))
    end
    return map(x -> x isa Tensor ? _pad_rank(x, n) : x, xs)
end

_val(::Val{p}) where {p} = p
_val(x::Base.RefValue) = _val(x[])
_unref(x::Base.RefValue) = x[]
_unref(x) = x

@noinline _no_operator(f, n) =
    throw(ArgumentError("broadcasting $f over tensors ($n arguments): no library operator for it. Use CTorch.ops " *
                        "functions, or convert with Array(t) first"))

"""
    dest .= src

Copies `src` (a tensor, broadcast to `dest`'s sizes, or a number) into `dest` in place (`copy_`),
so `a .+= b` adds into `a`. Autograd records it as the library records `copy_`.
"""
function Base.materialize!(dest::Tensor, bc::Broadcast.Broadcasted)
    src = _bc_arg(bc)
    src isa Tensor ? _copy_aligned!(dest, src) : ops.copy_(dest, _as_tensor(src, dest))
    return dest
end
Base.materialize!(dest::Tensor, src::Tensor) = _copy_aligned!(dest, src)

function _copy_aligned!(dest::Tensor, src::Tensor)
    isopen(dest) && isopen(src) || throw(closed_error("dest .= src"))
    ops.copy_(dest, _pad_rank(src, ndims(dest)))   # See Note [Broadcast alignment]
    return dest
end
