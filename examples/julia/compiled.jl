# compiled.jl - compile a Julia function: traced once, fused, reused while the guards hold.
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch examples/julia/compiled.jl

using CTorch
const ops = CTorch.ops

gelu_ish(x, y) = x .* ops.sigmoid(1.702 .* x) .+ y
f = CTorch.compile(gelu_ish; name = "gelu_ish")

a = CTorch.randn(Float32, 4, 1024)
b = CTorch.randn(Float32, 4, 1024)
r = f(a, b)                          # traces, fuses, runs
@assert isapprox(r, gelu_ish(a, b))
f(b, a)                              # same sizes and dtypes: the cached graph
f(CTorch.randn(Float32, 8, 1024), b[1:1, :])   # a new size: one recompile, now dynamic

println("graph of the first entry:\n", CTorch.graphs(f)[1])
m = CTorch.compile_metrics(f)
println("calls = ", m["calls"], ", compiles = ", m["compiles"], ", recompiles = ", m["recompiles"])

# An exception inside the compiled function reaches the caller as a CTorchError.
bad = CTorch.compile(x -> throw(DomainError(-1, "negative input")))
try
    bad(a)
catch e
    println("error: ", sprint(showerror, e))
end
