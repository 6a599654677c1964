# tensor.jl - the Tensor handle: ownership, inspection, Array conversion, factories, printing.

struct _Own end

"""
    Tensor

One reference to a ctorch tensor. The reference is released by a finalizer when the object is
garbage collected, or at once by `close(t)` (later calls on `t` then throw `CTorchError`
`CT_ERROR_INVALID_ARGUMENT`); `CTorch.scope` releases the tensors of a block.

Constructors:
- `Tensor(A::AbstractArray)` copies `A` (element types `Bool`, `UInt8`, `Int8`, `Int16`, `Int32`,
  `Int64`, `Float16`, `CTorch.BFloat16`, `Float32`, `Float64`) keeping its size: `size(Tensor(A)) ==
  size(A)` and element `[i, j, k]` of both is the same. See docs/julia.md, "Shapes and memory order".
- `Tensor(x::Number)` a 0-dim tensor.
- `Tensor(f, A)` the do-block form: `Tensor(A) do t ... end` closes `t` when the block exits.

Tensors may be read by several threads at once; writing one (in-place operators) while another
thread reads it is a race, as in the C library.
"""
mutable struct Tensor
    ptr::Ptr{L.ct_tensor}   # INVARIANT: the first field (the finalizer reads it); C_NULL once closed
    function Tensor(::_Own, p::Ptr{L.ct_tensor})
        t = new(p)
        finalizer(TENSOR_FINALIZER[], t)   # a C function pointer: See Note [Tensor finalizers]
        return t
    end
end

# Note [Tensor finalizers]
# A Tensor's finalizer is a C function pointer (Julia's ptr finalizer, which Base's
# `finalizer(::Ptr{Cvoid}, x)` also uses), made from `_finalize_tensor` by @cfunction in __init__: the
# GC calls it with the object's address, and it releases the handle stored in the first field.
# Unlike a Julia finalizer it costs no dynamic call and no exception frame per object, which made
# `a + b` on small tensors about twice as fast (bench/julia/per_op.jl). It never throws and does not
# allocate. Julia's GC does not see the library's memory behind each handle: 16-byte objects can
# keep many megabytes alive in the library between collections, so every FINALIZE_BATCH new tensors
# `wrap` runs a young collection, which finalizes the unreachable ones (the memory-pressure callback
# is the last resort when an allocation fails). Closed tensors count too: their objects still carry
# the finalizer, and leaving them to Julia's own collections made close and scope loops slower once
# the collections after a loop were timed too.
const TENSOR_FINALIZER = Ref{Ptr{Cvoid}}(C_NULL)
const FINALIZE_BATCH = 1 << 16
const WRAPPED = Ref{UInt}(0)

function _finalize_tensor(obj::Ptr{Cvoid})::Cvoid
    h = unsafe_load(Ptr{Ptr{L.ct_tensor}}(obj))
    h == C_NULL || L.ct_tensor_release(h)
    return nothing
end

release_tensor(t::Tensor) = (p = t.ptr; t.ptr = C_NULL; L.ct_tensor_release(p); nothing)

# Tensors made inside CTorch.scope blocks, per thread (innermost last).
const SCOPES = Vector{Vector{Tensor}}[]

"""Wrap a new reference (owned from now on) as a Tensor."""
@inline function wrap(p::Ptr{L.ct_tensor})
    t = Tensor(_Own(), p)
    s = @inbounds SCOPES[Threads.threadid()]
    isempty(s) || push!(s[end], t)
    (WRAPPED[] += 1) % FINALIZE_BATCH == 0 && GC.gc(false)   # See Note [Tensor finalizers]
    return t
end

"""Wrap a borrowed handle: take a reference of our own first."""
function wrap_borrowed(p::Ptr{L.ct_tensor})
    check(L.ct_tensor_retain(p))
    return wrap(p)
end

# Every ccall that takes a Tensor converts it here, so a closed one is refused in Julia with a
# message that says so, instead of reaching the library as a NULL handle ("argument a is NULL").
@inline function Base.unsafe_convert(::Type{Ptr{L.ct_tensor}}, t::Tensor)
    p = t.ptr
    p == C_NULL && throw(closed_error("a library call"))
    return p
end

"""The error for a closed Tensor passed to `what` ("broadcasting +", "a compiled function", ...)."""
@noinline closed_error(what::AbstractString) =
    CTorchError(L.CT_ERROR_INVALID_ARGUMENT, "$what: a closed Tensor was passed (close(t), or the end of the " *
                "CTorch.scope block that made it, released it). Keep it open while it is used, or pass a copy")

"""t's handle for a call that takes raw handles (lists of inputs); a closed t throws, naming `what`."""
@inline open_ptr(t::Tensor, what::AbstractString) = (p = t.ptr; p == C_NULL && throw(closed_error(what)); p)

"""
    close(t::Tensor)

Release `t`'s reference now instead of at garbage collection. Idempotent. Views and results made
from `t` stay valid (they hold their own references).
"""
Base.close(t::Tensor) = release_tensor(t)

"""
    isopen(t::Tensor) -> Bool

Whether `t` still holds its reference (it was not closed).
"""
Base.isopen(t::Tensor) = t.ptr != C_NULL

"""
    Tensor(f::Function, args...)

Do-block form: `Tensor(A) do t ... end` makes `Tensor(args...)`, calls `f` on it, and closes it
when `f` returns or throws. Returns `f`'s result.
"""
function Tensor(f::Function, args...; kwargs...)
    t = Tensor(args...; kwargs...)
    try
        return f(t)
    finally
        close(t)
    end
end

"""
    CTorch.scope(f)

Run `f()` and close every `Tensor` created on this thread during the call, except those in its
result (a tensor, or tuples, vectors, named tuples and pairs of them). Scopes nest. Use it in loops
to release temporaries deterministically instead of waiting for the garbage collector:

    loss = CTorch.scope() do
        CTorch.ops.sum((x * w .- y) .^ 2)
    end
"""
scope(f) = first(scoped(f; pass_up = true))

"""Run f() in a scope; return (result, the tensors made inside that the result holds)."""
function scoped(f; pass_up::Bool = false)
    stack = SCOPES[Threads.threadid()]
    push!(stack, Tensor[])
    made = Tensor[]
    local result
    try
        result = f()
    finally
        made = pop!(stack)
    end
    keep = Tensor[]   # the result's tensors: usually a few, so a linear search beats hashing
    _collect_tensors!(keep, result)
    kept = Tensor[]
    for t in made
        if !isempty(keep) && any(k -> k === t, keep)
            push!(kept, t)
            pass_up && !isempty(stack) && push!(stack[end], t)
        else
            close(t)
        end
    end
    return result, kept
end

_collect_tensors!(keep, x::Tensor) = push!(keep, x)
_collect_tensors!(keep, x::Union{Tuple,AbstractVector,NamedTuple}) = foreach(y -> _collect_tensors!(keep, y), x)
_collect_tensors!(keep, x::Pair) = (_collect_tensors!(keep, x.first); _collect_tensors!(keep, x.second))
_collect_tensors!(keep, x) = nothing

# ---- inspection ----

"""
    ndims(t::Tensor) -> Int

The number of dimensions (0 for a scalar tensor).
"""
function Base.ndims(t::Tensor)
    n = Ref{Csize_t}(0)
    check(L.ct_tensor_ndim(t, n))
    return Int(n[])
end

"""
    size(t::Tensor) -> NTuple{N,Int}
    size(t::Tensor, d::Integer) -> Int

The sizes, in the library's order, which is also Julia's: `size(Tensor(A)) == size(A)`. `d` is
1-based as for arrays (`size(t, 1)` is the first dimension); sizes past `ndims(t)` are 1. Symbolic
tensors throw `CT_ERROR_GUARD` (use `CTorch.sym_size`).
"""
function Base.size(t::Tensor)
    n = ndims(t)
    s = Vector{Int64}(undef, n)
    check(L.ct_tensor_sizes(t, n == 0 ? C_NULL : pointer(s), n))
    return Tuple(s)
end

function Base.size(t::Tensor, d::Integer)
    d >= 1 || throw(ArgumentError("size: dimension $d out of range (dimensions count from 1)"))
    d > ndims(t) && return 1
    out = Ref{Int64}(0)
    check(L.ct_tensor_size(t, d - 1, out))
    return Int(out[])
end

"""
    strides(t::Tensor) -> NTuple{N,Int}

Element strides per dimension, in the library's order. `Tensor(A)` has `strides(A)`.
"""
function Base.strides(t::Tensor)
    n = ndims(t)
    s = Vector{Int64}(undef, n)
    check(L.ct_tensor_strides(t, n == 0 ? C_NULL : pointer(s), n))
    return Tuple(s)
end

"""
    length(t::Tensor) -> Int

The number of elements (`ct_tensor_numel`).
"""
function Base.length(t::Tensor)
    out = Ref{Int64}(0)
    check(L.ct_tensor_numel(t, out))
    return Int(out[])
end

"""
    eltype(t::Tensor) -> Type

The Julia element type of `t`'s dtype (`Float32`, `Int64`, `Bool`, `CTorch.BFloat16`, ...).
"""
Base.eltype(t::Tensor) = eltype_of(dtype_code(t))

"""The ct_dtype code of t."""
function dtype_code(t::Tensor)
    out = Ref{Cint}(0)
    check(L.ct_tensor_dtype(t, out))
    return out[]
end

"""
    CTorch.device(t::Tensor) -> String

`t`'s device as the library names it: `"cpu"`, `"meta"`, `"cuda:0"`, or a plugin's name.
"""
function device(t::Tensor)
    ty = Ref{Cint}(0)
    idx = Ref{Int32}(0)
    check(L.ct_tensor_device(t, ty, idx))
    p = L.ct_device_type_name(ty[])
    name = p == C_NULL ? "unknown" : unsafe_string(p)
    return idx[] < 0 ? name : "$name:$(idx[])"
end

"""
    CTorch.is_contiguous(t::Tensor) -> Bool

Whether `t`'s elements are dense in the library's row-major order. `Tensor(A)` of a matrix is not:
it has `A`'s column-major strides.
"""
function is_contiguous(t::Tensor)
    out = Ref{Cint}(0)
    check(L.ct_tensor_is_contiguous(t, out))
    return out[] != 0
end

"""
    CTorch.storage_offset(t::Tensor) -> Int

The offset, in elements, of `t`'s first element in its storage (views of a slice have one).
"""
function storage_offset(t::Tensor)
    out = Ref{Int64}(0)
    check(L.ct_tensor_storage_offset(t, out))
    return Int(out[])
end

"""
    item(t::Tensor)

The value of a one-element tensor as a Julia number (`Bool`, `Int64` or `Float64`, as the library's
scalar kinds, and `ComplexF64` for a complex tensor). `t[]` is the same.
"""
function item(t::Tensor)
    if eltype(t) <: Complex
        re, im = Ref{Float64}(0), Ref{Float64}(0)
        check(L.ct_tensor_item_complex(t, re, im))
        return ComplexF64(re[], im[])
    end
    out = Ref{L.ct_scalar}()
    check(L.ct_tensor_item(t, out))
    return unscalar(out[])
end

"""
    show(io, t::Tensor)

Prints `t` as PyTorch does (`ct_tensor_to_string`): `tensor([[1., 2.],\\n        [3., 4.]])`,
rows being the first dimension as in Julia's own matrix display. A closed tensor prints as such.
"""
function Base.show(io::IO, t::Tensor)
    if !isopen(t)
        print(io, "Tensor(<closed>)")
        return
    end
    print(io, string_out(out -> L.ct_tensor_to_string(t, out)))
end

Base.show(io::IO, ::MIME"text/plain", t::Tensor) = show(io, t)

# ---- arrays in and out ----

"""Permute t's dims in reverse order (a view): row-major <-> column-major."""
function reverse_dims(t::Tensor, n::Integer)
    n <= 1 && return t
    return ops.permute(t, collect(Int64, n-1:-1:0))
end

function Tensor(A::AbstractArray{T,N}; requires_grad::Bool = false) where {T,N}
    code = dtype(T)
    B = A isa Array{T,N} ? A : Array{T,N}(A)
    rev = Int64[reverse(size(B))...]
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    # Column-major data of size (d1, ..., dn) is row-major data of size (dn, ..., d1): copy it in as
    # that, then reverse the dims (a view), so sizes and element [i, j, ...] are A's.
    GC.@preserve B rev check(L.ct_tensor_from_data(B, N == 0 ? C_NULL : pointer(rev), N, code, out))
    raw = wrap(out[])
    t = reverse_dims(raw, N)
    t === raw || close(raw)
    requires_grad && requires_grad!(t, true)
    return t
end

Tensor(x::Number; requires_grad::Bool = false) = Tensor(fill(x); requires_grad = requires_grad)

"""
    Array(t::Tensor) -> Array{eltype(t), ndims(t)}
    convert(Array, t::Tensor)

A Julia array holding a copy of `t`'s elements, with `size(t)`: element `[i, j, ...]` of the
array is element `[i, j, ...]` of `t`, whatever `t`'s strides. Meta tensors have no data
(`CT_ERROR_DEVICE`).
"""
function Base.Array(t::Tensor)
    T = eltype(t)
    n = ndims(t)
    A = Array{T,n}(undef, size(t))
    v = reverse_dims(t, n)   # its row-major order is A's column-major order
    GC.@preserve A check(L.ct_tensor_copy_to(v, A, sizeof(A)))
    v === t || close(v)
    return A
end

Base.Array{T}(t::Tensor) where {T} = Array{T}(Array(t))
Base.Array{T,N}(t::Tensor) where {T,N} = Array{T,N}(Array(t))
Base.convert(::Type{Array}, t::Tensor) = Array(t)
Base.convert(::Type{Array{T}}, t::Tensor) where {T} = Array{T}(t)
Base.convert(::Type{Array{T,N}}, t::Tensor) where {T,N} = Array{T,N}(t)
Base.collect(t::Tensor) = Array(t)
Base.convert(::Type{Tensor}, A::AbstractArray) = Tensor(A)
Base.convert(::Type{Tensor}, t::Tensor) = t

# ---- factories ----

_dims(dims::Tuple{Vararg{Integer}}) = Int64[dims...]
_dims(dims::Tuple{Tuple{Vararg{Integer}}}) = Int64[dims[1]...]
_device(d) = d === nothing ? C_NULL : String(d)

function _factory(f, T, dims, device)
    d = _dims(dims)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    GC.@preserve d check(f(isempty(d) ? C_NULL : pointer(d), length(d), dtype(T), _device(device), out))
    return wrap(out[])
end

"""
    CTorch.zeros([T,] dims...; device=nothing)
    CTorch.ones([T,] dims...; device=nothing)
    CTorch.empty([T,] dims...; device=nothing)
    CTorch.full(value, [T,] dims...; device=nothing)

New contiguous tensors of sizes `dims` (integers or one tuple) and element type `T` (default
`CTorch.get_default_dtype()`), on `device` ("cpu", "meta", "cuda:0", a plugin's name; `nothing` is
this thread's default device): zeros, ones, uninitialized, or `value`. For symbolic sizes see
`CTorch.empty_symbolic`.
"""
zeros(T::Type, dims...; device = nothing) = _factory(L.ct_tensor_zeros, T, dims, device)
zeros(dims::Union{Integer,Tuple}...; device = nothing) = zeros(get_default_dtype(), dims...; device = device)
@doc (@doc zeros) ones(T::Type, dims...; device = nothing) = _factory(L.ct_tensor_ones, T, dims, device)
ones(dims::Union{Integer,Tuple}...; device = nothing) = ones(get_default_dtype(), dims...; device = device)
@doc (@doc zeros) empty(T::Type, dims...; device = nothing) = _factory(L.ct_tensor_empty, T, dims, device)
empty(dims::Union{Integer,Tuple}...; device = nothing) = empty(get_default_dtype(), dims...; device = device)
@doc (@doc zeros) function full(value::Number, T::Type, dims...; device = nothing)
    s = Ref(scalar(value))
    _factory((p, n, dt, dev, out) -> L.ct_tensor_full(p, n, s, dt, dev, out), T, dims, device)
end
full(value::Number, dims::Union{Integer,Tuple}...; device = nothing) =
    full(value, value isa Bool ? Bool : value isa Integer ? Int64 : get_default_dtype(), dims...; device = device)

"""
    CTorch.arange([T,] start, stop, step=1; device=nothing)

The 1-D tensor `start, start + step, ...` up to but excluding `stop`, as torch.arange (note:
`stop` is excluded, unlike Julia's `start:stop`). `T` defaults to `Int64` for integer arguments,
else the default dtype.
"""
function arange(T::Type, start::Real, stop::Real, step::Real = 1; device = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_arange(start, stop, step, dtype(T), _device(device), out))
    return wrap(out[])
end
arange(start::Real, stop::Real, step::Real = 1; device = nothing) =
    arange(all(x -> x isa Integer, (start, stop, step)) ? Int64 : get_default_dtype(), start, stop, step;
           device = device)

"""
    CTorch.linspace([T,] start, stop, steps; device=nothing)

`steps` values evenly spaced from `start` to `stop` inclusive (1-D).
"""
function linspace(T::Type, start::Real, stop::Real, steps::Integer; device = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_linspace(start, stop, steps, dtype(T), _device(device), out))
    return wrap(out[])
end
linspace(start::Real, stop::Real, steps::Integer; device = nothing) =
    linspace(get_default_dtype(), start, stop, steps; device = device)

"""
    CTorch.eye([T,] n, m=n; device=nothing)

The `n × m` matrix with ones on the diagonal.
"""
function eye(T::Type, n::Integer, m::Integer = -1; device = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_eye(n, m, dtype(T), _device(device), out))
    return wrap(out[])
end
eye(n::Integer, m::Integer = -1; device = nothing) = eye(get_default_dtype(), n, m; device = device)

"""
    CTorch.to(t, T::Type) -> Tensor
    CTorch.to(t, device::AbstractString) -> Tensor

`t` converted to element type `T`, or moved to `device` ("cpu", "meta", "cuda:0", ...). Returns
`t`'s own handle (a new reference) when nothing changes, as torch's `Tensor.to`.
"""
function to(t::Tensor, T::Type)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_to(t, dtype(T), out))
    return wrap(out[])
end
function to(t::Tensor, device::AbstractString)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_to_device(t, device, out))
    return wrap(out[])
end

"""
    copy(t::Tensor) -> Tensor

A contiguous copy sharing nothing with `t` (`clone`); it keeps `t`'s autograd history.
"""
function Base.copy(t::Tensor)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_clone(t, out))
    return wrap(out[])
end

"""
    CTorch.contiguous(t::Tensor) -> Tensor

`t` itself (a new reference) when it is contiguous in the library's row-major order, else a
row-major copy.
"""
function contiguous(t::Tensor)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_contiguous(t, out))
    return wrap(out[])
end
