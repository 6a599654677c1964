# torch_file.jl - PyTorch's checkpoint files over the library's (ctorch.h "Checkpoints: PyTorch
# files": ct_torch_*), so that a Julia program loads what torch.save wrote and PyTorch loads what
# it saves. Tensors keep PyTorch's sizes and element order, as Note [Checkpoint tensors in Julia]
# says for safetensors files.

"""
    CTorch.TorchFile

A loaded PyTorch file: `tensors`, the `name => tensor` pairs in the order the saved object first
refers to them (each named by the keys leading to it: `"model.fc.weight"` in
`{"model": state_dict}`), and `structure`, the saved object as JSON (`{"tensor": i}` is the i-th
tensor, counting from 0; ctorch.h documents every form).
"""
struct TorchFile
    tensors::Vector{Pair{String,Tensor}}
    structure::String
end

function _torch_file(load)
    out = Ref{Ptr{L.ct_torch_file}}(C_NULL)
    check(load(out))
    f = out[]
    try
        s = Ref{Ptr{UInt8}}(C_NULL)
        check(L.ct_torch_file_structure(f, s))
        structure = unsafe_string(s[])
        n = Ref{Csize_t}(0)
        check(L.ct_torch_file_num_tensors(f, n))
        tensors = Pair{String,Tensor}[]
        for i in 0:Int(n[])-1
            name = Ref{Ptr{UInt8}}(C_NULL)
            check(L.ct_torch_file_tensor_name(f, i, name))
            t = Ref{Ptr{L.ct_tensor}}(C_NULL)
            check(L.ct_torch_file_tensor(f, i, t))
            push!(tensors, unsafe_string(name[]) => wrap(t[]))
        end
        return TorchFile(tensors, structure)
    finally
        L.ct_torch_file_release(f)
    end
end

"""
    CTorch.torch_load(path::AbstractString) -> CTorch.TorchFile
    CTorch.torch_load(bytes::AbstractVector{UInt8}) -> CTorch.TorchFile

Read a file `torch.save` wrote (`torch.load(path, weights_only=True)`), without running its
pickle: a file holding anything but tensors, OrderedDicts and plain values throws `CTorchError`
`CT_ERROR_FORMAT` naming it, as does a damaged file; a missing one `CT_ERROR_IO`. Tensors are CPU
tensors; those that shared memory when saved share it. `CTorch.state_dict(file, "model")` gives
the tensors of one saved state dict.
"""
torch_load(path::AbstractString) = _torch_file(out -> L.ct_torch_load(_cstring(path, "the path"), out))

function torch_load(bytes::AbstractVector{UInt8})
    b = Vector{UInt8}(bytes)
    return GC.@preserve b _torch_file(out -> L.ct_torch_load_buffer(b, length(b), out))
end

"""
    CTorch.state_dict(file::CTorch.TorchFile, prefix = "") -> Dict{String,Tensor}

The tensors under `prefix` (`"model"` in `{"model": state_dict, "epoch": 3}`) with the prefix and its
dot removed, for `CTorch.load_state_dict!`; every tensor for `""`.
"""
function state_dict(f::TorchFile, prefix::AbstractString = "")
    head = isempty(prefix) ? "" : prefix * "."
    return Dict{String,Tensor}(p.first[ncodeunits(head)+1:end] => p.second for p in f.tensors if startswith(p.first, head))
end

"""
    CTorch.torch_save(path, tensors)
    CTorch.torch_save(io::IO, tensors)

Write `tensors` (`name => tensor` pairs, kept in their order, or a `Dict`, written in sorted order of
names; Julia arrays are converted with `Tensor`) as a state dict, an `OrderedDict`, as
`torch.save(model.state_dict(), path)` does: PyTorch reads it with `torch.load(path)`. To a path
the file is replaced atomically; to an `IO` the bytes are written there.
"""
function torch_save(dest, tensors)
    ps = tensors isa AbstractDict ? sort!(collect(tensors); by = first) :
         tensors isa Union{AbstractVector{<:Pair},Tuple{Vararg{Pair}}} ? collect(tensors) :
         throw(ArgumentError("torch_save: pass a Dict or name => tensor pairs, got a $(typeof(tensors))"))
    ts = Tensor[_as_tensor(p.second) for p in ps]
    io = IOBuffer()
    print(io, "{\"ordered_dict\":[")
    for (i, p) in enumerate(ps)
        i > 1 && print(io, ',')
        print(io, '[')
        JSON._write_string(io, _cstring(string(p.first), "the tensor name"))
        print(io, ",{\"tensor\":", i - 1, "}]")
    end
    print(io, "]}")
    structure = String(take!(io))
    ptrs = Ptr{L.ct_tensor}[open_ptr(t, "CTorch.save") for t in ts]
    return GC.@preserve ts ptrs _torch_save(dest, structure, ptrs)
end

_torch_save(path::AbstractString, structure, ptrs) =
    (check(L.ct_torch_save(_cstring(path, "the path"), structure, _cptr(ptrs), length(ptrs))); nothing)

function _torch_save(io::IO, structure, ptrs)
    data = Ref{Ptr{UInt8}}(C_NULL)
    size = Ref{Csize_t}(0)
    check(L.ct_torch_save_buffer(structure, _cptr(ptrs), length(ptrs), data, size))
    return _write_library_bytes(io, data[], size[])
end
