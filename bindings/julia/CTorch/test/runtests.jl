# runtests.jl - CTorch.jl's tests (Test stdlib). Run offline, without Pkg resolving anything:
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch bindings/julia/CTorch/test/runtests.jl
#
# CTest runs it so (bindings/julia/CMakeLists.txt), as does Pkg.test where a registry is reachable.

using Test
using CTorch
using CTorch: ops, LibCTorch

const L = LibCTorch

live() = CTorch.metric("tensors.live")

function collect_garbage()
    for _ in 1:3
        GC.gc(true)
    end
end

"""Run f and return the CTorchError it throws (fails the test when it throws none or another)."""
function ctorch_error(f)
    try
        f()
    catch e
        e isa CTorchError && return e
        rethrow()
    end
    error("expected a CTorchError, got none")
end

@testset "CTorch.jl" begin

@testset "Library loads with a matching ABI" begin
    @test CTorch.version() == L.CT_VERSION_STRING
    @test CTorch.abi_version() >= L.CT_ABI_VERSION
    @test CTorch.has_feature("cpu")
    @test !CTorch.has_feature("no-such-feature")
    @test isfile(CTorch.library_path())
end

@testset "Array round trip keeps column-major order" begin
    for T in (Float32, Float64, Int64, Int32, Int16, Int8, UInt8, Bool, Float16)
        A = T === Bool ? rand(Bool, 2, 3, 4) : T <: AbstractFloat ? T.(randn(2, 3, 4)) : rand(T(0):T(100), 2, 3, 4)
        t = Tensor(A)
        @test size(t) == (2, 3, 4)
        @test ndims(t) == 3
        @test length(t) == 24
        @test eltype(t) === T
        @test strides(t) == strides(A)        # column-major strides: (1, 2, 6)
        @test Array(t) == A
        @test convert(Array, t) == A
        @test t[2, 3, 4][] == A[2, 3, 4]
        @test t[1, 2, 3][] == A[1, 2, 3]
    end
    A = reshape(collect(Float32, 1:24), 2, 3, 4)
    t = Tensor(A)
    @test Array(permutedims(t, (3, 1, 2))) == permutedims(A, (3, 1, 2))
    @test Array(t[2, :, 3:4]) == A[2, :, 3:4]
    @test Array(t[:, 1:2:3, :]) == A[:, 1:2:3, :]
    @test Array(CTorch.contiguous(t)) == A                  # row-major copy, same elements
    @test CTorch.is_contiguous(CTorch.contiguous(t))
    @test !CTorch.is_contiguous(t)
    # A vector and a scalar
    v = Tensor([1.5, 2.5, 3.5])
    @test size(v) == (3,) && Array(v) == [1.5, 2.5, 3.5]
    s = Tensor(7)
    @test ndims(s) == 0 && s[] == 7 && item(s) == 7 && eltype(s) === Int64
    @test Array(s) == fill(7)
    # Ranges and views of other array types are copied in
    @test Array(Tensor(1:5)) == collect(1:5)
    @test Array(Tensor(view(A, 1, :, :))) == A[1, :, :]
    # bfloat16
    b = Tensor(CTorch.BFloat16.(Float32[1.5, -2.25]))
    @test eltype(b) === CTorch.BFloat16
    @test Float32.(Array(b)) == Float32[1.5, -2.25]
    @test_throws ArgumentError Tensor(Complex{Int64}[1im])  # ComplexF32/ComplexF64 only
end

@testset "Printing looks like PyTorch's" begin
    t = Tensor(Float32[1 2; 3 4])
    @test sprint(show, t) == "tensor([[1., 2.],\n        [3., 4.]])"
    @test sprint(show, Tensor(Int32[1, 2])) == "tensor([1, 2], dtype=int32)"
    close(t)
    @test sprint(show, t) == "Tensor(<closed>)"
end

function churn(a, b, n)   # in a function, so that no result stays rooted in the test's frame
    for i in 1:n
        a + b
    end
end

@testset "Ownership: finalizers, close, do-blocks and scopes" begin
    collect_garbage()
    base = live()
    a = Tensor(Float32[1])
    b = Tensor(Float32[2])
    churn(a, b, 1_000_000)
    collect_garbage()
    @test live() == base + 2   # a and b only: a million results were released
    # close releases at once and is idempotent; a closed tensor gives errors, never a crash
    c = a + b
    @test live() == base + 3
    close(c)
    @test live() == base + 2
    close(c)
    @test !isopen(c)
    e = ctorch_error(() -> c + a)
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT
    @test e.status == L.CT_ERROR_INVALID_ARGUMENT
    e = ctorch_error(() -> ops.add(c, a))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT && occursin("closed", e.message)
    @test_throws CTorchError size(c)
    # do-block
    r = Tensor(Float32[1, 2]) do t
        @test live() == base + 3
        Array(t .* 2)
    end
    @test r == Float32[2, 4]
    collect_garbage()
    @test live() == base + 2
    # scope: temporaries released at the end of the block, the result kept
    kept = CTorch.scope() do
        x = a + b
        y = x .* 3
        z = y .- 1
        @test live() == base + 5
        z
    end
    @test live() == base + 3
    @test Array(kept) == Float32[8]
    pair = CTorch.scope() do
        (a + b, a - b)
    end
    @test live() == base + 5 && Array(pair[2]) == Float32[-1]
    @test_throws ErrorException CTorch.scope() do
        a + b
        error("inside a scope")
    end
    collect_garbage()
    # Views keep their storage alive after the base is closed
    base_t = Tensor(reshape(collect(Float64, 1:6), 2, 3))
    v = base_t[2, :]
    close(base_t)
    @test Array(v) == [2.0, 4.0, 6.0]
end

@testset "Errors are CTorchError with the status and the library's message" begin
    a = CTorch.zeros(Float32, 4, 3)
    b = CTorch.zeros(Float32, 2, 3)
    e = ctorch_error(() -> a + b)
    @test e.kind === :CT_ERROR_SHAPE
    @test e.status == L.CT_ERROR_SHAPE
    @test occursin("add", e.message) && occursin("[4, 3]", e.message) && occursin("[2, 3]", e.message)
    @test occursin("CTorchError(CT_ERROR_SHAPE): add", sprint(showerror, e))
    e = ctorch_error(() -> a * CTorch.zeros(Float32, 2, 5))
    @test e.kind === :CT_ERROR_SHAPE && occursin("matmul", e.message)
    e = ctorch_error(() -> ops.bitwise_and(a, a))
    @test e.kind === :CT_ERROR_DTYPE && occursin("float32", e.message)
    e = ctorch_error(() -> a[5, 1])
    @test e.kind === :CT_ERROR_INDEX
    e = ctorch_error(() -> ops.call("no_such_operator", a))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT && occursin("no_such_operator", e.message)
    e = ctorch_error(() -> CTorch.zeros(Float32, 2; device = "nowhere"))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT
    e = ctorch_error(() -> CTorch.metric("no.such.metric"))
    @test occursin("tensors.live", e.message)
    @test_throws ArgumentError ops.add(a, "text")
    @test CTorch.status_name(L.CT_ERROR_GUARD) == "CT_ERROR_GUARD"
end

@testset "Operators: +, -, * (matrix product), scaling, reductions" begin
    A = Float64[1 2 3; 4 5 6]
    B = Float64[1 0; 0 1; 2 2]
    a, b = Tensor(A), Tensor(B)
    @test Array(a * b) == A * B
    @test Array(a * Tensor([1.0, 1.0, 1.0])) == A * [1.0, 1.0, 1.0]
    @test Array(a + a) == A + A
    @test Array(a - a) == zeros(2, 3)
    @test Array(-a) == -A
    @test Array(2 * a) == 2A && Array(a * 2) == 2A && Array(a / 2) == A / 2
    @test Array(a + 1) == A .+ 1 && Array(1 + a) == A .+ 1 && Array(10 - a) == 10 .- A && Array(a - 1) == A .- 1
    @test Array(transpose(a)) == permutedims(A) && Array(a') == permutedims(A)
    @test sum(a)[] == sum(A)
    @test Array(sum(a; dims = 2)) == sum(A; dims = 2)
    @test Array(sum(a; dims = 1)) == sum(A; dims = 1)
    @test Array(maximum(a; dims = 1)) == maximum(A; dims = 1) && maximum(a)[] == 6
    @test Array(minimum(a; dims = 2)) == minimum(A; dims = 2)
    @test Array(prod(a; dims = 2)) == prod(A; dims = 2) && prod(a)[] == prod(A)
    @test CTorch.mean(a)[] ≈ 3.5
    @test a == Tensor(copy(A)) && !(a == a .+ 1)
    @test isapprox(a, a .+ 1e-12) && !isapprox(a, a .+ 1)
    @test Array(exp(a)) ≈ exp.(A) && Array(abs(-a)) == A && Array(sqrt(a)) ≈ sqrt.(A)
    @test size(reshape(a, 3, 2)) == (3, 2)
    @test Array(reshape(Tensor(Float64[1 2; 3 4]), 4)) == [1.0, 2.0, 3.0, 4.0]   # library (row-major) order
    @test Array(vec(Tensor([1 2; 3 4]))) == [1, 2, 3, 4]
    @test Array(copy(a)) == A
    @test eltype(CTorch.to(a, Float32)) === Float32
end

@testset "Broadcasting maps each function to one library operator" begin
    A = Float32[1 2 3; 4 5 6]
    a = Tensor(A)
    @test Array(a .+ a) == A .+ A
    @test Array(a .* a) == A .* A
    @test Array(a ./ a) == A ./ A
    @test Array(a .- 1) == A .- 1 && Array(1 .- a) == 1 .- A
    @test Array(a .^ 2) == A .^ 2
    p = 3
    @test Array(a .^ p) == A .^ p
    @test Array(2 .* a .+ a ./ 2) ≈ 2 .* A .+ A ./ 2
    @test Array(exp.(a)) ≈ exp.(A) && Array(log.(a)) ≈ log.(A) && Array(sin.(a)) ≈ sin.(A)
    @test Array(a .> 3) == (A .> 3)
    @test eltype(a .== a) === Bool
    @test Array(max.(a, 3)) == max.(A, 3) && Array(min.(a, a .* 0)) == min.(A, 0)
    @test Array(ifelse.(a .> 2, a, 0)) == ifelse.(A .> 2, A, 0)
    @test Array(Float64.(a)) == Float64.(A) && eltype(Float64.(a)) === Float64
    @test Array(a .+ Float32[10 20 30; 40 50 60]) == A .+ Float32[10 20 30; 40 50 60]
    # Equal ranks: the same as Julia's rule
    @test Array(a .+ Tensor(Float32[100 200 300])) == A .+ Float32[100 200 300]
    @test Array(a .+ Tensor(reshape(Float32[10, 20], 2, 1))) == A .+ Float32[10, 20]
    # Different ranks: Julia's rule too (a vector runs down the columns)
    @test Array(a .+ Tensor(Float32[10, 20])) == A .+ Float32[10, 20]
    @test_throws CTorchError a .+ Tensor(Float32[100, 200, 300])
    # Integer promotion as PyTorch: int + int stays int, int + float becomes float32
    i = Tensor([1, 2, 3])
    @test eltype(i .+ 1) === Int64 && eltype(i .+ 0.5) === Float32 && eltype(i ./ 2) === Float32
    # In place
    c = copy(a)
    c .= 0
    @test Array(c) == zeros(Float32, 2, 3)
    c .+= a
    @test Array(c) == A
    c .= a .* 2
    @test Array(c) == 2 .* A
    c[1, :] = Tensor(Float32[7, 8, 9])
    @test Array(c)[1, :] == Float32[7, 8, 9]
    c[2, 3] = -1
    @test c[2, 3][] == -1
    @test Array(a[a .> 4]) == Float32[5, 6]
    @test_throws ArgumentError cbrt.(a)
end

@testset "Generated operators cover the registry" begin
    reg = ops.registry()
    builtin = unique([o["name"] for o in reg["operators"] if o["builtin"]])
    @test length(builtin) == length(ops.OPERATOR_NAMES)
    for name in builtin
        @test isdefined(ops, Symbol(name))
    end
    a = Tensor(Float32[1 2; 3 4])
    @test Array(ops.add(a, a; alpha = 2)) == Float32[3 6; 9 12]
    @test Array(ops.add(a, 1)) == Float32[2 3; 4 5]                      # add.Scalar
    @test Array(ops.sum(a, [0]; keepdim = true)) == Float32[4 6]          # 0-based dims
    vals, idx = ops.topk(Tensor(Float32[3, 1, 2]), 2)
    @test Array(vals) == Float32[3, 2] && Array(idx) == [0, 2]
    @test Array(ops.call("add.Tensor", a, a)) == Float32[2 4; 6 8]
    @test Array(ops.call("mul", a, 3)) == Float32[3 6; 9 12]
    @test Array(ops.where(a .> 2, a, CTorch.zeros(Float32, 2, 2))) == Float32[0 0; 3 4]
    # relu's gradient: 0 where self <= threshold, else grad_output as it came.
    @test Array(ops.threshold_backward(Tensor(Float32[Inf, 1, -2, 3]), Tensor(Float32[-1, 0.5, 0.25, 2]), 0.25)) ==
          Float32[0, 1, 0, 3]
    @test occursin("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", ops.schema("add"))
    @test Array(ops.cat([a, a], 0)) == vcat(Float32[1 2; 3 4], Float32[1 2; 3 4])
    @test Array(ops.zeros([2]; dtype = Int32)) == Int32[0, 0]
    @test_throws ArgumentError ops.add(a, a; nonsense = 1)
    # Another name of an operator (Registry::alias) has its overloads and results.
    @test Array(ops.multiply(a, 3)) == Array(ops.mul(a, 3))
    @test Array(ops.swapaxes(a, 0, 1)) == Float32[1 3; 2 4]
    @test Array(ops.arccos(Tensor([0.5]))) ≈ [acos(0.5)]
    # clone's memory_format, torch's numbers (0 contiguous, 1 preserve, 2 channels_last): a Julia
    # matrix's column-major layout is a permuted dense one, which preserve keeps.
    m = Tensor(Float32[0 1 2; 3 4 5])
    @test strides(m) == (1, 2)
    kept = ops.clone(m; memory_format = 1)
    @test strides(kept) == (1, 2) && Array(kept) == Float32[0 1 2; 3 4 5]
    @test strides(ops.clone(m)) == (3, 1)
    @test strides(ops.clone(ops.zeros([2, 3, 4, 5]); memory_format = 2)) == (60, 1, 15, 3)
    e = ctorch_error(() -> ops.clone(m; memory_format = 2))
    @test e.kind === :CT_ERROR_SHAPE && occursin("channels_last needs a 4-D tensor", e.message)
end

@testset "Elementwise math defined by element functions" begin
    # Each is reachable with its overloads and result dtype; values are worked out here.
    a = Tensor([1.0, -2.0, 0.5])
    b = Tensor([-3.0, 4.0, 0.25])
    @test Array(ops.copysign(a, b)) == [-1.0, 2.0, 0.5]
    @test Array(ops.copysign(a, -1.0)) == [-1.0, -2.0, -0.5]                    # copysign.Scalar
    @test Array(ops.logaddexp(a, b)) ≈ log.(exp.([1.0, -2.0, 0.5]) .+ exp.([-3.0, 4.0, 0.25]))
    @test Array(ops.logaddexp2(a, b)) ≈ log2.(exp2.([1.0, -2.0, 0.5]) .+ exp2.([-3.0, 4.0, 0.25]))
    @test Array(ops.hypot(a, b)) ≈ hypot.([1.0, -2.0, 0.5], [-3.0, 4.0, 0.25])
    @test Array(ops.fmax(a, Tensor([NaN, 4.0, 0.0]))) == [1.0, 4.0, 0.5]
    @test Array(ops.fmin(a, Tensor([NaN, 4.0, 0.0]))) == [1.0, -2.0, 0.0]
    @test Array(ops.heaviside(a, Tensor([7.0, 7.0, 7.0]))) == [1.0, 0.0, 1.0]
    @test Array(ops.float_power(a, b)) ≈ [1.0, 16.0, 0.5^0.25]
    c = Tensor([1.0, -2.0, 0.5])                 # float_power_: into a float64 self, no other
    ops.float_power_(c, b)
    @test Array(c) ≈ [1.0, 16.0, 0.5^0.25]
    @test_throws CTorchError ops.float_power_(Tensor(Float32[1, 2]), 2.0)
    @test Array(ops.nextafter(a, b)) == nextfloat.([1.0, -2.0, 0.5], [-1, 1, -1])
    @test Array(ops.xlogy(Tensor([0.0, 2.0]), Tensor([0.0, 3.0]))) ≈ [0.0, 2 * log(3.0)]
    @test Array(ops.xlogy(2.0, Tensor([0.0, 3.0]))) ≈ [-Inf, 2 * log(3.0)]      # xlogy.Scalar_Self
    @test Array(ops.ldexp(a, Tensor([3, -1, 2]))) == [8.0, -1.0, 2.0]
    g = ops.gcd(Tensor([12, -18, 0, 7]), Tensor([18, 12, 5, 0]))
    @test eltype(g) === Int64 && Array(g) == [6, 6, 5, 7]
    @test Array(ops.lcm(Tensor([12, -18, 0, 7]), Tensor([18, 12, 5, 0]))) == [36, 36, 0, 0]
    x = Tensor([0.0, 0.5, -1.5])
    @test Array(ops.sinc(x)) ≈ [1.0, sinpi(0.5) / (pi * 0.5), sinpi(-1.5) / (pi * -1.5)]
    @test Array(ops.deg2rad(x)) ≈ deg2rad.([0.0, 0.5, -1.5])
    @test Array(ops.rad2deg(x)) ≈ rad2deg.([0.0, 0.5, -1.5])
    @test Array(ops.fix(x)) == [0.0, 0.0, -1.0]
    s = ops.signbit(Tensor([-0.0, 0.0, -3.0]))
    @test eltype(s) === Bool && Array(s) == [true, false, true]
    pos = Tensor([1.0, 2.0, 0.5])
    @test Array(ops.lgamma(pos)) ≈ [0.0, 0.0, log(sqrt(pi))] atol = 1e-15
    euler = 0.5772156649015329
    @test Array(ops.digamma(pos)) ≈ [-euler, 1 - euler, -euler - 2 * log(2.0)]
    @test abs(Array(ops.polygamma(1, Tensor([1.0])))[1] - pi^2 / 6) < 1e-8      # torch's series: ~1e-9
    @test Array(ops.i0(Tensor([0.0]))) == [1.0]
    @test Array(ops.logit(Tensor([0.25, 0.5]))) ≈ [log(0.25 / 0.75), 0.0] atol = 1e-15
    @test Array(ops.logit(Tensor([0.0]); eps = 0.25)) ≈ [log(0.25 / 0.75)]
    mantissa, exponent = ops.frexp(Tensor([8.0, -0.75, 0.0]))
    @test Array(mantissa) == [0.5, -0.75, 0.0]
    @test eltype(exponent) === Int32 && Array(exponent) == Int32[4, 0, 0]
end

@testset "Extrema, nansum, isclose and fill" begin
    # The composite operators torch code calls first; their numbers against torch are the Python
    # differential suite's, what this checks is each overload's reach from Julia.
    a = Tensor(Float32[1, 5, 2, 7, -1, 7])
    @test Array(ops.max(a))[] == 7f0 && Array(ops.min(a))[] == -1f0
    values, indices = ops.max(a, 0)                                         # max.dim
    @test Array(values)[] == 7f0 && Array(indices)[] == 3                   # ties: the first index
    @test size(ops.min(a, 0; keepdim = true)[1]) == (1,)
    @test Array(ops.max(a, Tensor(Float32[2, 2, 2, 2, 2, 2]))) == Float32[2, 5, 2, 7, 2, 7]  # max.other
    lo, hi = ops.aminmax(a)
    @test Array(lo)[] == -1f0 && Array(hi)[] == 7f0
    @test_throws CTorchError ops.max(Tensor(Float32[]))
    n = Tensor([NaN, 1.0, 2.0, NaN])
    @test Array(ops.nansum(n))[] == 3.0 && Array(ops.nanmean(n))[] == 1.5
    m = Tensor([NaN, 1.0 + 1e-9, 2.1, 0.0])
    @test Array(ops.isclose(n, m)) == [false, true, false, false]
    @test Array(ops.isclose(n, m; equal_nan = true)) == [true, true, false, false]
    t = Tensor(Int32[1, 2, 3])
    ops.fill_(t, 2.7)                                                       # truncated, as torch
    @test Array(t) == Int32[2, 2, 2]
    ops.zero_(t)
    @test Array(t) == Int32[0, 0, 0]
    @test_throws CTorchError ops.fill_(t, Tensor(Int32[1, 2]))              # the value must be 0-dim
end

@testset "Recurrent operators, quantiles, counts, covariance and sorted search" begin
    # Values worked out here; their numbers against torch are the Python differential suite's.
    # Zero LSTM weights: every gate is sigmoid(0) = 0.5, the candidate 0, so c halves each step.
    params = [ops.zeros([4, 1]), ops.zeros([4, 1]), ops.zeros([4]), ops.zeros([4])]
    out, h, c = ops.lstm(ops.zeros([2, 1, 1]), [ops.zeros([1, 1, 1]), ops.ones([1, 1, 1])], params,
                         true, 1, 0.0, false, false, false)
    @test size(out) == (2, 1, 1)
    @test vec(Array(ops.reshape(out, [2]))) ≈ Float32[0.5 * tanh(0.5), 0.5 * tanh(0.25)]
    @test Array(ops.reshape(c, [1]))[] ≈ 0.25f0
    @test_throws CTorchError ops.lstm(ops.zeros([2, 1, 1]), [ops.zeros([1, 1, 1]), ops.ones([1, 1, 1])],
                                      params, true, 2, 0.0, false, false, false)
    @test Array(ops.gru_cell(ops.zeros([1, 1]), ops.zeros([1, 1]), ops.zeros([3, 1]), ops.zeros([3, 1])))[] == 0
    x = Tensor([4.0, 1.0, 3.0, 2.0])
    @test Array(ops.quantile(x, 0.5))[] ≈ 2.5
    @test Array(ops.quantile(x, 0.5; interpolation = "lower"))[] ≈ 2.0
    @test_throws CTorchError ops.quantile(x, 1.5)
    @test Array(ops.bincount(Tensor([0, 2, 2]))) == [1, 0, 2]
    @test Array(ops.histc(Tensor(Float32[0.5, 1.5, 1.5, 9]); bins = 2, min = 0, max = 2)) == Float32[1, 2]
    seq, v = Tensor([1, 3, 5]), Tensor([3, 6])
    @test Array(ops.searchsorted(seq, v)) == [1, 3]
    @test Array(ops.searchsorted(seq, v; side = "right")) == [2, 3]
    @test Array(ops.bucketize(v, seq)) == [1, 3]
    rows = ops.reshape(Tensor([1.0, 2.0, 3.0, 2.0, 4.0, 6.0]), [2, 3])
    @test Array(ops.cov(rows)) ≈ [1.0 2.0; 2.0 4.0]
    @test Array(ops.corrcoef(rows)) ≈ [1.0 1.0; 1.0 1.0]
    @test Array(ops.repeat_interleave(Tensor([1, 2]), 2)) == [1, 1, 2, 2]
end

@testset "Promotion and casting rules" begin
    @test CTorch.promote_types(UInt8, Int8) === Int16
    @test CTorch.promote_types(Float16, CTorch.BFloat16) === Float32
    @test CTorch.can_cast(Int64, Float32) && !CTorch.can_cast(Float32, Int64)
end

@testset "Complex tensors hold Julia's ComplexF32 and ComplexF64" begin
    @test CTorch.promote_types(ComplexF32, Float64) === ComplexF64
    @test !CTorch.can_cast(ComplexF32, Float64)
    z = Tensor(ComplexF32[1 + 2im, 3 - 1im])
    @test eltype(z) === ComplexF32
    @test Array(z * 2) == ComplexF32[2 + 4im, 6 - 2im]
    @test Array(ops.mul(z, z)) == ComplexF32[-3 + 4im, 8 - 6im]
    @test Array(ops.view_as_real(z)) == Float32[1 2; 3 -1]  # a row per element: (real, imaginary)
    @test Array(ops.abs(z)) ≈ Float32[sqrt(5), sqrt(10)]
    @test CTorch.item(ops.matmul(z, z)) == ComplexF64(5, -2)
    @test Array(ops.conj(z)) == ComplexF32[1 - 2im, 3 + 1im]
    @test ctorch_error(() -> ops.lt(z, z)).kind === :CT_ERROR_DTYPE
    # The pointwise math takes complex numbers: Julia's own functions give the same values
    w = Tensor(ComplexF64[1 + 1im, -0.5 + 2im])
    for (f, g) in ((ops.sin, sin), (ops.acosh, acosh), (ops.log1p, log1p), (ops.reciprocal, inv), (ops.exp2, exp2))
        @test Array(f(w)) ≈ g.(ComplexF64[1 + 1im, -0.5 + 2im])
    end
    @test Array(ops.isfinite(Tensor(ComplexF64[Inf + 0im, 1]))) == [false, true]
    # nan_to_num replaces each part on its own
    @test Array(ops.nan_to_num(Tensor([complex(NaN, Inf), complex(1.0, -Inf)]), 1.0, 2.0, -3.0)) == [1 + 2im, 1 - 3im]
    @test Array(ops.pow(w, 3)) ≈ ComplexF64[1 + 1im, -0.5 + 2im] .^ 3
    @test Array(ops.cumsum(w, 0)) ≈ cumsum(ComplexF64[1 + 1im, -0.5 + 2im])
    @test CTorch.item(ops.linalg_vector_norm(w)) ≈ sqrt(2 + 0.25 + 4)  # real: the norm of the moduli
    # scatter_reduce multiplies complex numbers (both entries into position 1, Julia's index 1 being
    # ctorch's 0); they have no order, so amax is refused
    z = Tensor(ComplexF32[1 + 2im, 3 - 1im])
    @test Array(ops.scatter_reduce(z, 0, Tensor([0, 0]), z, "prod")) == ComplexF32[(1 + 2im)^2 * (3 - 1im), 3 - 1im]
    @test_throws CTorchError ops.scatter_reduce(z, 0, Tensor([0, 0]), z, "amax")
end

@testset "torch.fft: transforms, frequencies and shifts" begin
    x = Tensor([1.0, 2.0, 3.0, 4.0])
    h = ops.fft_rfft(x)
    @test eltype(h) === ComplexF64
    @test Array(h) ≈ ComplexF64[10, -2 + 2im, -2]
    @test Array(ops.fft_rfft(x, nothing, -1, "ortho")) ≈ ComplexF64[5, -1 + 1im, -1]
    @test Array(ops.fft_irfft(h, 4)) ≈ [1.0, 2.0, 3.0, 4.0]
    z = Tensor(ComplexF64[cis(0.1 * k^2) for k in 0:100])  # 101 points, a prime: Bluestein's
    @test Array(ops.fft_ifft(ops.fft_fft(z))) ≈ Array(z)
    @test Array(ops.fft_fft2(Tensor(Float32[1 2; 3 4]); norm = "ortho")) ≈ ComplexF32[5 -1; -2 0]
    @test Array(ops.fft_fftfreq(5, 0.5; dtype = Float64)) ≈ [0, 0.4, 0.8, -0.8, -0.4]
    @test Array(ops.fft_fftshift(Tensor([0, 1, 2, -2, -1]))) == [-2, -1, 0, 1, 2]
    @test ctorch_error(() -> ops.fft_rfft(h)).kind === :CT_ERROR_DTYPE
    @test occursin("Invalid number of data points", ctorch_error(() -> ops.fft_fft(x, 0)).message)
    if CTorch.cuda_device_count() > 0  # cuFFT: the same spectrum on a GPU, and back
        gh = ops.fft_rfft(CTorch.to(x, "cuda"))
        @test Array(CTorch.to(gh, "cpu")) ≈ ComplexF64[10, -2 + 2im, -2]
        @test Array(CTorch.to(ops.fft_irfft(gh, 4), "cpu")) ≈ [1.0, 2.0, 3.0, 4.0]
    end
    # stft of cos(pi n / 2) in frames of 8 (no centering, no window): 4 at frequency 2; istft back
    c = Tensor([cospi(n / 2) for n in 0:15])
    s = ops.stft(c, 8, 8; center = false, return_complex = true)
    @test size(s) == (5, 2)
    @test Array(s) ≈ ComplexF64[0 0; 0 0; 4 4; 0 0; 0 0] atol = 1e-15
    @test Array(ops.istft(s, 8, 8; center = false, length = 16)) ≈ Array(c) atol = 1e-15
    @test occursin("return_complex", ctorch_error(() -> ops.stft(c, 8)).message)
end

@testset "Autocast casts by operator and restores" begin
    a = ops.reshape(Tensor(Float32[1, 2, 3, 4, 5, 6]), [2, 3])
    b = ops.reshape(Tensor(Float32[1, 0, 0, 1, 1, 1]), [3, 2])
    @test !CTorch.is_autocast_enabled("cpu")
    p, loss = CTorch.autocast("cpu") do
        @test CTorch.is_autocast_enabled("cpu") && CTorch.get_autocast_dtype("cpu") === CTorch.BFloat16
        p = ops.mm(a, b)
        p, ops.mse_loss(p, ops.add(p, p))
    end
    @test eltype(p) === CTorch.BFloat16 && eltype(loss) === Float32
    @test vec(Array(ops.reshape(CTorch.to(p, Float32), [4]))) == Float32[4, 5, 10, 11]
    @test !CTorch.is_autocast_enabled("cpu") && eltype(ops.mm(a, b)) === Float32
    @test CTorch.get_autocast_dtype("cuda") === Float16
    @test_throws CTorchError CTorch.autocast(() -> nothing, "cpu"; dtype = Float32)
    @test !CTorch.is_autocast_enabled("cpu")
end

@testset "Rearrangements, products, nanmedian, isin and windows" begin
    # Values worked out here; their numbers against torch are the Python differential suite's.
    flat(t) = vec(Array(ops.reshape(t, [-1])))
    m = ops.reshape(Tensor(Float32[1, 2, 3, 4]), [2, 2])
    @test flat(ops.rot90(m)) == Float32[2, 4, 1, 3]
    @test flat(ops.rot90(m, 2, [0, 1])) == Float32[4, 3, 2, 1]
    @test_throws CTorchError ops.rot90(m, 1, [0, 0])
    @test flat(ops.diagflat(Tensor(Float32[5, 6]), 1)) == Float32[0, 5, 0, 0, 0, 6, 0, 0, 0]
    @test flat(ops.slice_scatter(m, ops.zeros([2, 1]), 1, 1, nothing, 1)) == Float32[1, 0, 3, 0]
    @test_throws CTorchError ops.slice_scatter(m, ops.zeros([2, 2]), 1, 1, nothing, 1)
    @test flat(ops.unfold(Tensor(Float32[1, 2, 3, 4, 5]), 0, 2, 2)) == Float32[1, 2, 3, 4]
    @test flat(ops.block_diag([m, Tensor(Float32[7])])) == Float32[1, 2, 0, 3, 4, 0, 0, 0, 7]
    @test flat(ops.cartesian_prod([Tensor([1, 2]), Tensor([3, 4])])) == [1, 3, 1, 4, 2, 3, 2, 4]
    @test flat(ops.combinations(Tensor([1, 2, 3]))) == [1, 2, 1, 3, 2, 3]
    @test flat(ops.cross(Tensor([1.0, 0.0, 0.0]), Tensor([0.0, 1.0, 0.0]))) == [0.0, 0.0, 1.0]
    @test flat(ops.vander(Tensor([2.0, 3.0]), 3, false)) == [4.0, 2.0, 1.0, 9.0, 3.0, 1.0]
    @test flat(ops.addr(ops.zeros([2, 2]), Tensor(Float32[1, 2]), Tensor(Float32[3, 4]))) == Float32[3, 4, 6, 8]
    x = Tensor([NaN, 3.0, 1.0, 2.0])
    @test Array(ops.nanmedian(x))[] == 2.0
    values, indices = ops.nanmedian(ops.reshape(x, [2, 2]), 1)
    @test flat(values) == [3.0, 1.0] && flat(indices) == [1, 0]
    @test flat(ops.isin(Tensor([1, 2, 3]), Tensor([3, 1]))) == [true, false, true]
    @test flat(ops.hann_window(4, false)) ≈ Float32[0, 0.75, 0.75, 0]
    @test_throws CTorchError ops.hann_window(4; dtype = Int64)
end

@testset "Distances, one_hot, pixel_shuffle, margin losses, scans, stacks and factories" begin
    # Functions everyday models and data code call; their numbers against torch are the Python
    # differential suite's, what this checks is each one's reach from Julia.
    a = ops.reshape(Tensor(Float32[3, 4, 1, 0]), [2, 2])
    b = ops.reshape(Tensor(Float32[3, 4, 0, 1]), [2, 2])
    @test Array(ops.cosine_similarity(a, b)) ≈ Float32[1, 0]
    @test Array(ops.pairwise_distance(a, b; eps = 0.0)) ≈ Float32[0, sqrt(2)]
    @test size(ops.cdist(a, b)) == (2, 2)
    @test_throws CTorchError ops.cdist(a, Tensor(Float32[1, 2, 3]))
    @test Array(ops.one_hot(Tensor([2, 0, 1]))) == [0 0 1; 1 0 0; 0 1 0]
    p = ops.reshape(Tensor(Float32[1, 5, 2, 8, 3, 0]), [1, 1, 6])
    @test vec(Array(ops.reshape(ops.max_pool1d(p, [2]), [3]))) == Float32[5, 8, 3]
    y = ops.instance_norm(ops.reshape(Tensor([1.0, 2.0, 3.0]), [1, 1, 3]), nothing, nothing, nothing, nothing,
                          true, 0.1, 0.0, false)                  # mean 2, biased variance 2/3
    @test vec(Array(ops.reshape(y, [3]))) ≈ [-1, 0, 1] ./ sqrt(2 / 3)
    v, i = ops.adaptive_max_pool1d(p, [2])                   # windows [0, 3) and [3, 6)
    @test vec(Array(ops.reshape(v, [2]))) == Float32[5, 8] && vec(Array(ops.reshape(i, [2]))) == [1, 3]
    @test size(ops.one_hot(Tensor([2, 0, 1]); num_classes = 4)) == (3, 4)
    @test_throws CTorchError ops.one_hot(Tensor([-1]))
    x = ops.reshape(Tensor(Float32.(0:7)), [1, 4, 1, 2])
    up = ops.pixel_shuffle(x, 2)
    @test size(up) == (1, 1, 2, 4)
    @test vec(Array(ops.reshape(up, [8]))) == Float32[0, 2, 1, 3, 4, 6, 5, 7]
    @test Array(ops.glu(Tensor([1.0, 2.0, 0.0, 0.0]))) ≈ [0.5, 1.0]
    # One 2 x 2 x 2 volume holding 0..8: a kernel of ones sums it; the max pool finds 7 at 7.
    vol = ops.reshape(Tensor(Float32.(0:7)), [1, 1, 2, 2, 2])
    ones3 = ops.ones([1, 1, 2, 2, 2])
    @test vec(Array(ops.reshape(ops.conv3d(vol, ones3), [1]))) == Float32[28]
    mv, mi = ops.max_pool3d_with_indices(vol, [2])
    @test vec(Array(ops.reshape(mi, [1]))) == [7]
    back = ops.max_unpool3d(mv, mi, [2, 2, 2], [2], [0])
    @test vec(Array(ops.reshape(back, [8]))) == Float32[0, 0, 0, 0, 0, 0, 0, 7]
    tx = ops.reshape(Tensor(Float32[1, 2]), [1, 1, 2])           # stride 2 spreads each value over two
    ty = ops.conv_transpose1d(tx, ops.ones([1, 1, 2]); stride = [2])
    @test vec(Array(ops.reshape(ty, [4]))) == Float32[1, 1, 2, 2]
    img = ops.reshape(Tensor(Float32.(0:8)), [1, 1, 3, 3])
    cols = ops.im2col(img, [2, 2], [1, 1], [0, 0], [1, 1])
    @test size(cols) == (1, 4, 4)
    counts = ops.col2im(ops.ones([1, 4, 4]), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])  # blocks over each pixel
    @test vec(Array(ops.reshape(counts, [9]))) == Float32[1, 2, 1, 2, 4, 2, 1, 2, 1]
    @test_throws CTorchError ops.conv3d(img, ones3)
    strided = ops.as_strided(Tensor(Float32.(0:5)), [2, 3], [2, 1], 1)  # overlapping rows of one storage
    @test vec(Array(ops.reshape(ops.contiguous(strided), [6]))) == Float32[1, 2, 3, 3, 4, 5]
    @test_throws CTorchError ops.as_strided(Tensor(Float32.(0:5)), [3, 3], [2, 1])
    @test Array(ops.igamma(Tensor([1.0, 1.0]), Tensor([1.0, 2.0]))) ≈ 1 .- exp.(-[1.0, 2.0])  # P(1, x) = 1 - e^-x
    @test Array(ops.igammac(Tensor([1.0, 1.0]), Tensor([1.0, 2.0]))) ≈ exp.(-[1.0, 2.0])
    @test Array(ops.margin_ranking_loss(Tensor(Float32[1, 2]), Tensor(Float32[2, 1]), Tensor(Float32[1, 1])))[] ≈ 0.5f0
    v = Tensor([1.0, 4.0, 9.0, 16.0])
    @test Array(ops.diff(v)) == [3.0, 5.0, 7.0]
    @test Array(ops.diff(v; n = 2)) == [2.0, 2.0]
    @test Array(ops.logcumsumexp(Tensor([0.0, 0.0]), 0)) ≈ [0.0, log(2.0)]
    @test size(ops.hstack([Tensor([0.0, 0.0]), v])) == (6,)
    @test size(ops.vstack([v, v])) == (2, 4)
    @test Array(ops.tril_indices(3, 3)) == [0 1 1 2 2 2; 0 0 1 0 1 2]
    @test Array(ops.logspace(0, 2, 3)) ≈ Float32[1, 10, 100]
    @test Array(ops.trace(a))[] == 3f0
    @test Array(ops.clamp(Tensor([1.0, 2.0, 3.0, 4.0]); min = 2, max = 3)) == [2.0, 2.0, 3.0, 3.0]
    img = ops.reshape(Tensor(Float32[0, 1, 2, 3]), [1, 1, 2, 2])
    @test size(ops.upsample_nearest2d(img, [4, 4])) == (1, 1, 4, 4)
    mid = ops.reshape(ops.upsample_bilinear2d(img, [3, 3], true), [9])
    @test Array(mid) ≈ Float32[0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3]
end

@testset "PyTorch files: what torch.save wrote loads, what is saved here loads back" begin
    # tests/data/checkpoint.pt was written by torch.save (tests/data/make_torch_files.py).
    f = CTorch.torch_load(joinpath(@__DIR__, "..", "..", "..", "..", "tests", "data", "checkpoint.pt"))
    @test first.(f.tensors) == ["model.weight", "model.bias"]
    w = Dict(f.tensors)["model.weight"]
    @test size(w) == (2, 3) && Array(w)[2, 1] == 0.75f0 && Array(w)[1, 3] == 0.5f0  # PyTorch's [1, 0] and [0, 2]
    @test f.structure == "{\"dict\":[[\"model\",{\"ordered_dict\":[[\"weight\",{\"tensor\":0}],[\"bias\",{\"tensor\":1}]]}]," *
                         "[\"epoch\",5],[\"history\",[0.25,0.125]]]}"
    sd = CTorch.state_dict(f, "model")
    @test sort(collect(keys(sd))) == ["bias", "weight"] && Array(sd["bias"]) == Float32[0.5, -0.5]
    io = IOBuffer()
    CTorch.torch_save(io, ["w" => Tensor(Int64[1 2; 3 4]), "flags" => Tensor([true, false])])
    back = CTorch.torch_load(take!(io))
    @test first.(back.tensors) == ["w", "flags"]
    @test Array(Dict(back.tensors)["w"]) == Int64[1 2; 3 4]
    path = tempname() * ".pt"
    CTorch.torch_save(path, Dict("b" => Tensor([1.0]), "a" => Tensor([2.0])))
    @test first.(CTorch.torch_load(path).tensors) == ["a", "b"]                 # a Dict: sorted names
    rm(path)
    @test_throws CTorchError CTorch.torch_load(UInt8[1, 2, 3])
    @test_throws CTorchError CTorch.torch_load("/nonexistent/x.pt")
end

@testset "The raw layer matches the header" begin   # ops.jl: CTest's julia.generated
    gen = joinpath(@__DIR__, "..", "gen", "generate.jl")
    cmd = `$(Base.julia_cmd()) --startup-file=no $gen --check`
    @test success(pipeline(cmd; stdout = devnull, stderr = stderr))
end

@testset "Autograd: a graph goes with its tensors, whatever refers back" begin
    function feedback_and_create_graph()
        x = Tensor(Float32[1, 2, 3]; requires_grad = true)
        s = ops.sum(x)
        requires_grad!(x, false)
        ops.add_(x, s)   # x's history now ends at its own AccumulateGrad
        w = Tensor(Float32[1, 2, 3]; requires_grad = true)
        backward(ops.sum(w .* w .* w); create_graph = true)
        @test requires_grad(grad(w))   # a recorded grad: it goes with w
        nothing
    end
    collect_garbage()
    base = live()
    for _ in 1:100
        feedback_and_create_graph()
    end
    collect_garbage()
    @test live() == base
end

@testset "Autograd: backward, grad modes, hooks" begin
    x = Tensor([1.0, 2.0, 3.0]; requires_grad = true)
    @test requires_grad(x) && CTorch.is_leaf(x)
    y = ops.sum(x .* x)
    @test CTorch.grad_fn_name(y) isa String
    @test CTorch.grad_fn_name(x) === nothing
    backward(y)
    @test Array(grad(x)) == [2.0, 4.0, 6.0]
    CTorch.set_grad!(x, nothing)
    @test grad(x) === nothing
    # no_grad restores the mode, also when the block throws
    z = no_grad() do
        @test !is_grad_enabled()
        x .* 2
    end
    @test !requires_grad(z) && is_grad_enabled()
    @test_throws ErrorException no_grad(() -> error("in no_grad"))
    @test is_grad_enabled()
    no_grad() do
        enable_grad() do
            @test is_grad_enabled()
        end
        @test !is_grad_enabled()
    end
    w = inference_mode() do
        @test CTorch.is_inference_mode_enabled()
        x .+ 1
    end
    @test CTorch.is_inference(w)
    # second derivative of sum(x^3): 6x
    g, = CTorch.autograd_grad(ops.sum(x .^ 3), [x]; create_graph = true)
    @test Array(g) == 3 .* [1.0, 2.0, 3.0] .^ 2
    g2, = CTorch.autograd_grad(ops.sum(g), [x])
    @test Array(g2) == 6 .* [1.0, 2.0, 3.0]
    # retain_grad and detach
    h = x .* 2
    @test !CTorch.retains_grad(h)
    CTorch.retain_grad!(h)
    @test CTorch.retains_grad(h) && CTorch.output_nr(h) == 0
    backward(ops.sum(h .* h))
    @test Array(grad(h)) == 2 .* Array(h)
    @test !requires_grad(detach(h))
    # hooks replace the gradient; an exception in one reaches the caller
    CTorch.set_grad!(x, nothing)
    id = CTorch.register_hook(g -> g .* 10, x)
    backward(ops.sum(x))
    @test Array(grad(x)) == [10.0, 10.0, 10.0]
    CTorch.remove_hook(x, id)
    CTorch.register_hook(g -> error("hook failed on purpose"), x)
    e = ctorch_error(() -> backward(ops.sum(x)))
    @test occursin("hook failed on purpose", e.message)
    @test e.cause isa ErrorException && e.cause.msg == "hook failed on purpose"
    e = ctorch_error(() -> requires_grad!(Tensor([1, 2])))
    @test e.kind === :CT_ERROR_DTYPE
    # Matrix product gradient: d(sum(A*B))/dA = ones * B'
    A = Tensor(Float64[1 2; 3 4]; requires_grad = true)
    B = Tensor(Float64[5 6; 7 8])
    backward(ops.sum(A * B))
    @test Array(grad(A)) == ones(2, 2) * permutedims(Float64[5 6; 7 8])
end

@testset "Autograd: an in-place write through a view goes into its base's history" begin
    # h = x * 1; h[2:3] .*= w (ctorch's narrow counts from 0): loss = x1 + x2 w1 + x3 w2
    x = Tensor([1.0, 2.0, 3.0]; requires_grad = true)
    w = Tensor([4.0, 5.0]; requires_grad = true)
    h = x .* 1
    ops.mul_(ops.narrow(h, 0, 1, 2), w)
    @test CTorch.grad_fn_name(h) == "CopySlices"
    @test Array(h) == [1.0, 8.0, 15.0]
    backward(ops.sum(h))
    @test Array(grad(x)) == [1.0, 4.0, 5.0]
    @test Array(grad(w)) == [2.0, 3.0]
    # a view of a leaf that requires grad is refused, as the leaf itself is
    e = ctorch_error(() -> ops.mul_(ops.narrow(x, 0, 0, 2), w))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT
    @test occursin("of a leaf tensor that requires grad", e.message)
    @test Array(x) == [1.0, 2.0, 3.0]
end

@testset "Post-accumulate hooks see the accumulated gradient" begin
    w = Tensor([1.0, 2.0]; requires_grad = true)
    seen = Vector{Float64}[]
    id = CTorch.register_post_accumulate_grad_hook(leaf -> push!(seen, Array(grad(leaf))), w)
    backward(ops.sum(w * 3))
    backward(ops.sum(w * 3))
    @test seen == [[3.0, 3.0], [6.0, 6.0]]
    CTorch.remove_hook(w, id)
    backward(ops.sum(w))
    @test length(seen) == 2
    CTorch.register_post_accumulate_grad_hook(leaf -> error("no reduction today"), w)
    e = ctorch_error(() -> backward(ops.sum(w)))
    @test occursin("no reduction today", e.message)
    e = ctorch_error(() -> CTorch.register_post_accumulate_grad_hook(identity, w * 2))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT
end

@testset "Custom functions with Julia closures" begin
    calls = Ref(0)
    square = CTorch.CustomFunction("JuliaSquare";
        forward = (ctx, x) -> (CTorch.save_for_backward(ctx, x); calls[] += 1; x .* x),
        backward = (ctx, g) -> (saved = CTorch.saved_tensors(ctx)[1]; 2 .* saved .* g))
    x = Tensor([1.0, -2.0, 3.0]; requires_grad = true)
    y = square(x)
    @test Array(y) == [1.0, 4.0, 9.0] && calls[] == 1
    @test CTorch.grad_fn_name(y) == "JuliaSquareBackward"
    backward(ops.sum(y))
    @test Array(grad(x)) == [2.0, -4.0, 6.0]
    two = CTorch.CustomFunction("Two"; forward = (ctx, a, b) -> (a .+ b, a .- b), backward = (ctx, ga, gb) -> (ga .+ gb, ga .- gb))
    s, d = two(x, x; nout = 2)
    @test Array(s) == 2 .* Array(x) && Array(d) == zeros(3)
    bad = CTorch.CustomFunction("Bad"; forward = (ctx, x) -> error("forward failed on purpose"), backward = (ctx, g) -> g)
    e = ctorch_error(() -> bad(x))
    @test occursin("forward failed on purpose", e.message) && occursin("Bad", e.message)
    @test e.cause isa ErrorException
    badb = CTorch.CustomFunction("BadBackward"; forward = (ctx, x) -> x .* 1,
                                  backward = (ctx, g) -> throw(DimensionMismatch("backward failed on purpose")))
    e = ctorch_error(() -> backward(ops.sum(badb(x))))
    @test occursin("backward failed on purpose", e.message) && e.cause isa DimensionMismatch
    wrong = CTorch.CustomFunction("Wrong"; forward = (ctx, x) -> 42, backward = (ctx, g) -> g)
    e = ctorch_error(() -> wrong(x))
    @test occursin("Int64", e.message)
end

@testset "Compiled Julia functions" begin
    f(x, y) = x .* ops.sigmoid(1.702 .* x) .+ y
    g = CTorch.compile(f)
    a = CTorch.randn(Float32, 4, 8)
    b = CTorch.randn(Float32, 4, 8)
    @test isapprox(g(a, b), f(a, b))
    @test isapprox(g(b, a), f(b, a))
    m = CTorch.compile_metrics(g)
    @test m["calls"] == 2 && m["compiles"] == 1
    @test occursin("sigmoid", join(CTorch.graphs(g)))
    # Several outputs: the first trace finds out how many
    h = CTorch.compile((x) -> (x .+ 1, x .* 2))
    p, q = h(a)
    @test Array(p) == Array(a) .+ 1 && Array(q) == Array(a) .* 2
    # An exception in the function reaches the caller
    bad = CTorch.compile(x -> error("compiled function failed on purpose"))
    e = ctorch_error(() -> bad(a))
    @test occursin("compiled function failed on purpose", e.message) && e.cause isa ErrorException
    # Reading data while tracing is a graph break; fullgraph makes it an error
    brk = CTorch.compile(x -> x .* item(ops.sum(x)); fullgraph = true)
    e = ctorch_error(() -> brk(a))
    @test e.kind === :CT_ERROR_GRAPH_BREAK
    eager = CTorch.compile(x -> x .* item(ops.sum(x)))
    @test isapprox(eager(a), a .* item(ops.sum(a)))
    @test_throws ArgumentError CTorch.compile(identity; nonsense = 1)
    e = ctorch_error(() -> CTorch.compile(identity; backend = "nonsense"))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT && occursin("eager", e.message)
    # Gradients through a compiled function equal eager ones
    w = Tensor(Float32[1, 2, 3]; requires_grad = true)
    c = CTorch.compile(x -> ops.sum(x .* x .* 3))
    backward(c(w))
    @test Array(grad(w)) == Float32[6, 12, 18]
    @test CTorch.metric("compile.compiles") >= 3
    # The backward is compiled too, and reaches a captured weight as eager autograd does
    v = Tensor(Float32[0.5 -1 2]; requires_grad = true)
    x = Tensor(Float32[-1 0 1; 2 3 4]; requires_grad = true)
    gate(x) = ops.sum(ops.sigmoid(x .* v) .* x)
    backward(gate(x))
    want_x, want_v = Array(grad(x)), Array(grad(v))
    CTorch.set_grad!(x, nothing); CTorch.set_grad!(v, nothing)
    cg = CTorch.compile(gate)
    loss = cg(x)
    @test CTorch.grad_fn_name(loss) == "CompiledFunctionBackward"
    backward(loss)
    @test Array(grad(x)) == want_x && Array(grad(v)) == want_v
    @test startswith(only(CTorch.graphs(cg)), "forward:") && occursin("\nbackward:\n", only(CTorch.graphs(cg)))
    # mode "max-autotune": the system compiler builds the kernels, with eager's bits
    function softmax(x)
        e = ops.exp(x .- ops.amax(x, [-1]; keepdim = true))
        e ./ ops.sum(e, [-1]; keepdim = true)
    end
    sm = CTorch.compile(softmax; mode = "max-autotune")
    s = CTorch.randn(Float32, 5, 40)
    @test Array(sm(s)) == Array(softmax(s))
    @test occursin("fused_cpp[", only(CTorch.graphs(sm)))
    # the default mode builds a kernel once it is hot (here from its first call), in the background
    hot = CTorch.compile(softmax; options = Dict("cpp_kernels_hot_ms" => 0))
    h = CTorch.randn(Float64, 6, 70)
    @test Array(hot(h)) == Array(softmax(h))
    CTorch.wait_kernels()
    @test Array(hot(h)) == Array(softmax(h))
    @test occursin("fused_cpp[", only(CTorch.graphs(hot)))
    # bad values of the two options are refused, naming what is allowed
    for (key, value, allowed) in (("cpp_kernels", "maybe", "\"auto\""), ("cpp_kernels_hot_ms", -1, "from 0 to 1e12"),
                                  ("cpp_kernels_hot_ms", "1ms", "from 0 to 1e12"))
        e = ctorch_error(() -> CTorch.compile(softmax; options = Dict(key => value)))
        @test e.kind === :CT_ERROR_INVALID_ARGUMENT && occursin(key, e.message) && occursin(allowed, e.message)
    end
end

@testset "Custom operators with Julia kernels" begin
    CTorch.library_define("juliatest::scale(Tensor x, float factor=2.0) -> Tensor")
    CTorch.library_impl("juliatest::scale") do x, factor
        x .* factor
    end
    a = Tensor(Float32[1, 2])
    @test Array(ops.call("juliatest::scale", a)) == Float32[2, 4]
    @test Array(ops.call("juliatest::scale", a; factor = 3.0)) == Float32[3, 6]
    CTorch.library_define("juliatest::fails(Tensor x) -> Tensor")
    CTorch.library_impl("juliatest::fails") do x
        throw(ArgumentError("kernel failed on purpose"))
    end
    e = ctorch_error(() -> ops.call("juliatest::fails", a))
    @test occursin("juliatest::fails", e.message) && occursin("kernel failed on purpose", e.message)
    @test e.cause isa ArgumentError && e.kind === :CT_ERROR_INVALID_ARGUMENT
    CTorch.library_set_determinism("juliatest::scale", "cpu", :bitwise)
    e = ctorch_error(() -> CTorch.library_define("no_namespace(Tensor x) -> Tensor"))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT
end

@testset "Symbolic shapes" begin
    env = ShapeEnv()
    s = CTorch.symbol(env, "batch"; hint = 8, min = 1, max = 1024)
    @test CTorch.is_symbolic(s)
    @test string(2 * s + 1) == "2*batch + 1"
    @test CTorch.maybe_value(s) === nothing && CTorch.maybe_value(SymInt(3)) == 3
    @test CTorch.evaluate(2 * s + 1, [5]) == 11
    @test string(fld(4 * s, 4)) == "batch"
    @test string(CTorch.sym_max(s, 1)) == "batch"
    @test CTorch.num_guards(env) == 0
    @test Bool(s > 2)                      # decided by the hint, recorded as a guard
    @test CTorch.num_guards(env) == 1
    @test CTorch.guards(env)["guards"] == ["batch > 2"] || CTorch.guards(env)["guards"] == ["batch >= 3"]
    @test CTorch.check_guards(env, [10]) === nothing
    @test CTorch.check_guards(env, [1]) == 1
    @test Int(s) == 8 && CTorch.num_guards(env) == 2
    @test string(CTorch.sym_ite(s > 100, s, 100)) isa String
    f = s / 2
    @test f isa SymFloat && CTorch.evaluate(f, [8]) == 4.0
    u = CTorch.unbacked(env)
    e = ctorch_error(() -> Bool(u > 0))
    @test e.kind === :CT_ERROR_GUARD
    t = CTorch.empty_symbolic(Float32, s, 100)
    @test CTorch.is_symbolic(t)
    w = CTorch.zeros(Float32, 50, 100; device = "meta")
    y = ops.linear(t, w)
    @test string.(CTorch.sym_size(y)) == ["batch", "50"]
    @test CTorch.device(y) == "meta"
    @test_throws CTorchError size(y)
end

@testset "Exported programs" begin
    f(x) = ops.relu(x) .* 2 .+ 1
    prog = CTorch.export_program(f, CTorch.randn(Float32, 8, 4);
                                 dynamic_shapes = [(1, 1) => CTorch.Dim("batch"; min = 1, max = 1024)])
    @test CTorch.num_inputs(prog) == 1 && CTorch.num_outputs(prog) == 1
    x = CTorch.randn(Float32, 3, 4)
    @test isapprox(prog(x), f(x))
    sig = CTorch.signature(prog)
    @test sig["inputs"][1]["sizes"] == Any["batch", 4]
    @test occursin("relu", CTorch.graph(prog))
    e = ctorch_error(() -> prog(CTorch.randn(Float32, 3, 5)))
    @test e.kind === :CT_ERROR_SHAPE
    path = tempname()
    CTorch.save(prog, path)
    loaded = CTorch.load_program(path)
    @test isapprox(loaded(x), f(x))
    @test isapprox(CTorch.load_program(CTorch.save(prog))(x), f(x))
    rm(path)
    e = ctorch_error(() -> CTorch.load_program(UInt8[1, 2, 3]))
    @test e.kind === :CT_ERROR_FORMAT
    e = ctorch_error(() -> CTorch.export_program(x -> error("export failed on purpose"), x))
    @test occursin("export failed on purpose", e.message) && e.cause isa ErrorException
    two = CTorch.export_program(x -> (x .+ 1, x .- 1), x; nout = 2)
    p, m = two(x)
    @test Array(p) == Array(x) .+ 1 && Array(m) == Array(x) .- 1
end

@testset "Determinism and random numbers" begin
    manual_seed(1234)
    a = CTorch.rand(Float32, 5)
    manual_seed(1234)
    @test Array(CTorch.rand(Float32, 5)) == Array(a)
    @test CTorch.initial_seed() == 1234
    g = Generator()
    manual_seed(g, 7)
    n1 = CTorch.randn(Float64, 4; gen = g)
    state = CTorch.get_state(g)
    n2 = CTorch.randn(Float64, 4; gen = g)
    CTorch.set_state!(g, state)
    @test Array(CTorch.randn(Float64, 4; gen = g)) == Array(n2)
    @test Array(n1) != Array(n2)
    @test CTorch.get_offset(g) > 0
    manual_seed(g, 7)
    @test Array(CTorch.randn(Float64, 4; gen = g)) == Array(n1)
    r = CTorch.randint(0, 10, 100; gen = g)
    @test all(0 .<= Array(r) .< 10) && eltype(r) === Int64
    @test sort(Array(CTorch.randperm(6; gen = g))) == collect(0:5)
    u = CTorch.uniform!(CTorch.empty(Float32, 1000), 2, 3; gen = g)
    @test all(2 .<= Array(u) .< 3)
    @test size(CTorch.multinomial(Tensor(Float32[0.1, 0.9]), 3; replacement = true)) == (3,)
    @test all(x -> x == 0 || x == 1, Array(CTorch.bernoulli(Tensor(Float32[0.5, 0.5]))))
    @test CTorch.dropout(a, 0.5; train = false) == a
    e = ctorch_error(() -> CTorch.rand(Int32, 3))
    @test e.kind === :CT_ERROR_DTYPE
    @test !CTorch.are_deterministic_algorithms_enabled()
    CTorch.use_deterministic_algorithms(true)
    @test CTorch.are_deterministic_algorithms_enabled() && CTorch.get_deterministic_debug_mode() == 2
    @test all(isnan, Array(CTorch.empty(Float32, 3)))     # uninitialized memory is filled
    CTorch.set_deterministic_debug_mode(1)
    @test CTorch.is_deterministic_algorithms_warn_only_enabled()
    CTorch.use_deterministic_algorithms(false)
    @test CTorch.get_deterministic_debug_mode() == 0
    @test_throws CTorchError CTorch.set_deterministic_debug_mode(5)
end

@testset "Runtime switches, metrics, profiler, logging" begin
    @test CTorch.get_default_dtype() === Float32
    CTorch.set_default_dtype(Float64)
    @test eltype(CTorch.zeros(2)) === Float64
    CTorch.set_default_dtype(Float32)
    @test_throws CTorchError CTorch.set_default_dtype(Int32)
    CTorch.with_device("meta") do
        @test CTorch.get_default_device() == "meta"
        @test CTorch.device(CTorch.zeros(Float32, 2)) == "meta"
    end
    @test CTorch.get_default_device() == "cpu"
    @test CTorch.get_float32_matmul_precision() == "highest"
    CTorch.set_float32_matmul_precision("high")
    @test CTorch.metric("matmul.float32_precision") == 1
    CTorch.set_float32_matmul_precision("highest")
    CTorch.set_printoptions(precision = 1, sci_mode = true)
    @test repr(Tensor(Float32[1.5, 2.25, 3])) == "tensor([1.5e+00, 2.2e+00, 3.0e+00])"
    CTorch.set_printoptions(profile = :default)
    @test repr(Tensor(Float32[1.5, 2.25, 3])) == "tensor([1.5000, 2.2500, 3.0000])"
    @test ctorch_error(() -> CTorch.set_printoptions(linewidth = 0)).kind === :CT_ERROR_INVALID_ARGUMENT
    CTorch.set_warn_always(true)
    @test CTorch.is_warn_always_enabled()
    CTorch.set_warn_always(false)
    a = Tensor(Float32[0, 1]; requires_grad = true)
    CTorch.set_anomaly_enabled(true)
    e = ctorch_error(() -> backward(CTorch.ops.sum(CTorch.ops.div(a, a))))
    CTorch.set_anomaly_enabled(false)
    @test occursin("returned nan values", e.message) && !CTorch.is_anomaly_enabled()
    tiny = Tensor(Float32[1e-39])
    CTorch.set_flush_denormal(true) && @test Array(tiny * Tensor(Float32[1]))[1] == 0
    CTorch.set_flush_denormal(false)
    @test Array(tiny * Tensor(Float32[1]))[1] > 0
    n = CTorch.get_num_threads()
    CTorch.set_num_threads(1)
    @test CTorch.get_num_threads() == 1
    CTorch.set_num_threads(n)
    m = CTorch.metrics()
    @test m["tensors.live"] isa Integer && haskey(m, "compile.compiles")
    r, trace = CTorch.profile() do
        Tensor(Float32[1]) + Tensor(Float32[2])
    end
    @test occursin("\"add.Tensor\"", trace) && !CTorch.profiler_is_running()
    @test CTorch.plugins() isa Dict
    @test CTorch.get_log_level() === :warning
    CTorch.set_log_level(:info)
    @test CTorch.get_log_level() === :info
    CTorch.set_log_level(:warning)
    messages = Tuple{Int,String}[]
    CTorch.set_log_handler((level, msg) -> push!(messages, (level, msg)))
    CTorch.library_define("juliatest::atomic(Tensor x) -> Tensor")
    CTorch.library_impl(x -> x .+ 0, "juliatest::atomic")
    CTorch.library_set_determinism("juliatest::atomic", "cpu", :atomic)
    CTorch.use_deterministic_algorithms(true; warn_only = true)
    ops.call("juliatest::atomic", Tensor(Float32[1]))
    CTorch.use_deterministic_algorithms(true)
    e = ctorch_error(() -> ops.call("juliatest::atomic", Tensor(Float32[1])))
    @test e.kind === :CT_ERROR_NONDETERMINISTIC
    CTorch.use_deterministic_algorithms(false)
    CTorch.set_log_handler(nothing)
    @test any(m -> m[1] == 2 && occursin("juliatest::atomic", m[2]), messages)
    @test CTorch.cuda_device_count() >= 0
    @test CTorch.device(Tensor([1.0])) == "cpu"
end

@testset "Memory pressure runs Julia's GC before out of memory" begin
    collect_garbage()
    base = live()
    function make_garbage()
        for i in 1:100
            Tensor(Float32[i])   # unreachable at once; released only by its finalizer
        end
    end
    GC.enable(false)             # keep them alive until the library asks for memory
    make_garbage()
    @test live() == base + 100
    calls = CTorch.memory_pressure_calls()
    GC.enable(true)
    e = ctorch_error(() -> CTorch.empty(Float32, 1 << 46))   # 256 TiB: no machine has it
    @test e.kind === :CT_ERROR_OUT_OF_MEMORY
    @test CTorch.memory_pressure_calls() > calls
    @test live() <= base                # the garbage went while the allocation was retried
end

@testset "Generated methods call their overload by handle" begin
    @test Array(ops.add(Tensor(Float32[1]), Tensor(Float32[2]))) == Float32[3]
    @test ops.OVERLOADS["add"][1].handle[] != C_NULL   # found once by ct_op_find, kept
    @test Array(ops.add(Tensor(Float32[1]), 2; alpha = 3)) == Float32[7]   # add.Scalar, its own handle
    @test ops.OVERLOADS["add"][2].handle[] != C_NULL
end

@testset "poisson and binomial" begin
    x = Array(CTorch.ops.poisson(CTorch.ops.full([5000], 20.0)))
    @test all(v -> v >= 0 && isinteger(v), x) && abs(sum(x) / length(x) - 20) < 0.4
    b = Array(CTorch.ops.binomial(CTorch.ops.full([5000], 12.0), CTorch.ops.full([1], 0.25)))
    @test all(v -> 0 <= v <= 12 && isinteger(v), b)
    @test ctorch_error(() -> CTorch.ops.poisson(Tensor(Float32[-1]))).kind === :CT_ERROR_INVALID_ARGUMENT
end

@testset "matrix_power and matrix_exp" begin
    a = Tensor([1.0 1.0; 0.0 1.0])
    @test Array(CTorch.ops.matrix_power(a, 7)) == [1.0 7.0; 0.0 1.0]
    @test Array(CTorch.ops.matrix_exp(Tensor([0.0 2.0; 0.0 0.0]))) == [1.0 2.0; 0.0 1.0]
    @test Array(CTorch.ops.matrix_power(a, -2)) == [1.0 -2.0; 0.0 1.0]  # the inverse's power
end

@testset "Linear algebra on LAPACK" begin
    a = Tensor([4.0 1.0; 2.0 3.0])  # det 10
    @test Array(CTorch.ops.linalg_solve(a, Tensor(reshape([5.0, 5.0], 2, 1)))) ≈ reshape([1.0, 1.0], 2, 1)
    @test Array(CTorch.ops.linalg_inv(a)) ≈ [0.3 -0.1; -0.2 0.4]
    @test Array(CTorch.ops.linalg_det(a))[] ≈ 10.0
    @test Array(CTorch.ops.linalg_cholesky(Tensor([4.0 2.0; 2.0 5.0]))) ≈ [2.0 0.0; 1.0 2.0]
    w, v = CTorch.ops.linalg_eigh(Tensor([2.0 1.0; 1.0 2.0]))
    @test Array(w) ≈ [1.0, 3.0]
    u, s, vh = CTorch.ops.linalg_svd(Tensor([3.0 0.0; 0.0 -2.0]))
    @test Array(s) ≈ [3.0, 2.0]
    m = Tensor([1.0 2.0; 3.0 4.0; 5.0 6.0])
    q, r = CTorch.ops.linalg_qr(m)
    @test Array(q * r) ≈ Array(m)
    # svd_lowrank of the rank-1 [1, 2, 2] [2, 1]': singular values 3 sqrt 5 and 0 whatever the random
    # draw, and U diag(S) V' gives it back; pca_lowrank refuses a q above min(m, n)
    a = Tensor([2.0 1.0; 4.0 2.0; 4.0 2.0])
    u, s, v = CTorch.ops.svd_lowrank(a, 2)
    @test Array(s) ≈ [3 * sqrt(5.0), 0.0] atol = 1e-12
    @test Array(u) * (Array(s) .* Array(v)') ≈ Array(a)
    @test occursin("min(m, n) = 2", ctorch_error(() -> CTorch.ops.pca_lowrank(a, 3)).message)
    ld, piv = CTorch.ops.linalg_ldl_factor(Tensor([1.0 2.0; 2.0 1.0]))  # indefinite
    @test Array(CTorch.ops.linalg_ldl_solve(ld, piv, Tensor(reshape([3.0, 3.0], 2, 1)))) ≈ reshape([1.0, 1.0], 2, 1)
    e = ctorch_error(() -> CTorch.ops.linalg_inv(Tensor([1.0 2.0; 2.0 4.0])))
    @test e.kind === :CT_ERROR_LINALG
    @test occursin("singular", e.message)
    @test ctorch_error(() -> CTorch.ops.linalg_det(Tensor([1.0 2.0 3.0]))).kind === :CT_ERROR_SHAPE
    # torch 2.x's matrix_sqrth and polar (A = U H; a wide A refused)
    @test Array(CTorch.ops.linalg_matrix_sqrth(Tensor([2.0 0.0; 0.0 9.0]))) ≈ [sqrt(2.0) 0.0; 0.0 3.0]
    pu, ph = CTorch.ops.linalg_polar(Tensor([3.0 0.0; 0.0 -2.0]))
    @test Array(pu) ≈ [1.0 0.0; 0.0 -1.0] && Array(ph) ≈ [3.0 0.0; 0.0 2.0]
    @test ctorch_error(() -> CTorch.ops.linalg_polar(Tensor([1.0 2.0 3.0; 4.0 5.0 6.0]))).kind === :CT_ERROR_SHAPE
    if CTorch.cuda_device_count() > 0  # cuSOLVER: the same numbers and errors on a GPU
        ga = CTorch.to(a, "cuda")
        @test Array(CTorch.to(CTorch.ops.linalg_inv(ga), "cpu")) ≈ [0.3 -0.1; -0.2 0.4]
        @test Array(CTorch.to(CTorch.ops.linalg_det(ga), "cpu"))[] ≈ 10.0
        gld, gpiv = CTorch.ops.linalg_ldl_factor(CTorch.to(Tensor([1.0 2.0; 2.0 1.0]), "cuda"))  # indefinite
        @test Array(CTorch.to(CTorch.ops.linalg_ldl_solve(gld, gpiv, CTorch.to(Tensor(reshape([3.0, 3.0], 2, 1)), "cuda")),
                              "cpu")) ≈ reshape([1.0, 1.0], 2, 1)
        gl, _ = CTorch.ops.linalg_eig(CTorch.to(Tensor([0.0 -1.0; 1.0 0.0]), "cuda"))  # a rotation: i and -i
        @test Array(CTorch.to(gl, "cpu")) ≈ ComplexF64[1im, -1im]
        @test ctorch_error(() -> CTorch.ops.linalg_inv(CTorch.to(Tensor([1.0 2.0; 2.0 4.0]), "cuda"))).kind ===
              :CT_ERROR_LINALG
    end
    # A general matrix's eigenvalues are complex: a rotation by 90 degrees has i and -i
    rot = Tensor([0.0 -1.0; 1.0 0.0])
    l, v = CTorch.ops.linalg_eig(rot)
    @test eltype(l) === ComplexF64 && Array(l) ≈ ComplexF64[1im, -1im]
    @test Array(rot) * Array(v) ≈ Array(v) .* transpose(Array(l))  # A V = V diag(L)
    @test Array(CTorch.ops.linalg_eigvals(rot)) ≈ ComplexF64[1im, -1im]
    @test occursin("infs or NaNs", ctorch_error(() -> CTorch.ops.linalg_eig(Tensor([1.0 NaN; 0.0 1.0]))).message)
    # Complex matrices: B = [2 i; i 1] has det 3 and B [1, 1] = [2 + i, 1 + i]
    b = Tensor(ComplexF64[2 1im; 1im 1])
    @test Array(CTorch.ops.linalg_det(b))[] ≈ 3
    @test Array(CTorch.ops.linalg_solve(b, Tensor(ComplexF64[2 + 1im, 1 + 1im]))) ≈ ComplexF64[1, 1]
    # A Hermitian positive-definite matrix: real eigenvalues (heevd) and a Cholesky factor (A = L L^H)
    h = ComplexF64[2 1im; -1im 2]  # eigenvalues 1 and 3
    @test Array(CTorch.ops.linalg_eigvalsh(Tensor(h))) ≈ [1.0, 3.0]
    l = Array(CTorch.ops.linalg_cholesky(Tensor(h)))
    @test l * l' ≈ h
    @test Array(CTorch.ops.linalg_svdvals(Tensor(ComplexF64[2im 0; 0 -1]))) ≈ [2.0, 1.0]  # real
    cq, cr = CTorch.ops.linalg_qr(Tensor(h))
    @test Array(cq) * Array(cr) ≈ h
end

@testset "What the library refuses instead of crashing" begin
    # Tensors on two devices (docs/reliability.md): a cpu kernel once read a meta tensor's null data.
    x = Tensor(Float32[1, 2, 3])
    m = CTorch.to(Tensor(Float32[1, 2, 3]), "meta")
    e = ctorch_error(() -> x + m)
    @test e.kind === :CT_ERROR_DEVICE
    @test occursin("expected all tensors on one device", e.message)
    # A number its dtype cannot hold, as torch refuses it.
    e = ctorch_error(() -> CTorch.full(300, Int8, 2))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT
    @test occursin("cannot be converted to int8 without overflow", e.message)
    # A hook that runs backward through its own tensor ends with an error, not a stack overflow.
    w = CTorch.requires_grad!(Tensor(Float32[1, 2]))
    loss = Ref{Any}(nothing)
    CTorch.register_hook(w) do g
        CTorch.backward(loss[]; retain_graph = true)
        nothing
    end
    loss[] = sum(w .* w)
    e = ctorch_error(() -> CTorch.backward(loss[]; retain_graph = true))
    @test occursin("callbacks nest 32 deep", sprint(showerror, e))
    loss[] = nothing
end

@testset "Broadcasting aligns sizes as Julia does" begin
    A = Float64[1 2 3; 4 5 6; 7 8 9]
    v = [10.0, 20.0, 30.0]
    # A vector runs down the columns (Julia pads the shorter size with trailing 1s), whether it
    # is an array or a tensor, on either side, and in every operator path.
    @test Array(Tensor(A) .+ v) == A .+ v
    @test Array(v .* Tensor(A)) == v .* A
    @test Array(Tensor(A) .+ Tensor(v)) == A .+ v
    @test Array(Tensor(A) .- Tensor(v)) == A .- v
    @test Array(max.(Tensor(A), Tensor(v .- 5))) == max.(A, v .- 5)
    @test Array(Tensor(A) + Tensor(v)) == A .+ v
    @test Array(Tensor(v) - Tensor(A)) == v .- A
    @test Array(Tensor(A) .+ v') == A .+ v'               # a row, as in Julia
    B = reshape(collect(1.0:24), 2, 3, 4)
    @test Array(Tensor(B) .* Tensor([1.0, 2.0])) == B .* [1.0, 2.0]
    @test Array(Tensor(B) .+ Tensor([1.0 2.0 3.0; 4.0 5.0 6.0])) == B .+ [1.0 2.0 3.0; 4.0 5.0 6.0]
    d = CTorch.zeros(Float64, 3, 3)
    d .= Tensor(v)
    @test Array(d) == repeat(v, 1, 3)
    # Gradients flow through the padding.
    w = Tensor([1.0, 2.0, 3.0]; requires_grad = true)
    backward(sum(Tensor(A) .* w))
    @test Array(grad(w)) == vec(sum(A; dims = 2))
    # Sizes that do not broadcast in Julia do not here either.
    @test_throws CTorchError Tensor(A) .+ [1.0, 2.0]
    # Comparing with a Julia array compares values, as two arrays do.
    @test Tensor(A) == A && A == Tensor(A)
    @test Tensor(A) != A' && Tensor(A) != vec(A) && Tensor(v) == v
    @test isapprox(Tensor(A), A .+ 1e-12) && !isapprox(Tensor(A), A .+ 1)
end

@testset "What generic array code asks of a tensor" begin
    A = Float32[1 2 3; 4 5 6]
    t = Tensor(A)
    @test collect(x for x in t) == vec(A)            # Julia's element order
    @test [x for x in Tensor(Float32[])] == Float32[]
    m = map(x -> 2x, t)
    @test m isa Tensor && m == 2 .* A
    @test map(string, t) == map(string, A)           # not a tensor element type: an Array
    @test map(+, t, t) == A .+ A
    @test size(similar(t)) == (2, 3) && eltype(similar(t)) === Float32
    @test eltype(similar(t, Float64)) === Float64 && size(similar(t, 4, 5)) == (4, 5)
    @test size(similar(t, Int32, (1, 2))) == (1, 2)
    z = zero(t)
    @test z == zeros(Float32, 2, 3) && eltype(z) === Float32
    @test fill!(similar(t), 7) == fill(7f0, 2, 3)
    B = zeros(Float32, 2, 3)
    @test copyto!(B, t) === B && B == A
    @test copyto!(CTorch.zeros(Float32, 2, 3), A) == A
    @test_throws DimensionMismatch copyto!(zeros(Float32, 3, 2), t)
    @test axes(t) == (1:2, 1:3) && Tensor([5, 6, 7])[end][] == 7
    # Vector indices pick positions, in any order, as for arrays
    @test Array(t[[2, 1], :]) == A[[2, 1], :]
    @test Array(t[:, [3, 1, 3]]) == A[:, [3, 1, 3]]
    @test Array(t[2, [1, 3]]) == A[2, [1, 3]]
    @test ctorch_error(() -> t[[3], :]).kind === :CT_ERROR_INDEX
    # Activations and argmax with Julia's 1-based dims
    @test Array(CTorch.sigmoid.(t)) ≈ 1 ./ (1 .+ exp.(-A))
    @test Array(CTorch.sigmoid(t)) ≈ 1 ./ (1 .+ exp.(-A))
    @test Array(CTorch.softmax(t; dims = 2)) ≈ exp.(A) ./ sum(exp.(A); dims = 2)
    @test Array(CTorch.softmax(t)) ≈ exp.(A) ./ sum(exp.(A); dims = 1)
    @test Array(CTorch.logsoftmax(t; dims = 2)) ≈ log.(exp.(A) ./ sum(exp.(A); dims = 2))
    @test_throws ArgumentError CTorch.softmax(t; dims = 3)
    C = Float32[5 2 9; 4 8 6]
    @test Array(argmax(Tensor(C); dims = 2)) == reshape([3, 2], 2, 1)
    @test Array(argmax(Tensor(C); dims = 1)) == [1 2 1]
    @test Array(argmin(Tensor(C); dims = 2)) == reshape([2, 1], 2, 1)
    @test argmax(Tensor(C)) == argmax(C) && argmin(Tensor(C)) == argmin(C)
    @test argmax(Tensor([3, 9, 1])) == 2
    @test_throws ArgumentError argmax(t; dims = 0)
end

@testset "A closed tensor is reported as closed on every path" begin
    t = Tensor(Float32[1, 2, 3])
    close(t)
    closed(f) = (e = ctorch_error(f); e.kind === :CT_ERROR_INVALID_ARGUMENT && occursin("closed Tensor", e.message))
    @test closed(() -> t .+ 1)
    @test closed(() -> exp.(t))
    @test closed(() -> t + t)
    @test closed(() -> sum(t))
    @test closed(() -> size(t))
    @test closed(() -> ops.add(t, t))
    @test closed(() -> CTorch.compile(x -> x .+ 1)(t))
    prog = CTorch.export_program(x -> x .+ 1, Tensor(Float32[1, 2, 3]))
    @test closed(() -> prog(t))
    @test closed(() -> CTorch.zeros(Float32, 3) .= t)
    @test closed(() -> CTorch.SGD([t]; lr = 0.1))
    @test closed(() -> CTorch.clip_grad_norm!([t], 1.0))
    # The library's messages count dims from 0; a Julia user is told so.
    e = ctorch_error(() -> Tensor(zeros(4, 3)) .+ Tensor(zeros(2, 3)))
    @test occursin("dim 0: 4 vs 2", e.message) && occursin("its dim 0 is Julia's dim 1", e.message)
end

include("training.jl")
include("nn_checkpoint.jl")

end # CTorch.jl
