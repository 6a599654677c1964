# symbolic.jl - ShapeEnv and symbolic numbers (ctorch.h "Symbolic shapes").

"""
    ShapeEnv()

A symbolic shape environment (`ct_shape_env`): it owns size symbols (`CTorch.symbol`), unbacked
symbols (`CTorch.unbacked`), the expressions built over them and the guards recorded when a
concrete answer was demanded. Released by a finalizer or `close`.
"""
mutable struct ShapeEnv
    ptr::Ptr{L.ct_shape_env}
    function ShapeEnv()
        out = Ref{Ptr{L.ct_shape_env}}(C_NULL)
        check(L.ct_shape_env_create(out))
        e = new(out[])
        finalizer(e -> (p = e.ptr; e.ptr = C_NULL; L.ct_shape_env_release(p)), e)
        return e
    end
end
Base.unsafe_convert(::Type{Ptr{L.ct_shape_env}}, e::ShapeEnv) = e.ptr
Base.close(e::ShapeEnv) = (p = e.ptr; e.ptr = C_NULL; L.ct_shape_env_release(p); nothing)

for (T, C, release, docs) in (
        (:SymInt, :ct_symint, :ct_symint_release,
         "A symbolic integer (`ct_symint`): a plain number or an expression over a ShapeEnv's symbols. Arithmetic (`+ - * fld mod ^ min max`, unary `-`; `/` gives a `SymFloat`) builds simplified expressions and records no guard; comparisons give a `SymBool`. `Int(s)` demands the value (a guard). Released by a finalizer or `close`."),
        (:SymFloat, :ct_symfloat, :ct_symfloat_release,
         "A symbolic float (`ct_symfloat`). Arithmetic `+ - * / fld mod ^ min max` and comparisons; `Float64(s)` demands the value (a guard)."),
        (:SymBool, :ct_symbool, :ct_symbool_release,
         "A symbolic bool (`ct_symbool`). `&`, `|`, `!` build expressions; `Bool(b)` demands the value and records the guard it relied on (`if Bool(s > 2) ... end`)."))
    @eval begin
        @doc $docs mutable struct $T
            ptr::Ptr{L.$C}
            function $T(::_Own, p::Ptr{L.$C})
                s = new(p)
                finalizer(s -> (p = s.ptr; s.ptr = C_NULL; L.$release(p)), s)
                return s
            end
        end
        Base.unsafe_convert(::Type{Ptr{L.$C}}, s::$T) = s.ptr
        Base.close(s::$T) = (p = s.ptr; s.ptr = C_NULL; L.$release(p); nothing)
    end
end

const SymNumber = Union{SymInt,SymFloat,SymBool}

_ctype(::Type{SymInt}) = L.ct_symint
_ctype(::Type{SymFloat}) = L.ct_symfloat
_ctype(::Type{SymBool}) = L.ct_symbool

"""Call f(out) -> status with a fresh out-parameter of T's handle type; wrap the new reference."""
function sym_out(::Type{T}, f) where {T}
    out = Ref{Ptr{_ctype(T)}}(C_NULL)
    check(f(out))
    return T(_Own(), out[])
end

"""Wrap a borrowed symbolic handle (retained first)."""
function sym_borrowed(::Type{SymInt}, p::Ptr{L.ct_symint})
    check(L.ct_symint_retain(p))
    return SymInt(_Own(), p)
end

SymInt(x::Integer) = sym_out(SymInt, out -> L.ct_symint_from_int(x, out))
SymInt(x::SymInt) = x
SymFloat(x::Real) = sym_out(SymFloat, out -> L.ct_symfloat_from_double(x, out))
SymFloat(x::SymFloat) = x
SymBool(x::Bool) = sym_out(SymBool, out -> L.ct_symbool_from_bool(x, out))
SymBool(x::SymBool) = x

"""
    CTorch.symbol(env, name=""; hint, min=0, max=typemax(Int64)) -> SymInt

A new size symbol of `env` with range `[min, max]`, traced at value `hint` (which decides guards),
like `Dim("batch", min=1, max=1024)`. An empty name gives `s<k>`.
"""
symbol(env::ShapeEnv, name::AbstractString = ""; hint::Integer, min::Integer = 0, max::Integer = typemax(Int64)) =
    sym_out(SymInt, out -> L.ct_shape_env_create_symbol(env, name, hint, min, max, out))

"""
    CTorch.unbacked(env) -> SymInt

A new unbacked symbol `u<k>`: a value known only at run time (no hint; branching on it throws
`CT_ERROR_GUARD`).
"""
unbacked(env::ShapeEnv) = sym_out(SymInt, out -> L.ct_shape_env_create_unbacked(env, out))

"""
    CTorch.num_symbols(env) -> Int
    CTorch.num_guards(env) -> Int
    CTorch.guard_requests(env) -> Int

How many symbols `env` has, how many distinct guards it recorded, and how many times a concrete
answer was asked that the recorded facts did not decide.
"""
num_symbols(env::ShapeEnv) = (o = Ref{Csize_t}(0); check(L.ct_shape_env_num_symbols(env, o)); Int(o[]))
@doc (@doc num_symbols) num_guards(env::ShapeEnv) = (o = Ref{Csize_t}(0); check(L.ct_shape_env_num_guards(env, o)); Int(o[]))
@doc (@doc num_symbols) guard_requests(env::ShapeEnv) =
    (o = Ref{UInt64}(0); check(L.ct_shape_env_guard_requests(env, o)); Int(o[]))

"""
    CTorch.guards(env) -> Dict{String,Any}

`env`'s symbols, guards and runtime assertions (`ct_shape_env_guards_json`), e.g.
`guards(env)["guards"] == ["s0 >= 2"]`.
"""
guards(env::ShapeEnv) = JSON.parse(string_out(out -> L.ct_shape_env_guards_json(env, out)))

"""
    CTorch.check_guards(env, values) -> Union{Int,Nothing}

Evaluate every guard and runtime assertion under a binding (one value per symbol, in creation
order): `nothing` when all hold, else the 1-based index of the first that fails (guards first).
"""
function check_guards(env::ShapeEnv, values::AbstractVector{<:Integer})
    v = Int64[values...]
    out = Ref{Int64}(0)
    check(L.ct_shape_env_check_guards(env, v, length(v), out))
    return out[] < 0 ? nothing : Int(out[]) + 1
end

# ---- reading symbolic numbers ----

"""
    CTorch.is_symbolic(x) -> Bool

Whether a SymInt/SymFloat/SymBool holds an expression (not a plain number), or a tensor has a
symbolic size, stride or offset.
"""
is_symbolic(s::SymInt) = (o = Ref{Cint}(0); check(L.ct_symint_is_symbolic(s, o)); o[] != 0)
is_symbolic(s::SymFloat) = (o = Ref{Cint}(0); check(L.ct_symfloat_is_symbolic(s, o)); o[] != 0)
is_symbolic(s::SymBool) = (o = Ref{Cint}(0); check(L.ct_symbool_is_symbolic(s, o)); o[] != 0)
is_symbolic(t::Tensor) = (o = Ref{Cint}(0); check(L.ct_tensor_is_symbolic(t, o)); o[] != 0)

"""
    CTorch.maybe_value(s) -> Union{Int64,Float64,Bool,Nothing}

The plain value of a symbolic number, or `nothing` when it is an expression. Records no guard.
"""
function maybe_value(s::SymInt)
    v = Ref{Int64}(0); c = Ref{Cint}(0)
    check(L.ct_symint_maybe_int(s, v, c))
    return c[] != 0 ? v[] : nothing
end
function maybe_value(s::SymFloat)
    v = Ref{Cdouble}(0); c = Ref{Cint}(0)
    check(L.ct_symfloat_maybe_double(s, v, c))
    return c[] != 0 ? v[] : nothing
end
function maybe_value(s::SymBool)
    v = Ref{Cint}(0); c = Ref{Cint}(0)
    check(L.ct_symbool_maybe_bool(s, v, c))
    return c[] != 0 ? v[] != 0 : nothing
end

"""
    Int(s::SymInt), Int64(s::SymInt), Float64(s::SymFloat), Bool(b::SymBool)

The concrete value, evaluated under the hints; the fact relied on is recorded as a guard
(`s0 == 8`, `s0 >= 2`). A value depending on an unbacked symbol throws `CT_ERROR_GUARD`.
"""
Base.Int64(s::SymInt) = (o = Ref{Int64}(0); check(L.ct_symint_guard_int(s, o)); o[])
Base.Float64(s::SymFloat) = (o = Ref{Cdouble}(0); check(L.ct_symfloat_guard_float(s, o)); o[])
Base.Bool(s::SymBool) = (o = Ref{Cint}(0); check(L.ct_symbool_guard_bool(s, o)); o[] != 0)
Base.Integer(s::SymInt) = Int64(s)

"""
    string(s), show(io, s)

Python-style text of a symbolic number: `"2*s0 + 1"`, `"s0 >= 2"`, `"max(s0, s1)"`, or the number.
"""
Base.string(s::SymInt) = string_out(out -> L.ct_symint_to_string(s, out))
Base.string(s::SymFloat) = string_out(out -> L.ct_symfloat_to_string(s, out))
Base.string(s::SymBool) = string_out(out -> L.ct_symbool_to_string(s, out))
Base.show(io::IO, s::SymNumber) = print(io, nameof(typeof(s)), "(", string(s), ")")

"""
    CTorch.evaluate(s, values) -> number

The value of `s` under a binding of its env's symbols (one per symbol, in creation order). Records
nothing.
"""
function evaluate(s::SymInt, values::AbstractVector{<:Integer})
    v = Int64[values...]; o = Ref{Int64}(0)
    check(L.ct_symint_evaluate(s, v, length(v), o))
    return o[]
end
function evaluate(s::SymFloat, values::AbstractVector{<:Integer})
    v = Int64[values...]; o = Ref{Cdouble}(0)
    check(L.ct_symfloat_evaluate(s, v, length(v), o))
    return o[]
end
function evaluate(s::SymBool, values::AbstractVector{<:Integer})
    v = Int64[values...]; o = Ref{Cint}(0)
    check(L.ct_symbool_evaluate(s, v, length(v), o))
    return o[] != 0
end

# ---- arithmetic ----

for (op, fi, ff) in ((:+, :ct_symint_add, :ct_symfloat_add), (:-, :ct_symint_sub, :ct_symfloat_sub),
                     (:*, :ct_symint_mul, :ct_symfloat_mul), (:fld, :ct_symint_floordiv, :ct_symfloat_floordiv),
                     (:mod, :ct_symint_mod, :ct_symfloat_mod), (:^, :ct_symint_pow, :ct_symfloat_pow),
                     (:min, :ct_symint_min, :ct_symfloat_min), (:max, :ct_symint_max, :ct_symfloat_max))
    @eval begin
        Base.$op(a::SymInt, b::SymInt) = sym_out(SymInt, out -> L.$fi(a, b, out))
        Base.$op(a::SymInt, b::Integer) = $op(a, SymInt(b))
        Base.$op(a::Integer, b::SymInt) = $op(SymInt(a), b)
        Base.$op(a::SymFloat, b::SymFloat) = sym_out(SymFloat, out -> L.$ff(a, b, out))
        Base.$op(a::SymFloat, b::Real) = $op(a, SymFloat(b))
        Base.$op(a::Real, b::SymFloat) = $op(SymFloat(a), b)
    end
end
Base.:-(a::SymInt) = sym_out(SymInt, out -> L.ct_symint_neg(a, out))
Base.:-(a::SymFloat) = SymFloat(0.0) - a
Base.:/(a::SymInt, b::SymInt) = sym_out(SymFloat, out -> L.ct_symint_truediv(a, b, out))
Base.:/(a::SymInt, b::Integer) = a / SymInt(b)
Base.:/(a::Integer, b::SymInt) = SymInt(a) / b
Base.:/(a::SymFloat, b::SymFloat) = sym_out(SymFloat, out -> L.ct_symfloat_truediv(a, b, out))
Base.:/(a::SymFloat, b::Real) = a / SymFloat(b)
Base.:/(a::Real, b::SymFloat) = SymFloat(a) / b

for (op, fi, ff) in ((:(==), :ct_symint_eq, :ct_symfloat_eq), (:(!=), :ct_symint_ne, :ct_symfloat_ne),
                     (:<, :ct_symint_lt, :ct_symfloat_lt), (:<=, :ct_symint_le, :ct_symfloat_le),
                     (:>, :ct_symint_gt, :ct_symfloat_gt), (:>=, :ct_symint_ge, :ct_symfloat_ge))
    @eval begin
        Base.$op(a::SymInt, b::SymInt) = sym_out(SymBool, out -> L.$fi(a, b, out))
        Base.$op(a::SymInt, b::Integer) = $op(a, SymInt(b))
        Base.$op(a::Integer, b::SymInt) = $op(SymInt(a), b)
        Base.$op(a::SymFloat, b::SymFloat) = sym_out(SymBool, out -> L.$ff(a, b, out))
        Base.$op(a::SymFloat, b::Real) = $op(a, SymFloat(b))
        Base.$op(a::Real, b::SymFloat) = $op(SymFloat(a), b)
    end
end
Base.:&(a::SymBool, b::SymBool) = sym_out(SymBool, out -> L.ct_symbool_and(a, b, out))
Base.:|(a::SymBool, b::SymBool) = sym_out(SymBool, out -> L.ct_symbool_or(a, b, out))
Base.:!(a::SymBool) = sym_out(SymBool, out -> L.ct_sym_not(a, out))

function _sym_nary(f, xs)
    ss = SymInt[SymInt(x) for x in xs]
    ps = Ptr{L.ct_symint}[s.ptr for s in ss]
    GC.@preserve ss ps return sym_out(SymInt, out -> f(ps, length(ps), out))
end

"""
    CTorch.sym_max(xs...), CTorch.sym_min(xs...), CTorch.sym_sum(xs...) -> SymInt

One n-ary expression over symbolic (or plain) integers; never a guard. `sym_sum()` is 0.
"""
sym_max(xs::Union{Integer,SymInt}...) = _sym_nary(L.ct_sym_max, xs)
@doc (@doc sym_max) sym_min(xs::Union{Integer,SymInt}...) = _sym_nary(L.ct_sym_min, xs)
@doc (@doc sym_max) sym_sum(xs::Union{Integer,SymInt}...) = _sym_nary(L.ct_sym_sum, xs)

"""
    CTorch.sym_ite(c::SymBool, a, b)

`c ? a : b` as an expression (ints or floats), never a guard.
"""
sym_ite(c::SymBool, a::Union{Integer,SymInt}, b::Union{Integer,SymInt}) =
    (x = SymInt(a); y = SymInt(b); sym_out(SymInt, out -> L.ct_sym_ite(c, x, y, out)))
sym_ite(c::SymBool, a::Union{Real,SymFloat}, b::Union{Real,SymFloat}) =
    (x = SymFloat(a); y = SymFloat(b); sym_out(SymFloat, out -> L.ct_sym_ite_float(c, x, y, out)))

"""
    CTorch.sym_not(b::SymBool), CTorch.sym_float(i::SymInt), CTorch.sym_int(f::SymFloat)

Negation, int to float, float to int (truncating) as expressions.
"""
sym_not(b::SymBool) = !b
@doc (@doc sym_not) sym_float(a::SymInt) = sym_out(SymFloat, out -> L.ct_sym_float(a, out))
@doc (@doc sym_not) sym_int(a::SymFloat) = sym_out(SymInt, out -> L.ct_sym_int(a, out))

# ---- symbolic tensors ----

"""
    CTorch.empty_symbolic(T, sizes...) -> Tensor

A meta tensor (no data) of element type `T` whose sizes may be `SymInt`s: operators on it compute
symbolic output sizes (`size` then throws `CT_ERROR_GUARD`; read them with `CTorch.sym_size`).
"""
function empty_symbolic(T::Type, sizes::Union{Integer,SymInt}...)
    ss = SymInt[SymInt(s) for s in sizes]
    ps = Ptr{L.ct_symint}[s.ptr for s in ss]
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    GC.@preserve ss ps check(L.ct_tensor_empty_symbolic(isempty(ps) ? C_NULL : pointer(ps), length(ps), dtype(T), out))
    return wrap(out[])
end

"""
    CTorch.sym_size(t, d) -> SymInt
    CTorch.sym_size(t) -> Vector{SymInt}
    CTorch.sym_stride(t, d) -> SymInt
    CTorch.sym_numel(t) -> SymInt

Sizes, strides (d 1-based) and element count as symbolic integers (plain ones for ordinary tensors).
"""
sym_size(t::Tensor, d::Integer) = sym_out(SymInt, out -> L.ct_tensor_sym_size(t, d - 1, out))
sym_size(t::Tensor) = SymInt[sym_size(t, d) for d in 1:ndims(t)]
@doc (@doc sym_size) sym_stride(t::Tensor, d::Integer) = sym_out(SymInt, out -> L.ct_tensor_sym_stride(t, d - 1, out))
@doc (@doc sym_size) sym_numel(t::Tensor) = sym_out(SymInt, out -> L.ct_tensor_sym_numel(t, out))

"""
    CTorch.sym_item(t) -> SymInt

The value a one-element integer meta tensor of a ShapeEnv will hold, as a new unbacked symbol.
"""
sym_item(t::Tensor) = sym_out(SymInt, out -> L.ct_tensor_sym_item(t, out))
