# nn_checkpoint.jl - Linear, Sequential, losses, parameters/state_dict and safetensors checkpoints
# (included by runtests.jl, which defines ctorch_error and collect_garbage).

struct TwoLayer        # a user's model: a plain struct of layers (See Note [Models are plain structs])
    l1::CTorch.Linear
    l2::CTorch.Linear
    scale::Tensor      # a buffer: saved, not trained
end
(m::TwoLayer)(x) = m.l2(CTorch.relu(m.l1(x))) .* m.scale

@testset "Linear: PyTorch's layout, default init and gradients" begin
    manual_seed(3)
    m = CTorch.Linear(3, 2)
    @test size(m.weight) == (2, 3) && size(m.bias) == (2,)
    @test eltype(m.weight) === Float32
    @test requires_grad(m.weight) && requires_grad(m.bias)
    @test maximum(abs, Array(m.weight)) <= 1 / sqrt(3) && maximum(abs, Array(m.bias)) <= 1 / sqrt(3)
    manual_seed(3)                                      # the same draws as init.linear! on empty tensors
    w, b = CTorch.empty(Float32, 2, 3), CTorch.empty(Float32, 2)
    CTorch.init.linear!(w, b)
    @test Array(w) == Array(m.weight) && Array(b) == Array(m.bias)
    X = Float32[1 2 3; 4 5 6; 7 8 9; 1 0 1; 2 2 2]      # 5 samples, one a row
    y = m(Tensor(X))
    @test size(y) == (5, 2)
    @test Array(y) ≈ X * Array(m.weight)' .+ Array(m.bias)' rtol=1e-5
    backward(CTorch.ops.sum(y))
    @test Array(CTorch.grad(m.weight)) ≈ repeat(sum(X; dims = 1), 2) rtol=1e-6
    @test Array(CTorch.grad(m.bias)) == Float32[5, 5]
    n = CTorch.Linear(4, 3; bias = false, dtype = Float64)
    @test n.bias === nothing && eltype(n.weight) === Float64
    @test size(n(CTorch.ones(Float64, 7, 4))) == (7, 3)
    @test sprint(show, n) == "CTorch.Linear(4, 3; bias = false)"
    @test ctorch_error(() -> m(CTorch.ones(Float32, 5, 4))).kind === :CT_ERROR_SHAPE
end

@testset "Sequential composes layers; parameters and state_dict name them as PyTorch" begin
    manual_seed(0)
    s = CTorch.Sequential(CTorch.Linear(8, 16), CTorch.relu, CTorch.Linear(16, 4))
    @test length(s) == 3 && s[2] === CTorch.relu
    x = CTorch.randn(Float32, 10, 8)
    @test size(s(x)) == (10, 4)
    @test Array(s(x)) == Array(s[3](CTorch.relu(s[1](x))))
    @test first.(CTorch.named_parameters(s)) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    ps = CTorch.parameters(s)
    @test length(ps) == 4 && ps[1] === s[1].weight && ps[4] === s[3].bias
    backward(CTorch.cross_entropy(s(x), Tensor(collect(0:9) .% 4)))
    @test all(p -> CTorch.grad(p) !== nothing && size(CTorch.grad(p)) == size(p), ps)

    m = TwoLayer(CTorch.Linear(2, 3), CTorch.Linear(3, 1), Tensor(Float32[2]))
    @test first.(CTorch.named_tensors(m)) == ["l1.weight", "l1.bias", "l2.weight", "l2.bias", "scale"]
    @test length(CTorch.parameters(m)) == 4               # the buffer does not require grad
    sd = CTorch.state_dict(m)
    @test sort(collect(keys(sd))) == ["l1.bias", "l1.weight", "l2.bias", "l2.weight", "scale"]
    @test !requires_grad(sd["l1.weight"]) && Array(sd["l1.weight"]) == Array(m.l1.weight)
    @test size(m(CTorch.ones(Float32, 5, 2))) == (5, 1)
    nested = CTorch.Sequential(CTorch.Sequential(CTorch.Linear(2, 2)), CTorch.relu)
    @test first.(CTorch.named_parameters(nested)) == ["0.0.weight", "0.0.bias"]
    @test CTorch.parameters([m.l1.weight, m.l1.bias]) == [m.l1.weight, m.l1.bias]
end

@testset "Losses: cross_entropy and mse_loss" begin
    logits = Float64[2 1 0; 0 0 3]
    target = [0, 2]                                       # class indices count from 0
    ref = -sum(logits[i, target[i]+1] - log(sum(exp.(logits[i, :]))) for i in 1:2)
    @test item(CTorch.cross_entropy(Tensor(logits), Tensor(target))) ≈ ref / 2
    @test item(CTorch.cross_entropy(Tensor(logits), Tensor(target); reduction = :sum)) ≈ ref
    @test size(CTorch.cross_entropy(Tensor(logits), Tensor(target); reduction = :none)) == (2,)
    @test item(CTorch.cross_entropy(Tensor(logits), Tensor([0, -100]))) ≈
          -(logits[1, 1] - log(sum(exp.(logits[1, :]))))  # ignore_index -100
    @test item(CTorch.mse_loss(Tensor([1.0, 2.0]), Tensor([0.0, 4.0]))) == 2.5
    @test item(CTorch.mse_loss(Tensor([1.0, 2.0]), Tensor([0.0, 4.0]); reduction = :sum)) == 5.0
    @test_throws ArgumentError CTorch.mse_loss(Tensor([1.0]), Tensor([0.0]); reduction = :avg)
    @test ctorch_error(() -> CTorch.cross_entropy(Tensor(logits), Tensor([0, 1, 2]))).kind === :CT_ERROR_SHAPE
end

@testset "Checkpoints round-trip tensors, sizes and metadata" begin
    dir = mktempdir()
    path = joinpath(dir, "a.safetensors")
    A = reshape(collect(Float32, 1:24), 2, 3, 4)
    B = rand(Bool, 3, 5)
    CTorch.save_checkpoint(path, Dict("a" => Tensor(A), "b" => B, "c" => Tensor([1, 2, 3]));
                           metadata = Dict("step" => "1000", "note" => "quote \" and \\ and \n"))
    ck = CTorch.Checkpoint(path)
    @test sort(keys(ck)) == ["a", "b", "c"] && length(ck) == 3
    @test haskey(ck, "a") && !haskey(ck, "z")
    @test size(ck["a"]) == (2, 3, 4) && eltype(ck["a"]) === Float32
    @test Array(ck["a"]) == A && Array(ck["b"]) == B && Array(ck["c"]) == [1, 2, 3]
    @test CTorch.is_contiguous(ck["a"])                   # row-major library tensors
    @test CTorch.metadata(ck) == Dict("step" => "1000", "note" => "quote \" and \\ and \n")
    @test CTorch.metadata(ck, "step") == "1000" && CTorch.metadata(ck, "none") === nothing
    @test get(ck, "z", 42) == 42
    @test_throws KeyError ck["z"]
    @test Dict(ck)["c"] isa Tensor
    t = ck["a"]
    close(ck)
    collect_garbage()
    @test Array(t) == A                                   # the tensor keeps the mapping alive
    @test ctorch_error(() -> ck["a"]).kind === :CT_ERROR_INVALID_ARGUMENT
    @test occursin("<closed>", sprint(show, ck))
    d = CTorch.load_checkpoint(path)
    @test d isa Dict{String,Tensor} && Array(d["a"]) == A
    @test CTorch.Checkpoint(CTorch.metadata, joinpath(dir, "a.safetensors"))["step"] == "1000"

    # In memory; no metadata; the file's data is row-major, so PyTorch reads the same sizes and elements.
    io = IOBuffer()
    CTorch.save_checkpoint(io, ["m" => Tensor([1 2 3; 4 5 6])])
    bytes = take!(io)
    n = Int(reinterpret(UInt64, bytes[1:8])[1])
    @test reinterpret(Int64, bytes[9+n:end]) == [1, 2, 3, 4, 5, 6]
    CTorch.Checkpoint(bytes) do c
        @test CTorch.metadata(c) === nothing
        @test Array(c["m"]) == [1 2 3; 4 5 6] && size(c["m"]) == (2, 3)
    end
end

@testset "Checkpoint errors: missing files, damaged bytes, bad names and metadata" begin
    dir = mktempdir()
    @test ctorch_error(() -> CTorch.Checkpoint(joinpath(dir, "missing.safetensors"))).kind === :CT_ERROR_IO
    e = ctorch_error(() -> CTorch.Checkpoint(UInt8[0x10, 0, 0, 0, 0, 0, 0, 0, 0x7b]))
    @test e.kind === :CT_ERROR_FORMAT
    io = IOBuffer()
    CTorch.save_checkpoint(io, Dict("x" => Tensor([1.0, 2.0])))
    good = take!(io)
    @test ctorch_error(() -> CTorch.Checkpoint(good[1:end-3])).kind === :CT_ERROR_FORMAT   # truncated data
    x = Tensor([1.0])
    p = joinpath(dir, "b.safetensors")
    @test ctorch_error(() -> CTorch.save_checkpoint(p, ["x" => x, "x" => x])).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.save_checkpoint(p, ["" => x])).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.save_checkpoint(p, ["__metadata__" => x])).kind === :CT_ERROR_INVALID_ARGUMENT
    @test_throws ArgumentError CTorch.save_checkpoint(p, ["a\0b" => x])
    @test_throws ArgumentError CTorch.save_checkpoint(p, ["x" => x]; metadata = Dict("step" => 1000))
    @test_throws ArgumentError CTorch.save_checkpoint(p, ["x" => "not a tensor"])
    @test_throws ArgumentError CTorch.save_checkpoint(p, x)
    @test !isfile(p)                                      # nothing was written by the failures
    @test ctorch_error(() -> CTorch.save_checkpoint(joinpath(dir, "no", "such", "dir.safetensors"), ["x" => x])).kind ===
          :CT_ERROR_IO
    y = Tensor([1.0])
    close(y)
    @test ctorch_error(() -> CTorch.save_checkpoint(p, ["y" => y])).kind === :CT_ERROR_INVALID_ARGUMENT
end

@testset "state_dict through a checkpoint restores a model" begin
    dir = mktempdir()
    manual_seed(1)
    a = CTorch.Sequential(CTorch.Linear(4, 5), CTorch.relu, CTorch.Linear(5, 2))
    b = CTorch.Sequential(CTorch.Linear(4, 5), CTorch.relu, CTorch.Linear(5, 2))
    x = CTorch.randn(Float32, 3, 4)
    @test Array(a(x)) != Array(b(x))
    path = joinpath(dir, "model.safetensors")
    CTorch.save_checkpoint(path, CTorch.state_dict(a); metadata = Dict("epoch" => "3"))
    CTorch.Checkpoint(path) do ck
        CTorch.load_state_dict!(b, ck)
    end
    @test Array(b(x)) == Array(a(x))
    @test requires_grad(b[1].weight) && CTorch.is_leaf(b[1].weight)
    c = CTorch.Sequential(CTorch.Linear(4, 6), CTorch.relu, CTorch.Linear(6, 2))
    e = try CTorch.load_state_dict!(c, CTorch.load_checkpoint(path)); nothing catch err; err end
    @test e isa ArgumentError && occursin("0.weight", e.msg)
    sd = CTorch.state_dict(a)
    delete!(sd, "2.bias")
    @test_throws ArgumentError CTorch.load_state_dict!(b, sd)
    sd2 = CTorch.state_dict(a)
    sd2["extra"] = Tensor([1.0])
    @test_throws ArgumentError CTorch.load_state_dict!(b, sd2)
    CTorch.load_state_dict!(b, sd2; strict = false)
end

@testset "The digits data loads with the checkpoint API" begin
    path = joinpath(@__DIR__, "..", "..", "..", "..", "examples", "data", "digits.safetensors")
    d = CTorch.load_checkpoint(path)
    @test size(d["pixels"]) == (1797, 64) && eltype(d["pixels"]) === UInt8
    @test size(d["labels"]) == (1797,) && eltype(d["labels"]) === Int64
    @test Set(Array(d["labels"])) == Set(0:9)
    @test maximum(Array(d["pixels"])) == 16
end
