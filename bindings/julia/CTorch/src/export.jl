# export.jl - exported programs (ctorch.h "Export: programs").

"""
    Dim(name; min=0, max=typemax(Int64))

A dynamic dimension for `CTorch.export_program`: the symbol `name` with range `[min, max]`. Dims declared
with the same name are one symbol (equal on every call).
"""
struct Dim
    name::String
    min::Int64
    max::Int64
end
Dim(name::AbstractString; min::Integer = 0, max::Integer = typemax(Int64)) = Dim(String(name), min, max)

"""
    Program

An exported program (`ct_program`): a graph with its constants, input specs, symbol ranges and
guards. Call it with tensors; it runs without the function it came from. `CTorch.save`,
`CTorch.load_program`, `CTorch.graph`, `CTorch.signature`. Immutable: callable from several threads.
Released by a finalizer or `close`.
"""
mutable struct Program
    ptr::Ptr{L.ct_program}
    function Program(::_Own, p::Ptr{L.ct_program})
        prog = new(p)
        finalizer(close, prog)
        return prog
    end
end
Base.unsafe_convert(::Type{Ptr{L.ct_program}}, p::Program) = p.ptr
Base.close(p::Program) = (q = p.ptr; p.ptr = C_NULL; L.ct_program_release(q); nothing)

"""
    CTorch.export_program(f, example_inputs...; nout=1, dynamic_shapes=()) -> Program

Trace `f` once on proxies of `example_inputs` (real or meta tensors) and return the program.
`dynamic_shapes` declares dynamic dims as pairs `(input, dim) => Dim(...)`, both 1-based (input
`i` is the i-th example; dim `d` as in `size(t, d)`); every other size is static. `nout` is the
number of tensors `f` returns. An exception in `f` reaches the caller as a `CTorchError` with it as
`cause`.

    prog = CTorch.export_program(x -> CTorch.ops.relu(x) .* 2, CTorch.zeros(Float32, 8, 4);
                         dynamic_shapes = [(1, 1) => CTorch.Dim("batch"; min = 1, max = 1024)])
    prog(CTorch.ones(Float32, 3, 4))
"""
function export_program(f, example_inputs::Tensor...; nout::Integer = 1, dynamic_shapes = ())
    ds = Ref{Ptr{L.ct_dynamic_shapes}}(C_NULL)
    check(L.ct_dynamic_shapes_create(ds))
    fn = TracedFn(f, nout, nout)
    key = root(fn)
    try
        for ((input, dim), d) in dynamic_shapes
            check(L.ct_dynamic_shapes_set_dim(ds[], input - 1, dim - 1, d.name, d.min, d.max))
        end
        ip = Ptr{L.ct_tensor}[open_ptr(t, "export_program's example inputs") for t in example_inputs]
        out = Ref{Ptr{L.ct_program}}(C_NULL)
        clear_pending()
        GC.@preserve example_inputs ip check(L.ct_export(CFUNCTIONS[:traced], key, ip, length(ip), nout, ds[], out))
        return Program(_Own(), out[])
    finally
        unroot(key)   # ct_export never keeps fn
        L.ct_dynamic_shapes_release(ds[])
    end
end

"""
    (p::Program)(inputs::Tensor...) -> Tensor or tuple

Run the program. Inputs are checked against its specs: dtype, device, static sizes, dynamic
ranges and the export's guards (`CT_ERROR_SHAPE`, `CT_ERROR_GUARD`, ... otherwise).
"""
function (p::Program)(inputs::Tensor...)
    n = num_outputs(p)
    ip = Ptr{L.ct_tensor}[open_ptr(t, "a program's inputs") for t in inputs]
    outs = fill(Ptr{L.ct_tensor}(C_NULL), n)
    GC.@preserve inputs ip outs check(L.ct_program_call(p, ip, length(ip), outs, n))
    n == 1 && return wrap(outs[1])
    return Tuple(wrap(q) for q in outs)
end

"""
    CTorch.num_inputs(p::Program) -> Int
    CTorch.num_outputs(p::Program) -> Int
"""
num_inputs(p::Program) = (o = Ref{Csize_t}(0); check(L.ct_program_num_inputs(p, o)); Int(o[]))
@doc (@doc num_inputs) num_outputs(p::Program) = (o = Ref{Csize_t}(0); check(L.ct_program_num_outputs(p, o)); Int(o[]))

"""
    CTorch.graph(p::Program) -> String

The program's graph as text.
"""
graph(p::Program) = string_out(out -> L.ct_program_graph(p, out))

"""
    CTorch.signature(p::Program) -> Dict{String,Any}

Inputs and outputs (dtype, device, sizes as expressions such as "2*batch") and the symbols, guards
and runtime assertions (`ct_program_json`).
"""
signature(p::Program) = JSON.parse(string_out(out -> L.ct_program_json(p, out)))

"""
    CTorch.save(p::Program, path)
    CTorch.save(p::Program) -> Vector{UInt8}

Write the program file (docs/program-format.md) to `path` (atomically), or return its bytes.
"""
save(p::Program, path::AbstractString) = check(L.ct_program_save(p, path))
function save(p::Program)
    data = Ref{Ptr{UInt8}}(C_NULL)
    n = Ref{Csize_t}(0)
    check(L.ct_program_save_buffer(p, data, n))
    bytes = unsafe_wrap(Array, data[], Int(n[])) |> copy
    L.ct_string_release(data[])
    return bytes
end

"""
    CTorch.load_program(path::AbstractString) -> Program
    CTorch.load_program(bytes::AbstractVector{UInt8}) -> Program

Read a program file or its bytes. No code runs; every field is validated (`CT_ERROR_FORMAT` names
the field and offset). Register custom operators it uses first.
"""
function load_program(path::AbstractString)
    out = Ref{Ptr{L.ct_program}}(C_NULL)
    check(L.ct_program_load(path, out))
    return Program(_Own(), out[])
end
function load_program(bytes::AbstractVector{UInt8})
    v = Vector{UInt8}(bytes)
    out = Ref{Ptr{L.ct_program}}(C_NULL)
    check(L.ct_program_load_buffer(v, length(v), out))
    return Program(_Own(), out[])
end
