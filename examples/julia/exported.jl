# exported.jl - export a function with a dynamic batch dim, save it, load it, run it.
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch examples/julia/exported.jl

using CTorch
const ops = CTorch.ops

manual_seed(1)
W = CTorch.randn(Float32, 16, 4)
bias = CTorch.randn(Float32, 1, 4)            # a row, added to each row of the batch as in Julia
model(x) = ops.relu(x * W .+ bias)           # W and bias become the program's constants

prog = CTorch.export_program(model, CTorch.randn(Float32, 8, 16);
                             dynamic_shapes = [(1, 1) => CTorch.Dim("batch"; min = 1, max = 4096)])
println("signature: ", CTorch.signature(prog)["inputs"])
println(CTorch.graph(prog))

path = joinpath(mktempdir(), "model.ctp")
CTorch.save(prog, path)
loaded = CTorch.load_program(path)           # runs without `model`
x = CTorch.randn(Float32, 3, 16)
y = loaded(x)
println("output for a batch of 3: ", size(y))
@assert isapprox(y, model(x))

try
    loaded(CTorch.randn(Float32, 3, 15))     # a static size differs
catch e
    println("error: ", sprint(showerror, e))
end
