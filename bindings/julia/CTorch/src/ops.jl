# ops.jl - boxed operator calls (ct_op_call): Julia values as ct_value, overload choice by the
# registry's argument tables, and the module CTorch.ops with one function per built-in operator
# (src/generated/ops.jl) plus ops.call for any operator.

"""The base of a schema type: "Tensor(a!)" -> "Tensor", "int[2]?" -> "int[]", "Scalar?" -> "Scalar"."""
function base_type(t::AbstractString)
    t = replace(t, r"\([a-z!]+\)" => "")
    t = replace(t, "?" => "")
    return replace(t, r"\[\d*\]" => "[]")
end

optional(t::AbstractString) = endswith(t, "?")

# Note [Boxed call cost]
# A generated method runs on every call of CTorch.ops.add etc., so what can be worked out from the
# schema alone is worked out once, when the overload tables are built: each argument's base type as
# a Symbol (`kind`, compared by identity where parsing the type string with three regexes per
# argument per call made `ops.add(a, b)` over 20x the C ABI), whether it is optional, and the number of
# positional arguments. A call then only looks at the Julia values it was given, and calls the
# overload through its library handle (ct_op_find, once per overload, on its first call) with
# ct_op_call_op, so the library does not look the name up again on every call either.

"""One schema argument: name, schema type ("Tensor", "int[2]", "Scalar?", ...), kwarg-only, has a default."""
struct Arg
    name::Symbol
    type::String
    kwarg_only::Bool
    has_default::Bool
    kind::Symbol       # base_type(type): Symbol("Tensor"), Symbol("int[]"), ... (Note [Boxed call cost])
    optional::Bool     # the type ends in "?": nothing is accepted
end
Arg(name::Symbol, type::String, kwarg_only::Bool, has_default::Bool) =
    Arg(name, type, kwarg_only, has_default, Symbol(base_type(type)), optional(type))

"""One operator overload: its full name ("add.Tensor"), arguments, number of returns, schema."""
struct Overload
    name::String
    args::Vector{Arg}
    nreturns::Int
    schema::String
    npositional::Int   # arguments that are not keyword-only
    handle::Base.RefValue{Ptr{L.ct_op}}   # ct_op_find(name) once called, else C_NULL (Note [Boxed call cost])
end
Overload(name::String, args::Vector{Arg}, nreturns::Integer, schema::String) =
    Overload(name, args, nreturns, schema, count(a -> !a.kwarg_only, args), Ref(Ptr{L.ct_op}(C_NULL)))

"""ov's library handle, found on first use (the library keeps it valid for the whole process)."""
@inline function op_handle(ov::Overload)
    p = ov.handle[]
    p == C_NULL || return p
    return _find_op(ov)
end

@noinline function _find_op(ov::Overload)
    out = Ref{Ptr{L.ct_op}}(C_NULL)
    check(L.ct_op_find(ov.name, out))
    ov.handle[] = out[]   # threads racing here store the same handle
    return out[]
end

# ---- Julia values as ct_value ----

const NONE_VALUE = L.ct_value(L.CT_VALUE_NONE, 0, 0.0, C_NULL, C_NULL, C_NULL, 0, C_NULL)

_value(kind; i = 0, f = 0.0, tensor = C_NULL, ints = C_NULL, tensors = C_NULL, len = 0, str = C_NULL) =
    L.ct_value(kind, i, f, tensor, ints, tensors, len, str)

_isint(x) = (x isa Integer && !(x isa Bool)) || x isa SymInt
_islist(x) = x isa Tuple || x isa AbstractVector

const K_TENSOR, K_TENSORS, K_INT, K_SYMINT, K_INTS, K_SYMINTS = Symbol("Tensor"), Symbol("Tensor[]"), :int, :SymInt,
                                                               Symbol("int[]"), Symbol("SymInt[]")
const K_FLOAT, K_SCALAR, K_BOOL, K_DTYPE, K_DEVICE, K_STR = :float, :Scalar, :bool, :ScalarType, :Device, :str

"""Whether a Julia value can be passed as the schema argument a."""
function accepts(a::Arg, x)
    x === nothing && return a.optional
    b = a.kind
    b === K_TENSOR && return x isa Tensor
    b === K_TENSORS && return _islist(x) && all(y -> y isa Tensor, x)
    (b === K_INT || b === K_SYMINT) && return _isint(x)
    (b === K_INTS || b === K_SYMINTS) && return _isint(x) || (_islist(x) && all(_isint, x))
    b === K_FLOAT && return x isa Real && !(x isa Bool)
    b === K_SCALAR && return x isa Real
    b === K_BOOL && return x isa Bool
    b === K_DTYPE && return x isa Type && x in ELTYPES
    (b === K_DEVICE || b === K_STR) && return x isa AbstractString
    return false   # Generator and anything else: only nothing (the default)
end

"""A ct_value for x (schema base type `kind`, or nothing to go by x's Julia type); buffers it points to go in keep."""
function box(x, kind::Union{Symbol,Nothing}, keep::Vector{Any})
    x === nothing && return NONE_VALUE
    b = kind === nothing ? Symbol("") : kind
    if x isa Tensor
        # The caller keeps x alive across the call (GC.@preserve of its arguments).
        return _value(L.CT_VALUE_TENSOR; tensor = open_ptr(x, "an operator"))
    elseif x isa SymInt
        push!(keep, x)
        return _value(L.CT_VALUE_SYMINT; tensor = Ptr{L.ct_tensor}(x.ptr))   # ct_value_set_symint
    elseif _islist(x) && !isempty(x) && all(y -> y isa Tensor, x)
        ps = Ptr{L.ct_tensor}[open_ptr(y, "an operator (a list of tensors)") for y in x]
        push!(keep, ps, x)
        return _value(L.CT_VALUE_TENSORS; tensors = pointer(ps), len = length(ps))
    elseif _islist(x) && any(y -> y isa SymInt, x)
        syms = SymInt[y isa SymInt ? y : SymInt(y) for y in x]
        ps = Ptr{L.ct_tensor}[Ptr{L.ct_tensor}(s.ptr) for s in syms]
        push!(keep, ps, syms)
        return _value(L.CT_VALUE_SYMINTS; tensors = pointer(ps), len = length(ps))   # ct_value_set_symints
    elseif _islist(x) || (x isa Integer && !(x isa Bool) && b === K_INTS)
        v = Int64[y for y in (x isa Integer ? (x,) : x)]
        push!(keep, v)
        return b === K_TENSORS ? _value(L.CT_VALUE_TENSORS; tensors = C_NULL, len = 0) :
               _value(L.CT_VALUE_INTS; ints = isempty(v) ? C_NULL : pointer(v), len = length(v))
    elseif x isa Bool
        return _value(L.CT_VALUE_BOOL; i = Int64(x))
    elseif x isa Integer
        return _value(L.CT_VALUE_INT; i = Int64(x))
    elseif x isa Real
        return _value(L.CT_VALUE_FLOAT; f = Float64(x))
    elseif x isa Type
        return _value(L.CT_VALUE_DTYPE; i = Int64(dtype(x)))
    elseif x isa AbstractString
        s = String(x)
        push!(keep, s)
        return _value(b === K_DEVICE ? L.CT_VALUE_DEVICE : L.CT_VALUE_STRING; str = pointer(s))
    end
    throw(ArgumentError("CTorch: cannot pass a $(typeof(x)) to an operator (schema type $(something(kind, "unknown")))"))
end

"""A Julia value for a ct_value a kernel receives (tensors are new Tensor objects of their own)."""
function unbox(v::L.ct_value)
    k = v.kind
    k == L.CT_VALUE_NONE && return nothing
    k == L.CT_VALUE_TENSOR && return wrap_borrowed(v.tensor)
    k == L.CT_VALUE_INT && return v.i
    k == L.CT_VALUE_FLOAT && return v.f
    k == L.CT_VALUE_BOOL && return v.i != 0
    k == L.CT_VALUE_INTS && return Int64[unsafe_load(v.ints, i) for i in 1:v.len]
    k == L.CT_VALUE_TENSORS && return Tensor[wrap_borrowed(unsafe_load(v.tensors, i)) for i in 1:v.len]
    k == L.CT_VALUE_DTYPE && return eltype_of(v.i)
    (k == L.CT_VALUE_DEVICE || k == L.CT_VALUE_STRING) && return unsafe_string(v.str)
    k == L.CT_VALUE_SYMINT && return sym_borrowed(SymInt, Ptr{L.ct_symint}(v.tensor))
    k == L.CT_VALUE_SYMINTS &&
        return SymInt[sym_borrowed(SymInt, Ptr{L.ct_symint}(unsafe_load(v.tensors, i))) for i in 1:v.len]
    throw(ArgumentError("CTorch: a kernel argument of unknown kind $k"))
end

"""ct_op_call(name, boxed args) with nouts outputs; one Tensor, or a tuple for several."""
op_call(name::AbstractString, vals::Vector{L.ct_value}, keep::Vector{Any}, nouts::Integer) =
    _call_boxed((v, n, o, no) -> L.ct_op_call(name, v, n, o, no), vals, keep, nouts)

"""ct_op_call_op(ov's handle, boxed args): ov's outputs, one Tensor or a tuple."""
op_call(ov::Overload, vals::Vector{L.ct_value}, keep::Vector{Any}) =
    _call_boxed(let op = op_handle(ov)
                    (v, n, o, no) -> L.ct_op_call_op(op, v, n, o, no)
                end, vals, keep, ov.nreturns)

@inline function _call_boxed(call, vals::Vector{L.ct_value}, keep::Vector{Any}, nouts::Integer)
    clear_pending()
    if nouts == 1   # one output: a Ref, which need not live on the heap as an array would
        out = Ref{Ptr{L.ct_tensor}}(C_NULL)
        st = GC.@preserve vals keep call(vals, length(vals), out, 1)
        st == 0 || throw_status(st)
        return wrap(out[])
    end
    outs = fill(Ptr{L.ct_tensor}(C_NULL), max(nouts, 1))
    st = GC.@preserve vals keep outs call(vals, length(vals), outs, length(outs))
    check(st)
    return Tuple(wrap(p) for p in outs[1:nouts])
end

# The boxed values of a call and the buffers they point to, borrowed from a per-thread pool for the
# call: allocating two arrays per call made a generated method spend more time in young collections
# than in the library (Note [Boxed call cost]). A call that calls back into Julia (a kernel, a
# compiled function) borrows another; one that throws leaves its buffers to the garbage collector.
struct CallBuffers
    vals::Vector{L.ct_value}
    keep::Vector{Any}
end

const CALL_BUFFERS = Vector{Vector{CallBuffers}}()   # per thread; filled in __init__

@inline function borrow_buffers(n::Integer)
    pool = @inbounds CALL_BUFFERS[Threads.threadid()]
    b = isempty(pool) ? CallBuffers(L.ct_value[], Any[]) : pop!(pool)
    resize!(b.vals, n)
    return b
end

@inline function return_buffers(b::CallBuffers)
    empty!(b.keep)
    push!(@inbounds(CALL_BUFFERS[Threads.threadid()]), b)
    return nothing
end

"""Call the first overload whose arguments accept args and kwargs (see docs/julia.md "Operators")."""
function call_overloads(name::AbstractString, overloads::Vector{Overload}, args::Tuple, kwargs)
    for ov in overloads
        _matches(ov, args, kwargs) || continue
        buf = borrow_buffers(length(ov.args))
        vals, keep = buf.vals, buf.keep
        _box_positional!(vals, ov.args, keep, 1, args...)
        for i in length(args)+1:length(ov.args)
            a = @inbounds ov.args[i]
            @inbounds vals[i] = box(get(kwargs, a.name, nothing), a.kind, keep)
        end
        r = GC.@preserve args kwargs op_call(ov, vals, keep)
        return_buffers(buf)
        return r
    end
    throw(ArgumentError("CTorch.ops.$name: no overload accepts ($(join(map(x -> string(typeof(x)), args), ", "))" *
                        "$(isempty(kwargs) ? "" : "; " * join(keys(kwargs), ", "))). Schemas:\n  " *
                        join([ov.schema for ov in overloads], "\n  ")))
end

"""Whether ov takes args positionally and kwargs by name, every value of a type its argument accepts."""
function _matches(ov::Overload, args::Tuple, kwargs)
    length(args) <= ov.npositional || return false
    _accepts_positional(ov.args, 1, args...) || return false
    for k in keys(kwargs)
        any(i -> ov.args[i].name === k, length(args)+1:length(ov.args)) || return false
    end
    for i in length(args)+1:length(ov.args)
        a = @inbounds ov.args[i]
        if haskey(kwargs, a.name)
            accepts(a, kwargs[a.name]) || return false
        else
            a.has_default || a.optional || return false   # a required argument is missing
        end
    end
    return true
end

# The positional arguments one at a time, peeled off the tuple so that each call of accepts and box
# is on a known Julia type, not dispatched at run time (Note [Boxed call cost]).
@inline _accepts_positional(specs::Vector{Arg}, i::Int) = true
@inline _accepts_positional(specs::Vector{Arg}, i::Int, x, rest...) =
    accepts(@inbounds(specs[i]), x) && _accepts_positional(specs, i + 1, rest...)

@inline _box_positional!(vals, specs::Vector{Arg}, keep, i::Int) = nothing
@inline function _box_positional!(vals, specs::Vector{Arg}, keep, i::Int, x, rest...)
    @inbounds vals[i] = box(x, specs[i].kind, keep)
    _box_positional!(vals, specs, keep, i + 1, rest...)
end

# Overloads of operators outside the generated table (custom ones), read from the registry at run time.
const RUNTIME_OVERLOADS = Dict{String,Vector{Overload}}()

function runtime_overloads(name::AbstractString)
    haskey(RUNTIME_OVERLOADS, name) && return RUNTIME_OVERLOADS[name]
    reg = JSON.parse(string_out(out -> L.ct_op_registry_json(out)))
    empty!(RUNTIME_OVERLOADS)
    for o in reg["operators"]
        full = isempty(o["overload"]) ? o["name"] : "$(o["name"]).$(o["overload"])"
        ov = Overload(full, [Arg(Symbol(a["name"]), a["type"], a["kwarg_only"], a["default"] !== nothing)
                             for a in o["arguments"]], length(o["returns"]), o["schema"])
        push!(get!(RUNTIME_OVERLOADS, o["name"], Overload[]), ov)
    end
    return get(RUNTIME_OVERLOADS, name, nothing)
end

"""
    CTorch.ops

One function per built-in operator of the library, generated from `ct_op_registry_json`
(`src/generated/ops.jl`): `ops.add(a, b; alpha=2)`, `ops.sum(t, [0]; keepdim=true)`. Arguments
follow the operator's schema exactly as the C library takes them: dims are 0-based (negative ones
count from the end), sizes are in the tensor's own order, keyword-only schema arguments are Julia
keywords, and `nothing` takes an argument's default. Overloads are tried in registration order; the
first whose argument types accept the call runs. `ops.call(name, args...; kwargs...)` reaches any
operator by name, custom ones included. Results are a `Tensor`, or a tuple for several returns.
"""
module ops

import ..CTorch
using ..CTorch: Overload, Arg, call_overloads

include("generated/ops.jl")

"""
    ops.call(name, args...; kwargs...)

Call any registered operator by name: `"add"` (overloads tried in order) or a full `"add.Tensor"`;
built-in operators and those defined with `CTorch.library_define`. Arguments as for the generated
functions of `CTorch.ops`.
"""
function call(name::AbstractString, args...; kwargs...)
    base, overload = occursin('.', name) ? split(name, '.'; limit = 2) : (name, "")
    ovs = get(OVERLOADS, base, nothing)
    ovs === nothing && (ovs = CTorch.runtime_overloads(base))
    if ovs === nothing
        # Unknown to the registry: the library's own message lists close names.
        keep = Any[]
        vals = CTorch.L.ct_value[CTorch.box(x, nothing, keep) for x in args]
        return GC.@preserve args CTorch.op_call(name, vals, keep, 1)
    end
    isempty(overload) || (ovs = filter(o -> o.name == name, ovs))
    isempty(ovs) && throw(ArgumentError("CTorch.ops.call: operator $base has no overload $overload"))
    return call_overloads(base, ovs, args, kwargs)
end

"""
    ops.schema(name) -> String

The schemas of every overload of an operator, one per line (`ct_op_schema`).
"""
schema(name::AbstractString) = CTorch.string_out(out -> CTorch.L.ct_op_schema(name, out))

"""
    ops.registry() -> Dict

The library's operator registry (`ct_op_registry_json`), parsed: operators with their schemas,
arguments, backends and determinism per backend, and derivative status.
"""
registry() = CTorch.JSON.parse(CTorch.string_out(out -> CTorch.L.ct_op_registry_json(out)))

end # module ops
