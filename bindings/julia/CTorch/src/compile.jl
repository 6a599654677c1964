# compile.jl - compiled Julia functions (ctorch.h "Compilation: ct_compile").

"""
    CompiledFunction

A Julia function compiled by the library (`CTorch.compile`). Call it with tensors; it returns a
`Tensor` or a tuple. Released by a finalizer or `close`.
"""
mutable struct CompiledFunction
    ptr::Ptr{L.ct_compiled}
    fn::TracedFn
    options::Dict{Symbol,Any}
end

Base.unsafe_convert(::Type{Ptr{L.ct_compiled}}, c::CompiledFunction) = c.ptr
Base.close(c::CompiledFunction) = (p = c.ptr; c.ptr = C_NULL; L.ct_compiled_release(p); nothing)

const DYNAMIC = Dict{Any,Cint}(false => L.CT_DYNAMIC_OFF, true => L.CT_DYNAMIC_ON, :auto => L.CT_DYNAMIC_AUTOMATIC,
                               nothing => L.CT_DYNAMIC_AUTOMATIC)

function _make_compiled(fn::TracedFn, o::Dict{Symbol,Any})
    opts = Ref{Ptr{L.ct_compile_options}}(C_NULL)
    check(L.ct_compile_options_create(opts))
    try
        haskey(o, :backend) && check(L.ct_compile_options_set_backend(opts[], String(o[:backend])))
        haskey(o, :mode) && check(L.ct_compile_options_set_mode(opts[], String(o[:mode])))
        for (k, v) in get(o, :options, Dict())
            check(L.ct_compile_options_set_option(opts[], string(k), v isa Bool ? (v ? "true" : "false") : string(v)))
        end
        haskey(o, :dynamic) && check(L.ct_compile_options_set_dynamic(opts[], get(DYNAMIC, o[:dynamic]) do
            throw(ArgumentError("compile: dynamic must be true, false or :auto, got $(repr(o[:dynamic]))"))
        end))
        haskey(o, :fullgraph) && check(L.ct_compile_options_set_fullgraph(opts[], o[:fullgraph]))
        haskey(o, :recompile_limit) && check(L.ct_compile_options_set_recompile_limit(opts[], o[:recompile_limit]))
        haskey(o, :name) && check(L.ct_compile_options_set_name(opts[], String(o[:name])))
        haskey(o, :disable) && check(L.ct_compile_options_set_disable(opts[], o[:disable]))
        out = Ref{Ptr{L.ct_compiled}}(C_NULL)
        check(L.ct_compile(CFUNCTIONS[:traced], root(fn), CFUNCTIONS[:destroy], opts[], out))
        return out[]
    finally
        L.ct_compile_options_release(opts[])
    end
end

"""
    CTorch.compile(f; nout=nothing, backend="fused", mode=nothing, options=Dict(), dynamic=:auto,
                   fullgraph=false, recompile_limit=8, name=nothing, disable=false) -> CompiledFunction

Compile a Julia function of tensors (torch.compile): the first call traces `f` on proxy tensors
(meta tensors with the inputs' dtypes and sizes), fuses its pointwise chains and runs the graph;
later calls whose inputs pass the graph's guards reuse it. `f` takes tensors only (capture other
values in the closure) and returns a tensor or a tuple of them; `nout` says how many (by default
the first trace finds out). Options as `ct_compile_options_set_*`: `backend` "fused" or "eager";
`mode` "default", "reduce-overhead", "max-autotune" (cpu kernels built as C++ by the system
compiler while compiling); `options` booleans "fusion", "cse", "dce", "constant_folding", and
"cpp_kernels" (a boolean or "auto", the default: a cpu kernel is built as C++ in the background once
it is hot, see `CTorch.wait_kernels`); `dynamic` `true`, `false` or `:auto`.

Reading a proxy's data inside `f` (`Array(t)`, `item`, printing) is a graph break: under
`fullgraph=true` the call throws `CTorchError` `CT_ERROR_GRAPH_BREAK`, otherwise those inputs run
`f` eagerly from then on. An exception `f` throws reaches the caller as a `CTorchError` with it as
`cause`. `f` may run more than once per call signature: it must not depend on side effects.

    g = CTorch.compile((x, y) -> x .* CTorch.ops.sigmoid(1.702 .* x) .+ y)
    g(a, b)
"""
function compile(f; nout::Union{Integer,Nothing} = nothing, kwargs...)
    o = Dict{Symbol,Any}(kwargs)
    bad = setdiff(keys(o), (:backend, :mode, :options, :dynamic, :fullgraph, :recompile_limit, :name, :disable))
    isempty(bad) || throw(ArgumentError("compile: unknown option $(join(bad, ", "))"))
    fn = TracedFn(f, nout === nothing ? 1 : nout, nout === nothing ? -1 : nout)
    c = CompiledFunction(_make_compiled(fn, o), fn, o)
    finalizer(close, c)
    return c
end

function (c::CompiledFunction)(inputs::Tensor...)
    ip = Ptr{L.ct_tensor}[open_ptr(t, "a compiled function's inputs") for t in inputs]
    for attempt in 1:3
        n = c.fn.nout
        outs = fill(Ptr{L.ct_tensor}(C_NULL), n)
        clear_pending()
        st = GC.@preserve inputs ip outs L.ct_compiled_call(c, ip, length(ip), outs, n)
        if st != L.CT_OK && attempt < 3 && c.fn.seen_nout >= 0 && c.fn.seen_nout != n
            # The first trace found how many tensors f returns: compile again for that many. Only the
            # output count changes; the failed compiled function is released with its cache.
            c.fn.nout = c.fn.seen_nout
            L.ct_compiled_release(c.ptr)
            c.ptr = _make_compiled(c.fn, c.options)
            continue
        end
        check(st)
        n == 1 && return wrap(outs[1])
        return Tuple(wrap(p) for p in outs)
    end
    error("unreachable")
end

"""
    CTorch.graphs(c::CompiledFunction) -> Vector{String}

The graph of each cache entry as text (FX style), or a line saying it runs eagerly and why.
"""
function graphs(c::CompiledFunction)
    n = Ref{Csize_t}(0)
    check(L.ct_compiled_num_entries(c, n))
    return String[string_out(out -> L.ct_compiled_graph(c, i, out)) for i in 0:Int(n[])-1]
end

"""
    CTorch.compile_metrics(c::CompiledFunction) -> Dict{String,Any}

The function's counters: calls, compiles, recompiles, graph_breaks, eager_calls, guard_misses,
guards, compile latency percentiles.
"""
compile_metrics(c::CompiledFunction) = JSON.parse(string_out(out -> L.ct_compiled_metrics_json(c, out)))

"""
    CTorch.wait_kernels()

Blocks until the background builder has built (or failed to build) every C++ kernel asked of it
so far (`ct_compile_wait_kernels`). With "cpp_kernels" "auto", the default, a fused cpu kernel
starts on its loops and is built as C++ once it has run them for option "cpp_kernels_hot_ms" (20
ms by default); later calls run it, with the same bits. Programs never need to wait; a benchmark
of the steady state, or a test of it, does.
"""
wait_kernels() = (L.ct_compile_wait_kernels(); nothing)
