# arithmetic.jl - tensors from Julia arrays, Base operators, broadcasting, and back.
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch examples/julia/arithmetic.jl

using CTorch

A = Float32[1 2 3; 4 5 6]              # 2×3, column-major
a = Tensor(A)                           # same size, same elements: a[i, j] == A[i, j]
println("a = ", a)                      # printed as PyTorch prints, rows = first dim
println("size(a) = ", size(a), ", eltype(a) = ", eltype(a))

b = Tensor(Float32[1 0; 0 1; 1 1])      # 3×2
c = a * b                               # matrix product, as for Julia matrices
println("a * b = ", c)
@assert Array(c) == A * Float32[1 0; 0 1; 1 1]

d = exp.(a ./ 6) .+ 2 .* a              # broadcasting: one library operator per call
println("exp.(a ./ 6) .+ 2 .* a = ", d)
@assert Array(d) ≈ exp.(A ./ 6) .+ 2 .* A

row = Tensor(Float32[10 20 30])         # 1×3 broadcasts over rows, as in Julia
println("a .+ row = ", a .+ row)
println("sum over dims 2: ", sum(a; dims = 2))
println("a[2, 2:3] = ", a[2, 2:3])

x = CTorch.ops.softmax(a, 1)            # any built-in operator; dims 0-based as in the library
println("softmax over the last dim: ", x)

try
    a + Tensor(Float32[1 2; 3 4])       # shapes do not broadcast
catch e
    println("error: ", sprint(showerror, e))
end

CTorch.scope() do                        # release temporaries now, not at garbage collection
    t = a .* a
    println("inside a scope: ", sum(t)[])
end
println("back to Julia: ", Array(d))
