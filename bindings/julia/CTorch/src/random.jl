# random.jl - generators and random operators (ctorch.h "Random numbers").

"""
    Generator(device="cpu")

A Philox random stream of the library (torch.Generator): a seed and an offset. One seed gives the
same numbers for any thread count. Pass it as `gen=` to the random functions; without one they use
the device's default generator (`CTorch.default_generator()`, seeded by `manual_seed`). Released by
a finalizer or `close`.
"""
mutable struct Generator
    ptr::Ptr{L.ct_generator}
    function Generator(::_Own, p::Ptr{L.ct_generator})
        g = new(p)
        finalizer(g -> (p = g.ptr; g.ptr = C_NULL; L.ct_generator_release(p)), g)
        return g
    end
end

function Generator(device::AbstractString = "cpu")
    out = Ref{Ptr{L.ct_generator}}(C_NULL)
    check(L.ct_generator_create(device, out))
    return Generator(_Own(), out[])
end

Base.unsafe_convert(::Type{Ptr{L.ct_generator}}, g::Generator) = g.ptr
Base.close(g::Generator) = (p = g.ptr; g.ptr = C_NULL; L.ct_generator_release(p); nothing)
_gen(g) = g === nothing ? Ptr{L.ct_generator}(C_NULL) : g.ptr

"""
    CTorch.default_generator(device="cpu") -> Generator

A reference to the device's default generator: seeding it seeds what random functions use when
given no generator.
"""
function default_generator(device::AbstractString = "cpu")
    out = Ref{Ptr{L.ct_generator}}(C_NULL)
    check(L.ct_default_generator(device, out))
    return Generator(_Own(), out[])
end

"""
    manual_seed(seed::Integer)
    manual_seed(g::Generator, seed::Integer) -> g

Seed every device's default generator (or `g`) and rewind its offset to 0 (torch.manual_seed).
"""
manual_seed(seed::Integer) = check(L.ct_manual_seed(UInt64(seed)))
manual_seed(g::Generator, seed::Integer) = (check(L.ct_generator_manual_seed(g, UInt64(seed))); g)

"""
    CTorch.initial_seed([g::Generator]) -> UInt64

The seed of `g`, or of the cpu default generator.
"""
function initial_seed()
    out = Ref{UInt64}(0)
    check(L.ct_initial_seed(out))
    return out[]
end
function initial_seed(g::Generator)
    out = Ref{UInt64}(0)
    check(L.ct_generator_initial_seed(g, out))
    return out[]
end

"""
    CTorch.get_offset(g) -> UInt64
    CTorch.set_offset!(g, offset) -> g

The generator's position in its stream, in 128-bit blocks; setting an earlier one replays it.
"""
function get_offset(g::Generator)
    out = Ref{UInt64}(0)
    check(L.ct_generator_get_offset(g, out))
    return out[]
end
@doc (@doc get_offset) set_offset!(g::Generator, offset::Integer) = (check(L.ct_generator_set_offset(g, UInt64(offset))); g)

"""
    CTorch.get_state(g) -> Vector{UInt8}
    CTorch.set_state!(g, state) -> g

Checkpoint and restore a generator (`CT_GENERATOR_STATE_SIZE` bytes, the same on every platform).
"""
function get_state(g::Generator)
    s = Vector{UInt8}(undef, L.CT_GENERATOR_STATE_SIZE)
    check(L.ct_generator_get_state(g, s, length(s)))
    return s
end
@doc (@doc get_state) set_state!(g::Generator, s::AbstractVector{UInt8}) =
    (v = Vector{UInt8}(s); check(L.ct_generator_set_state(g, v, length(v))); g)

function _random_factory(f, T, dims, device, gen)
    d = _dims(dims)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    GC.@preserve d check(f(isempty(d) ? C_NULL : pointer(d), length(d), dtype(T), _device(device), _gen(gen), out))
    return wrap(out[])
end

"""
    CTorch.rand([T,] dims...; device=nothing, gen=nothing)
    CTorch.randn([T,] dims...; device=nothing, gen=nothing)

Uniform on [0, 1) and standard normal samples of sizes `dims` (floating `T`, default the default
dtype), from `gen` or the device's default generator. Element `i` in row-major order is a function
of the seed, the offset and `i` alone.
"""
rand(T::Type, dims::Integer...; device = nothing, gen = nothing) = _random_factory(L.ct_tensor_rand, T, dims, device, gen)
rand(dims::Integer...; kw...) = rand(get_default_dtype(), dims...; kw...)
@doc (@doc rand) randn(T::Type, dims::Integer...; device = nothing, gen = nothing) =
    _random_factory(L.ct_tensor_randn, T, dims, device, gen)
randn(dims::Integer...; kw...) = randn(get_default_dtype(), dims...; kw...)

"""
    CTorch.randint(low, high, dims...; T=Int64, device=nothing, gen=nothing)

Integers uniform in [low, high) (high excluded, as torch.randint).
"""
function randint(low::Integer, high::Integer, dims::Integer...; T::Type = Int64, device = nothing, gen = nothing)
    _random_factory((p, n, dt, dev, g, out) -> L.ct_tensor_randint(low, high, p, n, dt, dev, g, out), T, dims, device, gen)
end

"""
    CTorch.randperm(n; T=Int64, device=nothing, gen=nothing)

A random permutation of `0:n-1` (the library's 0-based values).
"""
function randperm(n::Integer; T::Type = Int64, device = nothing, gen = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_randperm(n, dtype(T), _device(device), _gen(gen), out))
    return wrap(out[])
end

"""
    CTorch.uniform!(t, from=0, to=1; gen=nothing) -> t
    CTorch.normal!(t, mean=0, std=1; gen=nothing) -> t
    CTorch.bernoulli!(t, p=0.5; gen=nothing) -> t

Fill `t` in place with draws (`uniform_`, `normal_`, `bernoulli_`).
"""
uniform!(t::Tensor, from::Real = 0, to::Real = 1; gen = nothing) = (check(L.ct_tensor_uniform_(t, from, to, _gen(gen))); t)
@doc (@doc uniform!) normal!(t::Tensor, mean::Real = 0, std::Real = 1; gen = nothing) =
    (check(L.ct_tensor_normal_(t, mean, std, _gen(gen))); t)
@doc (@doc uniform!) bernoulli!(t::Tensor, p::Real = 0.5; gen = nothing) = (check(L.ct_tensor_bernoulli_(t, p, _gen(gen))); t)

"""
    CTorch.bernoulli(p::Tensor; gen=nothing) -> Tensor

1 with probability `p[i]`, else 0, per element.
"""
function bernoulli(p::Tensor; gen = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_bernoulli(p, _gen(gen), out))
    return wrap(out[])
end

"""
    CTorch.multinomial(probs::Tensor, num_samples; replacement=false, gen=nothing) -> Tensor

`num_samples` category indices (0-based, `Int64`) per row of `probs`, drawn with probability
proportional to the row's weights.
"""
function multinomial(probs::Tensor, num_samples::Integer; replacement::Bool = false, gen = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_multinomial(probs, num_samples, replacement, _gen(gen), out))
    return wrap(out[])
end

"""
    CTorch.dropout(t::Tensor, p=0.5; train=true, gen=nothing) -> Tensor

Zero each element with probability `p` and scale the rest by `1 / (1 - p)`; `t` itself when not
training.
"""
function dropout(t::Tensor, p::Real = 0.5; train::Bool = true, gen = nothing)
    out = Ref{Ptr{L.ct_tensor}}(C_NULL)
    check(L.ct_tensor_dropout(t, p, train, _gen(gen), out))
    return wrap(out[])
end
