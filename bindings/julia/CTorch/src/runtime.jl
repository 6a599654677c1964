# runtime.jl - the library, its switches and its observability (ctorch.h "Library", "Runtime switches").

"""
    CTorch.version() -> String

The loaded library's version (`ct_version`), e.g. `"0.9.0"`.
"""
version() = unsafe_string(L.ct_version())

"""
    CTorch.abi_version() -> Int

The ABI number the loaded library implements; at least `LibCTorch.CT_ABI_VERSION` (checked when the
package loads).
"""
abi_version() = Int(L.ct_abi_version())

"""
    CTorch.has_feature(name) -> Bool

Whether this build and machine support a feature: "cpu", "openblas", "threads", "compile", "cuda",
"nvrtc". Unknown names give `false`.
"""
has_feature(name::AbstractString) = L.ct_has_feature(name) != 0

"""
    CTorch.get_num_threads() -> Int
    CTorch.set_num_threads(n)

The number of CPU threads the library's kernels (and OpenBLAS) use. Process-wide.
"""
function get_num_threads()
    out = Ref{Int32}(0)
    check(L.ct_get_num_threads(out))
    return Int(out[])
end
@doc (@doc get_num_threads) set_num_threads(n::Integer) = check(L.ct_set_num_threads(n))

# ---- determinism ----

"""
    CTorch.use_deterministic_algorithms(on::Bool; warn_only=false)

The deterministic-algorithms switch (torch.use_deterministic_algorithms): when on, an operator
whose kernel may differ run to run fails with `CT_ERROR_NONDETERMINISTIC` (or warns, with
`warn_only`), and `empty` fills new memory. Process-wide.
"""
use_deterministic_algorithms(on::Bool; warn_only::Bool = false) = check(L.ct_use_deterministic_algorithms(on, warn_only))

"""
    CTorch.are_deterministic_algorithms_enabled() -> Bool
    CTorch.is_deterministic_algorithms_warn_only_enabled() -> Bool

Read the deterministic-algorithms switch.
"""
are_deterministic_algorithms_enabled() = L.ct_are_deterministic_algorithms_enabled() != 0
@doc (@doc are_deterministic_algorithms_enabled) is_deterministic_algorithms_warn_only_enabled() =
    L.ct_is_deterministic_algorithms_warn_only_enabled() != 0

"""
    CTorch.get_deterministic_debug_mode() -> Int
    CTorch.set_deterministic_debug_mode(mode)

The same switch as one number: 0 off, 1 warn, 2 error.
"""
get_deterministic_debug_mode() = Int(L.ct_get_deterministic_debug_mode())
@doc (@doc get_deterministic_debug_mode) set_deterministic_debug_mode(mode::Integer) =
    check(L.ct_set_deterministic_debug_mode(mode))

# ---- defaults and precision ----

"""
    CTorch.set_default_device(device)

The device this thread's factories use when given none ("cpu", "meta", "cuda:0", ...; `nothing`
resets to "cpu").
"""
set_default_device(device) = check(L.ct_set_default_device(device === nothing ? C_NULL : String(device)))

"""
    CTorch.get_default_device() -> String

The device a factory without one would use now on this thread.
"""
function get_default_device()
    ty = Ref{Cint}(0)
    idx = Ref{Int32}(0)
    check(L.ct_get_default_device(ty, idx))
    name = unsafe_string(L.ct_device_type_name(ty[]))
    return idx[] < 0 ? name : "$name:$(idx[])"
end

"""
    CTorch.with_device(f, device)

Run `f()` with `device` as this thread's default device for factories (a device context, as
Python's `with ctorch.device(...)`), restoring the previous one afterwards.
"""
function with_device(f, device::AbstractString)
    check(L.ct_device_push(device))
    try
        return f()
    finally
        check(L.ct_device_pop())
    end
end

# The ct_device_type of a device type's name ("cpu", "cuda" or a plugin's registered name).
function device_type_code(name::AbstractString)
    for code in Cint(0):Cint(6)
        p = L.ct_device_type_name(code)
        p != C_NULL && unsafe_string(p) == name && return code
    end
    throw(ArgumentError("CTorch: unknown device type \"$name\". Use \"cpu\", \"cuda\" or a plugin's name"))
end

"""
    CTorch.autocast(f, device_type = "cpu"; dtype = device_type == "cuda" ? Float16 : BFloat16)

Run `f()` with automatic mixed precision on for `device_type` on this thread (torch.autocast),
restoring the previous state afterwards. Operator calls on that device type follow PyTorch's
autocast lists: matrix products, linear and convolutions cast Float32 inputs to `dtype`; losses,
norms and the other precision-sensitive operators compute in Float32; the rest run in the types
they are given; Float64 is never cast. Autograd records the casts. Throws `CTorchError` for a
`dtype` other than `Float16` or `BFloat16`.

    y = CTorch.autocast("cpu") do
        ops.linear(x, w, b)   # a BFloat16 result
    end
"""
function autocast(f, device_type::AbstractString = "cpu"; dtype::Type = device_type == "cuda" ? Float16 : BFloat16)
    code = device_type_code(device_type)
    was_on = is_autocast_enabled(device_type)
    old = Ref{Cint}(0)
    check(L.ct_autocast_get_dtype(code, old))
    check(L.ct_autocast_set_dtype(code, CTorch.dtype(dtype)))
    check(L.ct_autocast_set_enabled(code, 1))
    try
        return f()
    finally
        check(L.ct_autocast_set_dtype(code, old[]))
        check(L.ct_autocast_set_enabled(code, was_on ? 1 : 0))
    end
end

"""
    CTorch.is_autocast_enabled(device_type = "cpu") -> Bool
    CTorch.get_autocast_dtype(device_type = "cpu") -> Type

Whether autocast is on for `device_type` on this thread, and the type it computes the
lower-precision operators in.
"""
function is_autocast_enabled(device_type::AbstractString = "cpu")
    on = Ref{Cint}(0)
    check(L.ct_autocast_is_enabled(device_type_code(device_type), on))
    return on[] != 0
end
@doc (@doc is_autocast_enabled) function get_autocast_dtype(device_type::AbstractString = "cpu")
    code = Ref{Cint}(0)
    check(L.ct_autocast_get_dtype(device_type_code(device_type), code))
    return eltype_of(code[])
end

"""
    CTorch.set_float32_matmul_precision(p)
    CTorch.get_float32_matmul_precision() -> String

"highest" (default), "high" (TF32 on CUDA) or "medium".
"""
set_float32_matmul_precision(p::AbstractString) = check(L.ct_set_float32_matmul_precision(p))
@doc (@doc set_float32_matmul_precision) get_float32_matmul_precision() =
    unsafe_string(L.ct_get_float32_matmul_precision())

"""
    CTorch.set_printoptions(; precision, threshold, edgeitems, linewidth, profile, sci_mode)

How tensors print (torch.set_printoptions), process-wide: `profile` (`:default`, `:short`, `:full`)
sets the four numbers first; `sci_mode` `nothing` (the default) chooses from the values, `true` or
`false` force it. `threshold = Inf` never summarizes.
"""
function set_printoptions(; precision = nothing, threshold = nothing, edgeitems = nothing, linewidth = nothing,
                          profile = nothing, sci_mode = nothing)
    o = Ref{L.ct_print_options}()
    check(L.ct_print_options_default(o))
    check(L.ct_get_print_options(o))
    c = o[]
    p, t, e, w = c.precision, c.threshold, c.edgeitems, c.linewidth
    if profile !== nothing
        profiles = Dict(:default => (4, 1000, 3, 80), :short => (2, 1000, 2, 80), :full => (4, typemax(Int64), 3, 80))
        haskey(profiles, Symbol(profile)) || throw(ArgumentError("profile must be :default, :short or :full"))
        p, t, e, w = profiles[Symbol(profile)]
    end
    precision === nothing || (p = precision)
    threshold === nothing || (t = threshold == Inf ? typemax(Int64) : Int64(threshold))
    edgeitems === nothing || (e = edgeitems)
    linewidth === nothing || (w = linewidth)
    s = sci_mode === nothing ? -1 : Int(sci_mode)
    check(L.ct_set_print_options(Ref(L.ct_print_options(c.struct_size, p, t, e, w, s))))
    return nothing
end

"""
    CTorch.set_warn_always(on::Bool)
    CTorch.is_warn_always_enabled() -> Bool

Warnings the library gives once per process come every time while on (torch.set_warn_always).
"""
set_warn_always(on::Bool) = L.ct_set_warn_always(on)
@doc (@doc set_warn_always) is_warn_always_enabled() = L.ct_is_warn_always_enabled() != 0

"""
    CTorch.set_anomaly_enabled(on::Bool; check_nan = true)
    CTorch.is_anomaly_enabled() -> Bool

Anomaly detection (torch.set_anomaly_enabled): while on, backward throws `CTorchError` at the first
node whose gradient holds NaN, naming it. Process-wide.
"""
set_anomaly_enabled(on::Bool; check_nan::Bool = true) = L.ct_set_anomaly_enabled(on, check_nan)
@doc (@doc set_anomaly_enabled) is_anomaly_enabled() = L.ct_is_anomaly_enabled() != 0

"""
    CTorch.set_flush_denormal(on::Bool) -> Bool

Denormal floats read and written as zero on this thread and its parallel work (torch.set_flush_denormal);
`false` where the CPU has no such mode.
"""
function set_flush_denormal(on::Bool)
    supported = Ref{Cint}(0)
    check(L.ct_set_flush_denormal(on, supported))
    return supported[] != 0
end

# ---- metrics, profiler, plugins ----

"""
    CTorch.metric(name) -> Int

One of the library's counters: "tensors.live", "storages.live", "memory.cpu.bytes_allocated",
"compile.compiles", ... (ct_metric_get lists them; an unknown name's error lists them too).
"""
function metric(name::AbstractString)
    out = Ref{Int64}(0)
    check(L.ct_metric_get(name, out))
    return out[]
end

"""
    CTorch.metrics() -> Dict{String,Any}

Every metric as one dictionary (`ct_metrics_json`).
"""
metrics() = JSON.parse(string_out(out -> L.ct_metrics_json(out)))

"""
    CTorch.profiler_start()
    CTorch.profiler_stop(path=nothing) -> Union{String,Nothing}
    CTorch.profiler_is_running() -> Bool

Record a span for every operator call on every thread; `profiler_stop` writes them as a Chrome
trace (Perfetto) to `path`, or returns the trace text when `path` is `nothing`.
"""
profiler_start() = check(L.ct_profiler_start())
@doc (@doc profiler_start) profiler_stop(path::Union{AbstractString,Nothing} = nothing) =
    path === nothing ? string_out(out -> L.ct_profiler_stop_to_string(out)) : check(L.ct_profiler_stop_to_file(path))
@doc (@doc profiler_start) profiler_is_running() = L.ct_profiler_is_running() != 0

"""
    CTorch.profile(f; path=nothing)

Run `f()` under the profiler; returns `(result, trace)` where `trace` is the Chrome trace text
(or `nothing` after writing it to `path`).
"""
function profile(f; path = nothing)
    profiler_start()
    local result
    try
        result = f()
    catch
        profiler_stop(path)
        rethrow()
    end
    return result, profiler_stop(path)
end

"""
    CTorch.plugins() -> Dict{String,Any}

The device backend plugins the library found (`ct_plugins_json`).
"""
plugins() = JSON.parse(string_out(out -> L.ct_plugins_json(out)))

# ---- logging ----

const LOG_LEVELS = (:debug, :info, :warning, :error)

"""
    CTorch.set_log_level(level::Symbol)
    CTorch.get_log_level() -> Symbol

The lowest level of library messages delivered: `:debug`, `:info`, `:warning` (default), `:error`.
"""
function set_log_level(level::Symbol)
    k = findfirst(==(level), LOG_LEVELS)
    k === nothing && throw(ArgumentError("set_log_level: $level is not one of $(join(LOG_LEVELS, ", "))"))
    check(L.ct_set_log_level(k - 1))
end
@doc (@doc set_log_level) get_log_level() = LOG_LEVELS[L.ct_get_log_level()+1]

"""
    CTorch.set_log_handler(f)
    CTorch.set_log_handler(nothing)

Route the library's messages (warnings such as nondeterministic operators under warn-only mode) to
`f(level::Int, message::String)` (levels 0 debug .. 3 error), or back to stderr with `nothing`.
`CTorch.log_to_julia()` installs a handler that emits them as Julia log records (`@warn`, ...).
The library calls it on the thread that logs: it must not throw (exceptions are dropped).
"""
function set_log_handler(f)
    if f === nothing
        check(L.ct_set_log_handler(C_NULL, C_NULL, C_NULL))
    else
        check(L.ct_set_log_handler(CFUNCTIONS[:log], root(f), CFUNCTIONS[:destroy]))
    end
end

"""
    CTorch.log_to_julia()

Send the library's messages to Julia's logging (`@debug`, `@info`, `@warn`, `@error`, group
`:ctorch`).
"""
log_to_julia() = set_log_handler(function (level, msg)
    if level <= 0
        @debug msg _group = :ctorch
    elseif level == 1
        @info msg _group = :ctorch
    elseif level == 2
        @warn msg _group = :ctorch
    else
        @error msg _group = :ctorch
    end
end)

# ---- CUDA and pinned memory ----

"""
    CTorch.cuda_device_count() -> Int

CUDA devices this process sees (0 without the CUDA backend, a driver or a GPU).
"""
cuda_device_count() = Int(L.ct_cuda_device_count())

"""
    CTorch.cuda_synchronize(device=0)

Wait for every kernel and copy queued on a CUDA device.
"""
cuda_synchronize(device::Integer = 0) = check(L.ct_cuda_synchronize(device))

"""
    CTorch.cuda_empty_cache()

Give the CUDA caching allocator's unused memory back to CUDA.
"""
cuda_empty_cache() = check(L.ct_cuda_empty_cache())

"""
    CTorch.pin_memory(t) -> Tensor
    CTorch.is_pinned(t) -> Bool

A copy of a cpu tensor in page-locked memory (CUDA copies it directly); whether `t` is pinned.
"""
function pin_memory(t::Tensor)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_pin_memory(t, out))
    return wrap(out[])
end
@doc (@doc pin_memory) function is_pinned(t::Tensor)
    out = Ref{Cint}(0)
    check(L.ct_tensor_is_pinned(t, out))
    return out[] != 0
end
