# extending.jl - operators and kernels written in Julia (ctorch.h "Extending").

struct Kernel
    name::String
    f::Any
end

"""
    CTorch.library_define(schema)

Register a new operator from its schema, e.g. `"myext::scale(Tensor x, float factor=2.0) -> Tensor"`.
Names need a namespace. It has no kernel until `CTorch.library_impl` gives it one; then
`CTorch.ops.call("myext::scale", x; factor=3.0)` calls it (and autograd, tracing, export and the
profiler see it like a built-in operator).
"""
library_define(schema::AbstractString) = check(L.ct_library_define(schema))

"""
    CTorch.library_impl(f, name, device="cpu")

Give operator `name` ("ns::op" or "ns::op.overload") a kernel for `device`: `f(args...)` gets the
schema's arguments with every default filled in (tensors as `Tensor`, ints as `Int64`, lists as
vectors, dtypes as Julia types, `nothing` for None) and returns a tensor, or a tuple for several
returns. An exception thrown in `f` makes the operator fail with a `CTorchError` naming it and
carrying the exception's message (and the exception as `cause`). Built-in operators may get a
kernel only for a device where they have none.

    CTorch.library_impl("myext::scale") do x, factor
        x .* factor
    end
"""
library_impl(f, name::AbstractString, device::AbstractString = "cpu") =
    check(L.ct_library_impl(name, device, CFUNCTIONS[:kernel], root(Kernel(String(name), f)), CFUNCTIONS[:destroy]))

"""
    CTorch.library_set_determinism(name, device, determinism::Symbol)

Declare how reproducible a kernel from `library_impl` is: `:bitwise`, `:deterministic` (the
default) or `:atomic` (refused or warned about under deterministic mode).
"""
function library_set_determinism(name::AbstractString, device::AbstractString, determinism::Symbol)
    k = findfirst(==(determinism), (:bitwise, :deterministic, :atomic))
    k === nothing && throw(ArgumentError("library_set_determinism: $determinism is not :bitwise, :deterministic or :atomic"))
    check(L.ct_library_set_determinism(name, device, k - 1))
end
