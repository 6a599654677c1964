# dtypes.jl - ctorch dtypes as Julia element types.

"""
    CTorch.BFloat16

The element type of `bfloat16` tensors: the 16 high bits of a `Float32`. `Float32(x)` widens it
exactly; `BFloat16(x::Real)` rounds to nearest even. Only conversion is defined on it: compute with
tensors, or convert to `Float32`.
"""
primitive type BFloat16 <: AbstractFloat 16 end

BFloat16(x::Float32) = begin
    isnan(x) && return reinterpret(BFloat16, 0x7fc0)
    b = reinterpret(UInt32, x)
    reinterpret(BFloat16, UInt16((b + 0x7fff + ((b >> 16) & 1)) >> 16))
end
BFloat16(x::Real) = BFloat16(Float32(x))
Base.Float32(x::BFloat16) = reinterpret(Float32, UInt32(reinterpret(UInt16, x)) << 16)
Base.Float64(x::BFloat16) = Float64(Float32(x))
Base.convert(::Type{BFloat16}, x::Real) = BFloat16(x)
Base.convert(::Type{T}, x::BFloat16) where {T<:Union{Float32,Float64}} = T(x)
Base.show(io::IO, x::BFloat16) = print(io, "BFloat16(", Float32(x), ")")

"""Element types with a ctorch dtype, in ct_dtype order (`ComplexF32` and `ComplexF64` are
complex64 and complex128, whose (real, imaginary) layout is Julia's)."""
const ELTYPES = (Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64, ComplexF32, ComplexF64)

"""
    CTorch.dtype(T::Type) -> Int32

The `ct_dtype` code of a Julia element type (`Float32` gives `CT_FLOAT32`). `Int` is `Int64`.
Throws `ArgumentError` for a type ctorch has no dtype for.
"""
function dtype(T::Type)
    k = findfirst(x -> x === T, ELTYPES)
    k === nothing && throw(ArgumentError("CTorch: no ctorch dtype for element type $T. Use one of $(join(ELTYPES, ", "))"))
    return Int32(k - 1)
end

"""
    CTorch.eltype_of(code::Integer) -> Type

The Julia element type of a `ct_dtype` code.
"""
function eltype_of(code::Integer)
    0 <= code < length(ELTYPES) || throw(ArgumentError("CTorch: unknown ct_dtype $code"))
    return ELTYPES[code+1]
end

"""
    CTorch.promote_types(T1, T2) -> Type
    CTorch.can_cast(from, to) -> Bool

ctorch's promotion of two element types (`torch.promote_types`: `UInt8` with `Int8` is `Int16`,
`Float16` with `BFloat16` is `Float32`, `ComplexF32` with `Float64` is `ComplexF64`), and whether an operator may write a result of type `from`
into a tensor of type `to` (`torch.can_cast`).
"""
function promote_types(T1::Type, T2::Type)
    out = Ref{Cint}(0)
    check(L.ct_promote_types(dtype(T1), dtype(T2), out))
    return eltype_of(out[])
end
@doc (@doc promote_types) function can_cast(from::Type, to::Type)
    out = Ref{Cint}(0)
    check(L.ct_can_cast(dtype(from), dtype(to), out))
    return out[] != 0
end

"""
    CTorch.dtype_name(T) -> String

ctorch's name of an element type: `"float32"`, `"bfloat16"`, `"bool"`, ...
"""
dtype_name(T::Type) = unsafe_string(L.ct_dtype_name(dtype(T)))

"""
    CTorch.get_default_dtype() -> Type

The default floating element type (`Float32` at start): what floating factories and integer
inputs of floating operators use.
"""
get_default_dtype() = eltype_of(L.ct_get_default_dtype())

"""
    CTorch.set_default_dtype(T)

Set the process-wide default floating element type (`Float32` or `Float64`).
"""
set_default_dtype(T::Type) = check(L.ct_set_default_dtype(dtype(T)))

"""Scalar argument of the C ABI for a Julia number (Bool, integer or float, as Python numbers)."""
scalar(x::Bool) = L.ct_scalar(L.CT_SCALAR_BOOL, Int64(x), 0.0)
scalar(x::Integer) = L.ct_scalar(L.CT_SCALAR_INT, Int64(x), 0.0)
scalar(x::Real) = L.ct_scalar(L.CT_SCALAR_FLOAT, 0, Float64(x))

"""The Julia number of a C scalar."""
unscalar(s::L.ct_scalar) = s.kind == L.CT_SCALAR_BOOL ? s.i != 0 : s.kind == L.CT_SCALAR_INT ? s.i : s.f
