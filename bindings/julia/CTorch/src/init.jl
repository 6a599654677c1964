# init.jl - torch.nn.init's initializers over the library's (ct_init_*), as the module CTorch.init.

"""
    CTorch.init

torch.nn.init: each function fills a tensor in place (with grad mode off, so parameters that
require grad can be initialized) and returns it. Draws come from `gen` (a `CTorch.Generator`) or,
by default, the default generator of the tensor's device, so `manual_seed` reproduces them exactly
on every machine, thread count and language (they are ctorch's Philox numbers, not the ones torch
draws for the same seed).

- `uniform!(t, a=0, b=1)`, `normal!(t, mean=0, std=1)`
- `xavier_uniform!(t; gain=1)`, `xavier_normal!(t; gain=1)`
- `kaiming_uniform!(t; a=0, mode="fan_in", nonlinearity="leaky_relu")`, `kaiming_normal!(...)`
- `linear!(weight, bias=nothing)`: `nn.Linear`'s (and Conv's) default initialization
- `calculate_gain(nonlinearity, param=nothing)`, `calculate_fan_in_and_fan_out(t)`

Fans come from the library's sizes, `[out, in, kernel...]` as in PyTorch (a `CTorch.Linear`'s
weight is `out × in`). Errors: `CT_ERROR_SHAPE` for xavier/kaiming on fewer than 2 dims,
`CT_ERROR_DTYPE` for integer tensors, `CT_ERROR_INVALID_ARGUMENT` for bad bounds, modes or names.
"""
module init

using ..CTorch: Tensor, check, _gen
import ..CTorch
const L = CTorch.LibCTorch

"""
    CTorch.init.uniform!(t, a=0, b=1; gen=nothing) -> t

Fill `t` with draws from U(a, b).
"""
uniform!(t::Tensor, a::Real = 0, b::Real = 1; gen = nothing) = (check(L.ct_init_uniform_(t, a, b, _gen(gen))); t)

"""
    CTorch.init.normal!(t, mean=0, std=1; gen=nothing) -> t

Fill `t` with draws from N(mean, std²).
"""
normal!(t::Tensor, mean::Real = 0, std::Real = 1; gen = nothing) = (check(L.ct_init_normal_(t, mean, std, _gen(gen))); t)

"""
    CTorch.init.xavier_uniform!(t; gain=1, gen=nothing) -> t
    CTorch.init.xavier_normal!(t; gain=1, gen=nothing) -> t

Glorot initialization: U(-g √(6 / (fan_in + fan_out)), +...) or N(0, g² 2 / (fan_in + fan_out)).
"""
xavier_uniform!(t::Tensor; gain::Real = 1, gen = nothing) = (check(L.ct_init_xavier_uniform_(t, gain, _gen(gen))); t)
@doc (@doc xavier_uniform!) xavier_normal!(t::Tensor; gain::Real = 1, gen = nothing) =
    (check(L.ct_init_xavier_normal_(t, gain, _gen(gen))); t)

"""
    CTorch.init.kaiming_uniform!(t; a=0, mode="fan_in", nonlinearity="leaky_relu", gen=nothing) -> t
    CTorch.init.kaiming_normal!(t; a=0, mode="fan_in", nonlinearity="leaky_relu", gen=nothing) -> t

He initialization: U(-bound, bound) with bound = √3 gain / √fan, or N(0, (gain / √fan)²), where fan
is fan_in or fan_out by `mode` and gain is `calculate_gain(nonlinearity, a)`.
"""
kaiming_uniform!(t::Tensor; a::Real = 0, mode::AbstractString = "fan_in", nonlinearity::AbstractString = "leaky_relu",
                 gen = nothing) = (check(L.ct_init_kaiming_uniform_(t, a, String(mode), String(nonlinearity), _gen(gen))); t)
@doc (@doc kaiming_uniform!) kaiming_normal!(t::Tensor; a::Real = 0, mode::AbstractString = "fan_in",
                                             nonlinearity::AbstractString = "leaky_relu", gen = nothing) =
    (check(L.ct_init_kaiming_normal_(t, a, String(mode), String(nonlinearity), _gen(gen))); t)

"""
    CTorch.init.trunc_normal!(t; mean=0, std=1, a=-2, b=2, gen=nothing) -> t

Fill `t` with draws from N(mean, std²) restricted to [a, b] (std > 0, finite a < b).
"""
trunc_normal!(t::Tensor; mean::Real = 0, std::Real = 1, a::Real = -2, b::Real = 2, gen = nothing) =
    (check(L.ct_init_trunc_normal_(t, mean, std, a, b, _gen(gen))); t)

"""
    CTorch.init.orthogonal!(t; gain=1, gen=nothing) -> t

A (semi-)orthogonal matrix over `t`'s first dim and the rest flattened (2 or more dims), times
`gain`, uniformly distributed: the sign-corrected Q of a Gaussian matrix's QR.
"""
orthogonal!(t::Tensor; gain::Real = 1, gen = nothing) = (check(L.ct_init_orthogonal_(t, gain, _gen(gen))); t)

"""
    CTorch.init.sparse!(t, sparsity; std=0.01, gen=nothing) -> t

N(0, std²) with `ceil(sparsity * rows)` zeros in each column of a 2-D `t`.
"""
sparse!(t::Tensor, sparsity::Real; std::Real = 0.01, gen = nothing) =
    (check(L.ct_init_sparse_(t, sparsity, std, _gen(gen))); t)

"""
    CTorch.init.eye!(t) -> t
    CTorch.init.dirac!(t; groups=1) -> t

The identity of a 2-D `t`; the Dirac delta of a 3- to 5-D convolution weight `[out, in, k...]`
(`groups` dividing `size(t, 1)`, the out channels), so the convolution keeps its input's channels.
"""
eye!(t::Tensor) = (check(L.ct_init_eye_(t)); t)
@doc (@doc eye!) dirac!(t::Tensor; groups::Integer = 1) = (check(L.ct_init_dirac_(t, groups)); t)

"""
    CTorch.init.linear!(weight, bias=nothing; gen=nothing) -> weight

PyTorch's default initialization of `nn.Linear` and `nn.Conv*d` (their reset_parameters):
`weight` from U(-1/√fan_in, 1/√fan_in) (kaiming_uniform with a = √5), then `bias`, when given, from
the same range; the weight's draws come first.
"""
linear!(weight::Tensor, bias::Union{Tensor,Nothing} = nothing; gen = nothing) =
    (check(L.ct_init_linear_(weight, bias === nothing ? C_NULL : bias.ptr, _gen(gen))); weight)

"""
    CTorch.init.calculate_gain(nonlinearity, param=nothing) -> Float64

torch.nn.init.calculate_gain: 1 for "linear", "conv*" and "sigmoid", 5/3 for "tanh", √2 for "relu",
√(2 / (1 + param²)) for "leaky_relu" (param the negative slope, 0.01 when `nothing`, as torch), 3/4
for "selu". An unknown name throws `CT_ERROR_INVALID_ARGUMENT` listing the known ones.
"""
function calculate_gain(nonlinearity::AbstractString, param::Union{Real,Nothing} = nothing)
    p = param === nothing ? (nonlinearity == "leaky_relu" ? 0.01 : 0.0) : Float64(param)
    out = Ref{Float64}(0)
    check(L.ct_init_calculate_gain(String(nonlinearity), p, out))
    return out[]
end

"""
    CTorch.init.calculate_fan_in_and_fan_out(t) -> (fan_in, fan_out)

For sizes `[out, in, k...]`: `fan_in = in * prod(k)`, `fan_out = out * prod(k)`.
"""
function calculate_fan_in_and_fan_out(t::Tensor)
    fi = Ref{Int64}(0)
    fo = Ref{Int64}(0)
    check(L.ct_init_calculate_fan_in_and_fan_out(t, fi, fo))
    return (Int(fi[]), Int(fo[]))
end

end # module init
