# autograd.jl - gradients of a small least-squares fit, a custom function, no_grad updates.
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch examples/julia/autograd.jl

using CTorch
const ops = CTorch.ops

manual_seed(0)
X = CTorch.randn(Float64, 64, 3)
w_true = Tensor([2.0, -1.0, 0.5])
y = X * w_true .+ 0.01 .* CTorch.randn(Float64, 64)

w = Tensor(zeros(3); requires_grad = true)
for step in 1:200
    CTorch.scope() do
        loss = ops.mean((X * w .- y) .^ 2)
        backward(loss)
        no_grad() do                       # update without recording
            w .-= 0.1 .* grad(w)
        end
        CTorch.set_grad!(w, nothing)
        step % 50 == 0 && println("step $step: loss = ", item(loss))
    end
end
println("fitted w = ", w)
@assert isapprox(Array(w), [2.0, -1.0, 0.5]; atol = 0.01)

# A custom function: forward and backward are Julia closures.
cube = CTorch.CustomFunction("Cube";
    forward = (ctx, x) -> (CTorch.save_for_backward(ctx, x); x .^ 3),
    backward = (ctx, g) -> (saved = CTorch.saved_tensors(ctx)[1]; 3 .* saved .^ 2 .* g))
x = Tensor([1.0, 2.0]; requires_grad = true)
backward(ops.sum(cube(x)))
println("d/dx sum(x^3) = ", grad(x), " (", CTorch.grad_fn_name(cube(x)), ")")
@assert Array(grad(x)) == [3.0, 12.0]

# Second derivatives with autograd_grad.
g, = CTorch.autograd_grad(ops.sum(x .^ 3), [x]; create_graph = true)
h, = CTorch.autograd_grad(ops.sum(g), [x])
println("d2/dx2 sum(x^3) = ", h)
