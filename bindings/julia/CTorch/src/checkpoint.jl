# checkpoint.jl - safetensors checkpoints over the library's (ctorch.h "Checkpoints": ct_checkpoint_*).
#
# Note [Checkpoint tensors in Julia]
# A file stores each tensor's sizes and its elements in row-major order, as PyTorch and the C library
# see them; a tensor got from a checkpoint is the library's contiguous (row-major) tensor of those
# sizes. CTorch keeps sizes and indices, not memory order (see docs/julia.md, "Shapes and memory
# order"): size(t) is the file's shape, t[i, j] is element [i-1, j-1] in PyTorch, and Array(t) is the
# Julia array with the same size and elements (a copy that reorders memory). Saving writes any
# tensor's elements in row-major order of its sizes, so save_checkpoint(path, "a" => Tensor(A)) then
# Array(load_checkpoint(path)["a"]) == A, and PyTorch reads a tensor of shape size(A).

"""
    CTorch.Checkpoint(path::AbstractString)
    CTorch.Checkpoint(bytes::AbstractVector{UInt8})
    CTorch.Checkpoint(f::Function, path)

An open safetensors file (`ct_checkpoint`): the whole header is validated on opening (a malformed
file throws `CTorchError` `CT_ERROR_FORMAT` naming the field and byte offset, a missing one
`CT_ERROR_IO`), tensor data is not read. It behaves as a read-only dictionary: `keys(ck)` (the
names, in file order), `ck[name]`, `get(ck, name, default)`, `haskey`, `length`, iteration over
`name => tensor` pairs; `CTorch.metadata(ck)` gives the file's metadata.

Tensors got from it read the file lazily through a memory mapping, without copying, and keep the
mapping alive themselves: they stay valid after `close(ck)` (which releases the handle now; a
finalizer does otherwise), until they are released too. The bytes form copies the bytes in. The
do-block form closes the checkpoint when the block ends. See Note [Checkpoint tensors in Julia]
for sizes and memory order.
"""
mutable struct Checkpoint <: AbstractDict{String,Tensor}
    ptr::Ptr{L.ct_checkpoint}   # C_NULL once closed
    function Checkpoint(p::Ptr{L.ct_checkpoint})
        c = new(p)
        finalizer(c -> (p = c.ptr; c.ptr = C_NULL; L.ct_checkpoint_release(p)), c)
        return c
    end
end

"""A String for C without embedded NULs (which C would cut the text at)."""
function _cstring(s::AbstractString, what::AbstractString)
    '\0' in s && throw(ArgumentError("$what $(repr(s)) contains a NUL character, which the file format cannot hold"))
    return String(s)
end

function Checkpoint(path::AbstractString)
    out = Ref{Ptr{L.ct_checkpoint}}(C_NULL)
    check(L.ct_checkpoint_open(_cstring(path, "the path"), out))
    return Checkpoint(out[])
end

function Checkpoint(bytes::AbstractVector{UInt8})
    b = Vector{UInt8}(bytes)
    out = Ref{Ptr{L.ct_checkpoint}}(C_NULL)
    GC.@preserve b check(L.ct_checkpoint_open_buffer(b, length(b), out))
    return Checkpoint(out[])
end

function Checkpoint(f::Function, source)
    ck = Checkpoint(source)
    try
        return f(ck)
    finally
        close(ck)
    end
end

Base.unsafe_convert(::Type{Ptr{L.ct_checkpoint}}, c::Checkpoint) = c.ptr
Base.close(c::Checkpoint) = (p = c.ptr; c.ptr = C_NULL; L.ct_checkpoint_release(p); nothing)
Base.isopen(c::Checkpoint) = c.ptr != C_NULL

function Base.length(c::Checkpoint)
    n = Ref{Csize_t}(0)
    check(L.ct_checkpoint_num_tensors(c, n))
    return Int(n[])
end

function _name(c::Checkpoint, i::Integer)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(L.ct_checkpoint_name(c, i - 1, out))
    return unsafe_string(out[])
end

Base.keys(c::Checkpoint) = String[_name(c, i) for i in 1:length(c)]
Base.haskey(c::Checkpoint, name::AbstractString) = name in keys(c)

"""The tensor called name, or nothing when the file has none (other failures throw)."""
function _get(c::Checkpoint, name::AbstractString)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    st = L.ct_checkpoint_get(c, _cstring(name, "the tensor name"), out)
    st == L.CT_ERROR_INDEX && isopen(c) && return nothing
    check(st)
    return wrap(out[])
end

function Base.getindex(c::Checkpoint, name::AbstractString)
    t = _get(c, name)
    t === nothing && throw(KeyError(name))
    return t
end
Base.get(c::Checkpoint, name::AbstractString, default) = (t = _get(c, name); t === nothing ? default : t)

function Base.iterate(c::Checkpoint, state = (keys(c), 1))
    names, i = state
    i > length(names) && return nothing
    return (names[i] => c[names[i]], (names, i + 1))
end

"""
    CTorch.metadata(ck::Checkpoint) -> Union{Dict{String,String},Nothing}
    CTorch.metadata(ck::Checkpoint, key) -> Union{String,Nothing}

The file's `"__metadata__"` object (`nothing` when it has none), or one of its values (`nothing`
when the key is absent).
"""
function metadata(c::Checkpoint)
    m = JSON.parse(string_out(out -> L.ct_checkpoint_metadata_json(c, out)))
    return m === nothing ? nothing : Dict{String,String}(k => v for (k, v) in m)
end
function metadata(c::Checkpoint, key::AbstractString)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(L.ct_checkpoint_metadata_get(c, _cstring(key, "the metadata key"), out))
    return out[] == C_NULL ? nothing : unsafe_string(out[])
end

Base.show(io::IO, c::Checkpoint) =
    print(io, "CTorch.Checkpoint(", isopen(c) ? "$(length(c)) tensors: $(join(keys(c), ", "))" : "<closed>", ")")
Base.show(io::IO, ::MIME"text/plain", c::Checkpoint) = show(io, c)

"""
    CTorch.load_checkpoint(path_or_bytes) -> Dict{String,Tensor}

Every tensor of a safetensors file by name (the file's metadata: `CTorch.metadata(CTorch.Checkpoint(path))`).
The tensors read the file lazily and keep its mapping alive (see `CTorch.Checkpoint`).
"""
load_checkpoint(source) = Checkpoint(c -> Dict{String,Tensor}(c), source)

# ---- saving ----

_as_tensor(x::Tensor) = x
_as_tensor(x::AbstractArray) = Tensor(x)
_as_tensor(x) = throw(ArgumentError("save_checkpoint: a $(typeof(x)) is not a tensor or an array"))

"""Names, tensors, their handles and the metadata JSON for ct_checkpoint_save(_buffer)."""
function _save_args(tensors, metadata)
    ps = tensors isa Union{AbstractDict,AbstractVector{<:Pair},Tuple{Vararg{Pair}}} ? collect(tensors) :
         throw(ArgumentError("save_checkpoint: pass a Dict, a Checkpoint or name => tensor pairs, got a $(typeof(tensors))"))
    names = String[_cstring(string(p.first), "the tensor name") for p in ps]
    ts = Tensor[_as_tensor(p.second) for p in ps]
    meta = metadata === nothing ? nothing : _metadata_json(metadata)
    return names, ts, Ptr{L.ct_tensor}[open_ptr(t, "save_checkpoint") for t in ts], meta
end

function _metadata_json(m)
    entries = m isa AbstractDict || m isa AbstractVector{<:Pair} || m isa Tuple{Vararg{Pair}} ? collect(m) :
              throw(ArgumentError("save_checkpoint: metadata must be a Dict or pairs of strings, got a $(typeof(m))"))
    for p in entries
        p.second isa AbstractString ||
            throw(ArgumentError("save_checkpoint: metadata value of $(repr(p.first)) is a $(typeof(p.second)); the " *
                                "format stores strings only. Pass string(value)"))
    end
    return JSON.object_of_strings([string(p.first) => String(p.second) for p in entries])
end

_cptr(v::Vector) = isempty(v) ? C_NULL : pointer(v)

"""
    CTorch.save_checkpoint(path, tensors; metadata=nothing)
    CTorch.save_checkpoint(io::IO, tensors; metadata=nothing)

Write `tensors` (a `Dict` of name => tensor such as `CTorch.state_dict(model)`'s, a `Checkpoint`,
or `name => tensor` pairs; Julia arrays are converted with `Tensor`) as a safetensors file that
PyTorch's `safetensors` reads. `metadata` is a `Dict` (or pairs) of strings stored as
`"__metadata__"`. To a path the file is replaced atomically (written beside it, synced, renamed),
so a failure never leaves half a checkpoint; to an `IO` the bytes are written there. Autograd
state is not saved; see Note [Checkpoint tensors in Julia] for sizes and memory order.

Errors: `CT_ERROR_INVALID_ARGUMENT` for an empty, repeated or reserved (`"__metadata__"`) name,
`CT_ERROR_IO` when the file cannot be written; `ArgumentError` for metadata that is not strings.
"""
function save_checkpoint(path::AbstractString, tensors; metadata = nothing)
    names, ts, ptrs, meta = _save_args(tensors, metadata)
    GC.@preserve names ts ptrs meta begin
        cnames = Ptr{UInt8}[pointer(n) for n in names]
        GC.@preserve cnames check(L.ct_checkpoint_save(_cstring(path, "the path"), _cptr(cnames), _cptr(ptrs),
                                                       length(ptrs), meta === nothing ? C_NULL : meta))
    end
    return nothing
end

function save_checkpoint(io::IO, tensors; metadata = nothing)
    names, ts, ptrs, meta = _save_args(tensors, metadata)
    data = Ref{Ptr{UInt8}}(C_NULL)
    size = Ref{Csize_t}(0)
    GC.@preserve names ts ptrs meta begin
        cnames = Ptr{UInt8}[pointer(n) for n in names]
        GC.@preserve cnames check(L.ct_checkpoint_save_buffer(_cptr(cnames), _cptr(ptrs), length(ptrs),
                                                              meta === nothing ? C_NULL : meta, data, size))
    end
    return _write_library_bytes(io, data[], size[])
end

"""Writes the size bytes at data, a buffer the library allocated, to io, then frees it."""
function _write_library_bytes(io::IO, data::Ptr{UInt8}, size)
    try
        unsafe_write(io, data, size)
    finally
        L.ct_string_release(data)
    end
    return nothing
end
