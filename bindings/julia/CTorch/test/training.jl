# training.jl - optimizers, schedulers, clipping and initializers (included by runtests.jl, which
# defines ctorch_error). Expected values are torch.optim's formulas computed here in Float64.

"""A float64 parameter with the given values and grad."""
function param_with_grad(values, g)
    p = Tensor(Float64.(values); requires_grad = true)
    CTorch.set_grad!(p, Tensor(Float64.(g)))
    return p
end

@testset "Optimizers take PyTorch's defaults from the library" begin
    p = Tensor(zeros(2); requires_grad = true)
    @test CTorch.options(CTorch.SGD([p])) ==
          (lr = 1e-3, momentum = 0.0, dampening = 0.0, weight_decay = 0.0, nesterov = false, maximize = false)
    @test CTorch.options(CTorch.Adam([p])) ==
          (lr = 1e-3, betas = (0.9, 0.999), eps = 1e-8, weight_decay = 0.0, amsgrad = false, maximize = false)
    @test CTorch.options(CTorch.AdamW([p])).weight_decay == 1e-2
    @test CTorch.options(CTorch.RMSprop([p])) ==
          (lr = 1e-2, alpha = 0.99, eps = 1e-8, weight_decay = 0.0, momentum = 0.0, centered = false, maximize = false)
    o = CTorch.Adam([p]; lr = 0.5, betas = (0.8, 0.9), amsgrad = true)
    @test CTorch.options(o).betas == (0.8, 0.9)
    @test CTorch.options(o).amsgrad
    @test CTorch.lr(o) == 0.5
    @test CTorch.lr(CTorch.lr!(o, 0.25)) == 0.25
    CTorch.set_options!(o; weight_decay = 0.1, betas = (0.5, 0.6))
    @test CTorch.options(o).weight_decay == 0.1
    @test CTorch.options(o).betas == (0.5, 0.6)
    @test CTorch.lr(o) == 0.25
    @test occursin("CTorch.Adam(<1 parameters>; lr = 0.25", sprint(show, o))
    @test length(CTorch.parameters(o)) == 1
    @test Array(CTorch.parameters(o)[1]) == Array(p)
end

@testset "Optimizer misuse throws, never crashes" begin
    p = Tensor(zeros(2); requires_grad = true)
    @test_throws MethodError CTorch.SGD([p]; betas = (0.9, 0.99))       # not an SGD keyword
    @test_throws ArgumentError CTorch.set_options!(CTorch.SGD([p]); betas = (0.9, 0.99))
    @test_throws ArgumentError CTorch.Adam([p]; betas = 0.9)
    @test_throws ArgumentError CTorch.Adam([p]; amsgrad = 1)
    e = ctorch_error(() -> CTorch.SGD([p]; lr = -1))
    @test e.kind === :CT_ERROR_INVALID_ARGUMENT && occursin("lr", e.message)
    @test ctorch_error(() -> CTorch.SGD([p]; nesterov = true)).kind === :CT_ERROR_INVALID_ARGUMENT   # needs momentum
    @test ctorch_error(() -> CTorch.SGD(Tensor[])).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.SGD([p, p])).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.SGD([Tensor([1, 2])])).kind === :CT_ERROR_DTYPE
    o = CTorch.SGD([p])
    @test ctorch_error(() -> CTorch.lr!(o, NaN)).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.set_options!(o; momentum = -1)).kind === :CT_ERROR_INVALID_ARGUMENT
    @test CTorch.options(o).momentum == 0.0        # a failed set changes nothing
    close(o)
    close(o)                                       # idempotent
    @test !isopen(o)
    @test ctorch_error(() -> CTorch.step!(o)).kind === :CT_ERROR_INVALID_ARGUMENT
    @test sprint(show, o) == "CTorch.SGD(<closed>)"
end

@testset "SGD steps match hand-computed updates" begin
    g = [0.5, -1.0]
    p = param_with_grad([1.0, 2.0], g)
    CTorch.step!(CTorch.SGD([p]; lr = 0.1))
    @test Array(p) == [1.0 - 0.1 * 0.5, 2.0 - 0.1 * -1.0]

    # momentum 0.9, weight decay 0.01: g' = g + wd p; buf = g' then 0.9 buf + g'; p -= lr buf
    p = param_with_grad([1.0, 2.0], g)
    o = CTorch.SGD([p]; lr = 0.1, momentum = 0.9, weight_decay = 0.01)
    x, buf = [1.0, 2.0], zeros(2)
    for k in 1:3
        gd = g .+ 0.01 .* x
        buf = k == 1 ? gd : 0.9 .* buf .+ gd
        x = x .+ -0.1 .* buf
        CTorch.step!(o)
    end
    @test Array(p) ≈ x rtol=1e-15
    @test !requires_grad(CTorch.grad(p))           # the update recorded nothing

    # maximize ascends
    p = param_with_grad([1.0, 2.0], g)
    CTorch.step!(CTorch.SGD([p]; lr = 0.1, maximize = true))
    @test Array(p) == [1.0 + 0.1 * 0.5, 2.0 + 0.1 * -1.0]

    # a parameter without a grad is skipped
    q = Tensor([3.0]; requires_grad = true)
    CTorch.step!(CTorch.SGD([q]; lr = 0.1))
    @test Array(q) == [3.0]
end

@testset "Adam, AdamW and RMSprop steps match torch.optim's formulas" begin
    g = [0.5, -2.0, 1e-3]
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    function adam_ref(x, steps; wd = 0.0, decoupled = false)
        m, v = zeros(3), zeros(3)
        for t in 1:steps
            decoupled && (x = x .* (1 - lr * wd))
            gd = decoupled ? g : g .+ wd .* x
            m = b1 .* m .+ (1 - b1) .* gd
            v = b2 .* v .+ (1 - b2) .* gd .* gd
            x = x .+ -lr / (1 - b1^t) .* m ./ (sqrt.(v) ./ sqrt(1 - b2^t) .+ eps)
        end
        return x
    end
    x0 = [1.0, -1.0, 0.5]
    p = param_with_grad(x0, g)
    o = CTorch.Adam([p]; lr = lr)
    foreach(_ -> CTorch.step!(o), 1:3)
    @test Array(p) ≈ adam_ref(x0, 3) rtol=1e-14
    p = param_with_grad(x0, g)
    o = CTorch.Adam([p]; lr = lr, weight_decay = 0.1)
    foreach(_ -> CTorch.step!(o), 1:2)
    @test Array(p) ≈ adam_ref(x0, 2; wd = 0.1) rtol=1e-14
    p = param_with_grad(x0, g)
    o = CTorch.AdamW([p]; lr = lr)                   # weight_decay 1e-2 by default
    foreach(_ -> CTorch.step!(o), 1:2)
    @test Array(p) ≈ adam_ref(x0, 2; wd = 1e-2, decoupled = true) rtol=1e-14

    # RMSprop: s = alpha s + (1 - alpha) g^2; p -= lr g / (sqrt(s) + eps)
    p = param_with_grad(x0, g)
    o = CTorch.RMSprop([p]; lr = lr)
    x, s = copy(x0), zeros(3)
    for _ in 1:2
        s = 0.99 .* s .+ (1 - 0.99) .* g .* g
        x = x .+ -lr .* g ./ (sqrt.(s) .+ 1e-8)
        CTorch.step!(o)
    end
    @test Array(p) ≈ x rtol=1e-14
end

@testset "A complex parameter steps as its real and imaginary parts" begin
    # As torch 2.x: Adam's first step moves each part by lr against its own gradient's sign.
    p = Tensor(ComplexF64[1 - 3im, 0.5 + 2im]; requires_grad = true)
    CTorch.set_grad!(p, Tensor(ComplexF64[2 - 6im, 1 + 4im]))
    o = CTorch.Adam([p]; lr = 0.1)
    CTorch.step!(o)
    @test Array(p) ≈ ComplexF64[0.9 - 2.9im, 0.4 + 1.9im] atol=1e-7
    @test ctorch_error(() -> CTorch.LBFGS([p])).kind === :CT_ERROR_DTYPE
end

@testset "Adagrad, Adamax, NAdam, RAdam and Adadelta step as torch.optim's formulas" begin
    g, x0 = [0.5, -2.0, 1e-3], [1.0, -1.0, 0.5]
    p = param_with_grad(x0, g)
    o = CTorch.Adagrad([p]; lr = 0.1, initial_accumulator_value = 0.5, lr_decay = 0.1)
    @test CTorch.options(o) == (lr = 0.1, lr_decay = 0.1, weight_decay = 0.0, initial_accumulator_value = 0.5,
                                eps = 1e-10, maximize = false)
    x, s = copy(x0), fill(0.5, 3)
    for t in 1:2
        s = s .+ g .* g
        x = x .+ g .* -(0.1 / (1 + (t - 1) * 0.1)) ./ (sqrt.(s) .+ 1e-10)
        CTorch.step!(o)
    end
    @test Array(p) ≈ x rtol=1e-14
    # Adadelta's first step: delta = sqrt(eps) / sqrt((1 - rho) g^2 + eps) g.
    p = param_with_grad(x0, g)
    CTorch.step!(CTorch.Adadelta([p]))
    @test Array(p) ≈ x0 .- sqrt(1e-6) ./ sqrt.(0.1 .* g .* g .+ 1e-6) .* g rtol=1e-14
    for make in (ps -> CTorch.Adamax(ps), ps -> CTorch.NAdam(ps; decoupled_weight_decay = true, weight_decay = 0.1),
                 ps -> CTorch.RAdam(ps; betas = (0.5, 0.5)))
        p = param_with_grad(x0, g)
        o = make([p])
        CTorch.step!(o)
        @test Array(p) != x0
        bytes = CTorch.save_state(o)
        @test length(bytes) > 8
    end
    @test CTorch.options(CTorch.NAdam([p])).momentum_decay == 4e-3
    @test ctorch_error(() -> CTorch.Adadelta([p]; rho = 1.5)).kind === :CT_ERROR_INVALID_ARGUMENT
    @test_throws ArgumentError CTorch.NAdam([p]; decoupled_weight_decay = 1)
end

@testset "ASGD averages, Rprop adapts its steps, their state reads by torch's names" begin
    g, x0 = [0.5, -2.0], [1.0, -1.0]
    p = param_with_grad(x0, g)
    o = CTorch.ASGD([p]; lr = 0.1, t0 = 0)
    @test CTorch.optimizer_state_names(o) == ["step", "eta", "mu", "ax"]
    @test CTorch.optimizer_state(o, 1, "ax") === nothing
    x, eta = copy(x0), Float64(Float32(0.1))
    for t in 1:2  # mu is 1 for the first two steps (set after each, 1 / max(1, t - t0)): ax copies p
        x = x .* (1 - 1e-4 * eta) .+ g .* -eta
        eta = Float64(Float32(0.1 / (1 + 1e-4 * 0.1 * t)^0.75))
        CTorch.step!(o)
    end
    @test Array(p) == x
    @test Array(CTorch.optimizer_state(o, 1, "ax")) == x
    @test CTorch.item(CTorch.optimizer_state(o, 1, "step")) == 2
    @test ctorch_error(() -> CTorch.optimizer_state(o, 1, "exp_avg")).kind === :CT_ERROR_INVALID_ARGUMENT
    # Rprop: the grad keeps its sign, so the second step is 1.2 times the first (lr).
    p = param_with_grad(x0, g)
    o = CTorch.Rprop([p]; lr = 0.1, etas = (0.4, 1.2))
    CTorch.step!(o)
    CTorch.step!(o)
    @test Array(p) ≈ x0 .- sign.(g) .* (0.1 + 0.12) rtol=1e-15
    @test CTorch.options(o) == (lr = 0.1, etas = (0.4, 1.2), step_sizes = (1e-6, 50.0), maximize = false)
    @test ctorch_error(() -> CTorch.Rprop([p]; etas = (0.5, 0.9))).kind === :CT_ERROR_INVALID_ARGUMENT
end

@testset "LBFGS minimizes through a closure; a throwing closure changes nothing" begin
    x = Tensor([3.0, -1.0, 0.5]; requires_grad = true)
    c = Tensor([1.0, 2.0, -3.0])
    o = CTorch.LBFGS([x]; line_search_fn = :strong_wolfe)
    @test CTorch.options(o).line_search_fn === :strong_wolfe && CTorch.options(o).max_iter == 20
    @test ctorch_error(() -> CTorch.step!(o)).kind === :CT_ERROR_INVALID_ARGUMENT
    calls = 0
    first = CTorch.step!(o) do
        calls += 1
        CTorch.zero_grad!(o)
        d = x - c
        loss = CTorch.ops.sum(d * d)
        backward(loss)
        loss
    end
    @test first == 4.0 + 9.0 + 12.25
    @test calls > 1
    @test Array(x) ≈ [1.0, 2.0, -3.0] atol=1e-6
    before = Array(x)
    e = ctorch_error(() -> CTorch.step!(() -> error("no loss today"), o))
    @test occursin("no loss today", e.message)
    @test Array(x) == before
    @test_throws ArgumentError CTorch.LBFGS([x]; line_search_fn = :armijo)
end

@testset "zero_grad! clears or zeroes the gradients" begin
    p = param_with_grad([1.0, 2.0], [3.0, 4.0])
    o = CTorch.SGD([p])
    CTorch.zero_grad!(o; set_to_none = false)
    @test Array(CTorch.grad(p)) == [0.0, 0.0]
    CTorch.zero_grad!(o)
    @test CTorch.grad(p) === nothing
    m = CTorch.Linear(2, 1)
    backward(CTorch.ops.sum(m(Tensor(ones(Float32, 1, 2)))))
    @test CTorch.grad(m.weight) !== nothing
    CTorch.zero_grad!(m)
    @test CTorch.grad(m.weight) === nothing && CTorch.grad(m.bias) === nothing
end

@testset "Optimizer state round-trips as bytes and continues with the same bits" begin
    g = [0.25, -0.75]
    p = param_with_grad([1.0, 2.0], g)
    o = CTorch.Adam([p]; lr = 0.1)
    CTorch.step!(o)
    CTorch.step!(o)
    bytes = CTorch.save_state(o)
    @test bytes[1:8] == UInt8['C', 'T', 'O', 'P', 'T', 'I', 'M', '\0']
    q = param_with_grad(Array(p), g)
    o2 = CTorch.Adam([q]; lr = 0.5)
    CTorch.load_state!(o2, bytes)
    @test CTorch.lr(o2) == 0.1                        # the options come with the state
    @test CTorch.save_state(o2) == bytes
    CTorch.step!(o)
    CTorch.step!(o2)
    @test Array(q) == Array(p)

    @test ctorch_error(() -> CTorch.load_state!(o2, bytes[1:end-1])).kind === :CT_ERROR_FORMAT
    @test ctorch_error(() -> CTorch.load_state!(o2, UInt8[1, 2, 3])).kind === :CT_ERROR_FORMAT
    r = param_with_grad([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])
    @test ctorch_error(() -> CTorch.load_state!(CTorch.Adam([r]), bytes)).kind === :CT_ERROR_INVALID_ARGUMENT  # sizes
    @test ctorch_error(() -> CTorch.load_state!(CTorch.SGD([q]), bytes)).kind === :CT_ERROR_INVALID_ARGUMENT   # kind
    @test CTorch.save_state(o2) != bytes              # o2 took a step since; a failed load left it alone
end

@testset "Schedulers follow torch's sequences" begin
    p = Tensor(zeros(1); requires_grad = true)
    o = CTorch.SGD([p]; lr = 1.0)
    s = CTorch.StepLR(o, 2; gamma = 0.1)
    @test CTorch.last_epoch(s) == 0 && CTorch.last_lr(s) == 1.0
    lrs = Float64[]
    for _ in 1:5
        CTorch.step!(o)
        CTorch.step!(s)
        push!(lrs, CTorch.last_lr(s))
    end
    @test lrs ≈ [1.0, 0.1, 0.1, 0.01, 0.01]
    @test CTorch.lr(o) == lrs[end]
    @test CTorch.last_epoch(s) == 5

    o = CTorch.SGD([p]; lr = 1.0)
    s = CTorch.CosineAnnealingLR(o, 4; eta_min = 0.1)
    lrs = [(CTorch.step!(s); CTorch.last_lr(s)) for _ in 1:4]
    @test lrs ≈ [0.1 + 0.9 * (1 + cos(pi * e / 4)) / 2 for e in 1:4] rtol=1e-12

    o = CTorch.SGD([p]; lr = 0.3)
    s = CTorch.LinearLR(o)                            # start_factor 1/3 over 5 steps
    @test CTorch.last_lr(s) ≈ 0.1
    lrs = [(CTorch.step!(s); CTorch.last_lr(s)) for _ in 1:6]
    @test lrs ≈ [0.3 * (1 / 3 + 2 / 3 * e / 5) for e in [1, 2, 3, 4, 5, 5]] rtol=1e-12
    @test occursin("LinearLR(last_epoch = 6", sprint(show, s))

    run(s, n) = [CTorch.last_lr(s); [(CTorch.step!(s); CTorch.last_lr(s)) for _ in 1:n]]
    @test run(CTorch.MultiStepLR(CTorch.SGD([p]; lr = 1.0), [2, 4, 4]; gamma = 0.5), 5) == [1, 1, 0.5, 0.5, 0.125, 0.125]
    @test run(CTorch.ExponentialLR(CTorch.SGD([p]; lr = 1.0), 0.5), 2) == [1, 0.5, 0.25]
    @test run(CTorch.ConstantLR(CTorch.SGD([p]; lr = 1.0); factor = 0.5, total_iters = 2), 3) == [0.5, 0.5, 1, 1]
    @test run(CTorch.PolynomialLR(CTorch.SGD([p]; lr = 1.0); total_iters = 2), 3) == [1, 0.5, 0, 0]
    restarts = run(CTorch.CosineAnnealingWarmRestarts(CTorch.SGD([p]; lr = 1.0), 2), 4)
    @test restarts[[1, 3, 5]] == [1, 1, 1] && restarts[2] ≈ 0.5
    @test ctorch_error(() -> CTorch.ConstantLR(o; factor = 0)).kind === :CT_ERROR_INVALID_ARGUMENT
    warm = CTorch.LinearLR(CTorch.SGD([p]; lr = 1.0); start_factor = 0.5, total_iters = 2)
    CTorch.step!(warm)
    @test CTorch.last_lr(warm) == 0.75
    CTorch.restart!(warm)                             # step(0) from the base lr
    @test CTorch.last_lr(warm) == 0.5 && CTorch.last_epoch(warm) == 0
    @test ctorch_error(() -> CTorch.StepLR(o, 0)).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.LinearLR(o; start_factor = 0)).kind === :CT_ERROR_INVALID_ARGUMENT
    @test_throws ArgumentError CTorch.LinearLR(o; total_iters = 2.5)
    close(s)
    @test ctorch_error(() -> CTorch.step!(s)).kind === :CT_ERROR_INVALID_ARGUMENT
end

@testset "Gradient clipping scales by the total norm or clamps values" begin
    a = param_with_grad([0.0, 0.0], [3.0, 0.0])
    b = param_with_grad([0.0], [4.0])
    c = Tensor([0.0]; requires_grad = true)           # no grad: skipped
    @test CTorch.clip_grad_norm!([a, b, c], 1.0) == 5.0
    scale = 1.0 / (5.0 + 1e-6)
    @test Array(CTorch.grad(a)) == [3.0 * scale, 0.0]
    @test Array(CTorch.grad(b)) == [4.0 * scale]
    @test CTorch.clip_grad_norm!([a, b], 10.0) ≈ 1.0 atol=1e-6   # within the bound: unchanged
    @test Array(CTorch.grad(b)) == [4.0 * scale]
    d = param_with_grad([0.0, 0.0], [-7.0, 2.0])
    @test CTorch.clip_grad_norm!(d, 1.0; norm_type = Inf) == 7.0
    e = param_with_grad([0.0, 0.0, 0.0], [-7.0, 0.5, 2.0])
    CTorch.clip_grad_value!([e], 1.0)
    @test Array(CTorch.grad(e)) == [-1.0, 0.5, 1.0]
    @test ctorch_error(() -> CTorch.clip_grad_norm!([a], -1.0)).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.clip_grad_value!([a], NaN)).kind === :CT_ERROR_INVALID_ARGUMENT
end

@testset "Initializers reproduce with a seed and respect their bounds" begin
    draw(f) = (manual_seed(7); t = CTorch.empty(Float32, 16, 64); f(t); Array(t))
    for f in (t -> CTorch.init.kaiming_uniform!(t), t -> CTorch.init.kaiming_normal!(t; mode = "fan_out"),
              t -> CTorch.init.xavier_uniform!(t; gain = 2), t -> CTorch.init.xavier_normal!(t),
              t -> CTorch.init.uniform!(t, -2, -1), t -> CTorch.init.normal!(t, 3, 0.5))
        @test draw(f) == draw(f)
    end
    @test draw(t -> CTorch.init.uniform!(t)) != (manual_seed(8); Array(CTorch.init.uniform!(CTorch.empty(Float32, 16, 64))))
    g1, g2 = CTorch.Generator(), CTorch.Generator()
    manual_seed(g1, 3)
    manual_seed(g2, 3)
    @test Array(CTorch.init.normal!(CTorch.empty(4, 4); gen = g1)) == Array(CTorch.init.normal!(CTorch.empty(4, 4); gen = g2))
    @test all(x -> -2 <= x <= -1, draw(t -> CTorch.init.uniform!(t, -2, -1)))
    @test maximum(abs, draw(t -> CTorch.init.kaiming_uniform!(t; a = sqrt(5)))) <= 1 / 8   # 1/sqrt(fan_in 64)
    @test maximum(abs, draw(t -> CTorch.init.kaiming_uniform!(t; nonlinearity = "relu"))) <= sqrt(3) * sqrt(2) / 8
    @test CTorch.init.calculate_gain("relu") == sqrt(2)
    @test CTorch.init.calculate_gain("tanh") ≈ 5 / 3
    @test CTorch.init.calculate_gain("leaky_relu") ≈ sqrt(2 / (1 + 0.01^2))
    @test CTorch.init.calculate_gain("leaky_relu", 0.2) ≈ sqrt(2 / (1 + 0.2^2))
    @test CTorch.init.calculate_fan_in_and_fan_out(CTorch.empty(3, 4, 5)) == (20, 15)
    @test ctorch_error(() -> CTorch.init.calculate_gain("swish")).kind === :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.init.xavier_uniform!(CTorch.empty(5))).kind === :CT_ERROR_SHAPE
    q = Array(CTorch.init.orthogonal!(CTorch.empty(Float64, 6, 4); gain = 1.5))
    @test q' * q ≈ 2.25 * [i == j for i in 1:4, j in 1:4] atol=1e-12
    @test all(x -> abs(x) <= 0.5, Array(CTorch.init.trunc_normal!(CTorch.empty(Float32, 1000); a = -0.5, b = 0.5)))
    s = Array(CTorch.init.sparse!(CTorch.empty(Float32, 10, 3), 0.3))
    @test all(c -> count(==(0), s[:, c]) == 3, 1:3)
    @test Array(CTorch.init.eye!(CTorch.empty(Float32, 2, 3))) == [1 0 0; 0 1 0]
    d = Array(CTorch.init.dirac!(CTorch.empty(Float32, 2, 2, 3)))
    @test d[1, 1, 2] == 1 && d[2, 2, 2] == 1 && sum(d) == 2
    @test ctorch_error(() -> CTorch.init.dirac!(CTorch.empty(Float32, 2, 2, 3); groups = 3)).kind ===
          :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.init.orthogonal!(CTorch.empty(Float32, 5))).kind === :CT_ERROR_SHAPE
    @test ctorch_error(() -> CTorch.init.uniform!(CTorch.zeros(Int64, 3))).kind === :CT_ERROR_DTYPE
    @test ctorch_error(() -> CTorch.init.kaiming_uniform!(CTorch.empty(3, 3); mode = "fan_sideways")).kind ===
          :CT_ERROR_INVALID_ARGUMENT
    @test ctorch_error(() -> CTorch.init.uniform!(CTorch.empty(3), 1, 0)).kind === :CT_ERROR_INVALID_ARGUMENT
    w = Tensor(zeros(Float32, 2, 3); requires_grad = true)        # a parameter can be initialized
    CTorch.init.uniform!(w)
    @test requires_grad(w) && CTorch.is_leaf(w) && any(!iszero, Array(w))
end
