# callbacks.jl - Julia functions the library calls back: rooting their closures, the @cfunction
# trampolines, and how an exception crosses back.
#
# Note [Julia callbacks never throw through C]
# Every trampoline runs its Julia function inside try/catch. An exception is kept in PENDING for this
# thread and reported with ct_error_set(status, "<Type>: <message>") (a CTorchError keeps its
# status, anything else is CT_ERROR_INVALID_ARGUMENT: the caller's mistake as far as the library can
# tell); the trampoline returns that status, the library nests the message under the operation that
# called back, and the Julia caller of that operation throws a CTorchError whose message holds the
# original text and whose `cause` is the original exception (throw_status).
#
# The library calls back on the thread that made the call (compiled functions, custom functions
# and kernels, hooks, allocations). Julia 1.5 cannot run Julia code on a thread it did not start,
# so a callback must never be reached from one; nothing in this package arranges that.

# Closures handed to the library as user_data: a key into ROOTS, removed by the destroy callback.
const ROOTS = Dict{UInt,Any}()
const ROOTS_LOCK = Threads.SpinLock()
const NEXT_ROOT = Ref{UInt}(0)

"""Keep obj alive until the library calls the destroy trampoline with the returned user_data."""
function root(obj)::Ptr{Cvoid}
    # A finalizer on this thread (a compiled function released by the GC) may unroot while the
    # dictionary is being changed here: finalizers wait until the change is done. (Julia 1.5 has no
    # GC.enable_finalizers; this is the runtime function it calls in later versions.)
    _enable_finalizers(false)
    try
        lock(ROOTS_LOCK)
        try
            NEXT_ROOT[] += 1
            ROOTS[NEXT_ROOT[]] = obj
            return Ptr{Cvoid}(NEXT_ROOT[])
        finally
            unlock(ROOTS_LOCK)
        end
    finally
        _enable_finalizers(true)
    end
end

@static if isdefined(GC, :enable_finalizers)
    _enable_finalizers(on::Bool) = GC.enable_finalizers(on)
else
    _enable_finalizers(on::Bool) = ccall(:jl_gc_enable_finalizers, Cvoid, (Ptr{Cvoid}, Int32), Core.getptls(), on)
end

function rooted(user_data::Ptr{Cvoid})
    lock(ROOTS_LOCK)
    try
        return ROOTS[UInt(user_data)]
    finally
        unlock(ROOTS_LOCK)
    end
end

function unroot(user_data::Ptr{Cvoid})
    lock(ROOTS_LOCK)
    try
        delete!(ROOTS, UInt(user_data))
    finally
        unlock(ROOTS_LOCK)
    end
    return nothing
end

"""The number of Julia closures the library holds (compiled functions, kernels, hooks, ...)."""
live_callbacks() = (lock(ROOTS_LOCK); try length(ROOTS) finally unlock(ROOTS_LOCK) end)

"""Report a callback's exception to the library (see Note [Julia callbacks never throw through C])."""
function report_exception(e)::Cint
    @inbounds PENDING[_pending_slot()] = e
    st = e isa CTorchError ? e.status : L.CT_ERROR_INVALID_ARGUMENT
    text = sprint(showerror, e)
    type = string(nameof(typeof(e)))
    msg = e isa CTorchError ? e.message : startswith(text, type) ? text : string(type, ": ", text)
    L.ct_error_set(st, msg)
    return Cint(st)
end

"""Tensors from a C array of n borrowed handles (each retained, so the Julia objects own theirs)."""
borrowed_tensors(p::Ptr{Ptr{L.ct_tensor}}, n::Integer) =
    Tensor[wrap_borrowed(unsafe_load(p, i)) for i in 1:n]

"""Write new references to results into a C array of n slots (a result of nothing writes NULL)."""
function write_results(p::Ptr{Ptr{L.ct_tensor}}, results, n::Integer, what::AbstractString)
    rs = results isa Tensor || results === nothing ? (results,) : Tuple(results)
    length(rs) == n || throw(ArgumentError("$what returned $(length(rs)) values where $n tensors were expected"))
    for (i, r) in enumerate(rs)
        if r === nothing
            unsafe_store!(p, C_NULL, i)
        else
            r isa Tensor || throw(ArgumentError("$what returned a $(typeof(r)) where a Tensor was expected"))
            check(L.ct_tensor_retain(r))
            unsafe_store!(p, r.ptr, i)
        end
    end
end

# ---- trampolines ----

function _destroy(user_data::Ptr{Cvoid})::Cvoid
    unroot(user_data)
    return nothing
end

# ct_traced_fn: compiled functions and exported programs. user_data roots a TracedFn.
mutable struct TracedFn
    f::Any
    nout::Int        # outputs the library asked for
    seen_nout::Int   # outputs f returned on its last run (-1 before any)
end

function _traced(user_data::Ptr{Cvoid}, inputs::Ptr{Ptr{L.ct_tensor}}, n_in::Csize_t, outputs::Ptr{Ptr{L.ct_tensor}},
                 n_out::Csize_t)::Cint
    try
        fn = rooted(user_data)::TracedFn
        args = borrowed_tensors(inputs, n_in)
        result, made = scoped(() -> fn.f(args...))
        fn.seen_nout = result isa Tuple || result isa AbstractVector ? length(result) : 1
        write_results(outputs, result, n_out, "the traced function")
        foreach(close, made)
        foreach(close, args)
        return L.CT_OK
    catch e
        return report_exception(e)
    end
end

"""
    CTorch.AutogradContext

What a custom function's forward and backward share (`ct_autograd_ctx`): `save_for_backward(ctx,
tensors...)` in forward, `saved_tensors(ctx)` in backward. Valid only during those calls.
"""
struct AutogradContext
    ptr::Ptr{L.ct_autograd_ctx}
end

function _forward(user_data::Ptr{Cvoid}, ctx::Ptr{L.ct_autograd_ctx}, inputs::Ptr{Ptr{L.ct_tensor}}, n_in::Csize_t,
                  outputs::Ptr{Ptr{L.ct_tensor}}, n_out::Csize_t)::Cint
    try
        fns = rooted(user_data)
        args = borrowed_tensors(inputs, n_in)
        result, made = scoped(() -> fns.forward(AutogradContext(ctx), args...))
        write_results(outputs, result, n_out, "the custom function's forward")
        foreach(close, made)
        foreach(close, args)
        return L.CT_OK
    catch e
        return report_exception(e)
    end
end

function _backward(user_data::Ptr{Cvoid}, ctx::Ptr{L.ct_autograd_ctx}, grads::Ptr{Ptr{L.ct_tensor}}, n_out::Csize_t,
                   grad_inputs::Ptr{Ptr{L.ct_tensor}}, n_in::Csize_t)::Cint
    try
        fns = rooted(user_data)
        gs = borrowed_tensors(grads, n_out)
        result, made = scoped(() -> fns.backward(AutogradContext(ctx), gs...))
        write_results(grad_inputs, result, n_in, "the custom function's backward")
        foreach(close, made)
        foreach(close, gs)
        return L.CT_OK
    catch e
        return report_exception(e)
    end
end

# An optimizer's closure returns the loss: a number, or a one-element Tensor.
function _closure(user_data::Ptr{Cvoid}, loss::Ptr{Float64})::Cint
    try
        f = rooted(user_data)
        r, made = scoped(f)
        value = r isa Tensor ? Float64(item(r)) : r isa Real ? Float64(r) :
            throw(ArgumentError("an optimizer's closure returned a $(typeof(r)); return the loss (a Tensor or a number)"))
        foreach(close, made)
        unsafe_store!(loss, value)
        return L.CT_OK
    catch e
        return report_exception(e)
    end
end

function _hook(user_data::Ptr{Cvoid}, grad::Ptr{L.ct_tensor}, replacement::Ptr{Ptr{L.ct_tensor}})::Cint
    try
        f = rooted(user_data)
        g = wrap_borrowed(grad)
        r, made = scoped(() -> f(g))
        if r isa Tensor
            check(L.ct_tensor_retain(r))
            unsafe_store!(replacement, r.ptr)
        end
        foreach(close, made)
        close(g)
        if r !== nothing && !(r isa Tensor) r !== nothing
            throw(ArgumentError("a gradient hook returned a $(typeof(r)); return a Tensor to replace the gradient, " *
                                "or nothing to keep it"))
        end
        return L.CT_OK
    catch e
        return report_exception(e)
    end
end

function _post_accumulate_hook(user_data::Ptr{Cvoid}, t::Ptr{L.ct_tensor})::Cint
    try
        f = rooted(user_data)
        leaf = wrap_borrowed(t)
        _, made = scoped(() -> f(leaf))
        foreach(close, made)
        close(leaf)
        return L.CT_OK
    catch e
        return report_exception(e)
    end
end

function _kernel(user_data::Ptr{Cvoid}, args::Ptr{L.ct_value}, nargs::Csize_t, outs::Ptr{Ptr{L.ct_tensor}},
                 nouts::Csize_t)::Cint
    try
        k = rooted(user_data)
        values = Any[unbox(unsafe_load(args, i)) for i in 1:nargs]
        # A built-in operator's outputs may arrive preallocated; the library releases what we replace.
        result, made = scoped(() -> k.f(values...))
        write_results(outs, result, nouts, "the kernel of $(k.name)")
        foreach(close, made)
        foreach(v -> v isa Tensor && close(v), values)
        return L.CT_OK
    catch e
        return report_exception(e)
    end
end

# Memory pressure: collect garbage so the finalizers of unreachable tensors release them.
const PRESSURE_CALLS = Threads.Atomic{Int}(0)

function _memory_pressure(user_data::Ptr{Cvoid}, device_type::Cint, nbytes::Csize_t)::Cint
    Threads.atomic_add!(PRESSURE_CALLS, 1)
    try
        GC.gc(true)
        return Cint(1)
    catch
        return Cint(0)
    end
end

function _log(user_data::Ptr{Cvoid}, level::Cint, message::Ptr{UInt8})::Cvoid
    try
        rooted(user_data)(Int(level), unsafe_string(message))
    catch
    end
    return nothing
end

const CFUNCTIONS = Dict{Symbol,Ptr{Cvoid}}()

"""Make the @cfunction pointers (at run time: they cannot be precompiled)."""
function init_callbacks()
    TENSOR_FINALIZER[] = @cfunction(_finalize_tensor, Cvoid, (Ptr{Cvoid},))
    CFUNCTIONS[:destroy] = @cfunction(_destroy, Cvoid, (Ptr{Cvoid},))
    CFUNCTIONS[:traced] = @cfunction(_traced, Cint, (Ptr{Cvoid}, Ptr{Ptr{L.ct_tensor}}, Csize_t,
                                                       Ptr{Ptr{L.ct_tensor}}, Csize_t))
    CFUNCTIONS[:forward] = @cfunction(_forward, Cint, (Ptr{Cvoid}, Ptr{L.ct_autograd_ctx}, Ptr{Ptr{L.ct_tensor}},
                                                         Csize_t, Ptr{Ptr{L.ct_tensor}}, Csize_t))
    CFUNCTIONS[:backward] = @cfunction(_backward, Cint, (Ptr{Cvoid}, Ptr{L.ct_autograd_ctx}, Ptr{Ptr{L.ct_tensor}},
                                                           Csize_t, Ptr{Ptr{L.ct_tensor}}, Csize_t))
    CFUNCTIONS[:hook] = @cfunction(_hook, Cint, (Ptr{Cvoid}, Ptr{L.ct_tensor}, Ptr{Ptr{L.ct_tensor}}))
    CFUNCTIONS[:post_accumulate_hook] = @cfunction(_post_accumulate_hook, Cint, (Ptr{Cvoid}, Ptr{L.ct_tensor}))
    CFUNCTIONS[:closure] = @cfunction(_closure, Cint, (Ptr{Cvoid}, Ptr{Float64}))
    CFUNCTIONS[:kernel] = @cfunction(_kernel, Cint, (Ptr{Cvoid}, Ptr{L.ct_value}, Csize_t, Ptr{Ptr{L.ct_tensor}},
                                                       Csize_t))
    CFUNCTIONS[:memory_pressure] = @cfunction(_memory_pressure, Cint, (Ptr{Cvoid}, Cint, Csize_t))
    CFUNCTIONS[:log] = @cfunction(_log, Cvoid, (Ptr{Cvoid}, Cint, Ptr{UInt8}))
    return nothing
end

"""Install the memory-pressure handler: a failed allocation runs Julia's GC and is retried."""
install_memory_pressure_handler() =
    check(L.ct_set_memory_pressure_handler(CFUNCTIONS[:memory_pressure], C_NULL, C_NULL))

"""
    CTorch.memory_pressure_calls() -> Int

How many times the library's memory-pressure callback ran Julia's garbage collector in this
session: it does so when an allocation fails, so that unreachable tensors are released before the
allocation is retried (and before an out-of-memory error).
"""
memory_pressure_calls() = PRESSURE_CALLS[]
