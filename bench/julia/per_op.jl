# per_op.jl - the cost of one `a + b` on 1-element float32 tensors: the C ABI called directly with
# ccall (ct_tensor_add + ct_tensor_release through dlsym'd pointers, no binding code) against
# CTorch.jl's idiomatic `a + b`, in one run, rounds interleaved.
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch bench/julia/per_op.jl
#
# scripts/bench.sh runs it. The last figure is a generated operator method of CTorch.ops, which
# boxes its arguments for the overload they match and calls it through the boxed C entry point
# (ct_op_call_op, with the handle ct_op_find gave for the overload); the figure before it is that
# entry point called directly.
# PER_OP_N sets the operations per round (default 1,000,000).
# The idiomatic figures count what releasing costs:
#   - "finalizer": the result is dropped; the garbage collector finalizes it (Note [Tensor finalizers]
#     in src/tensor.jl). Each timed round ends with a young collection, after which every handle of
#     the round has been released (checked by the library's tensors.live), so the GC work for these
#     objects is inside the clock. A full collection is not: it costs a fixed ~50 ms on this heap,
#     whatever the round did, and would measure the round length rather than the operator.
#   - "close": close(a + b) releases at once.
#   - "scope": CTorch.scope() around each 1,000 operations releases them at the block's end.
# Prints ns per operation (best of ROUNDS rounds of N) and the ratio to C.

using CTorch
using Libdl

const N = parse(Int, get(ENV, "PER_OP_N", "1000000"))
const ROUNDS = 5

const LIB = Libdl.dlopen(CTorch.library_path())
const ADD = Libdl.dlsym(LIB, :ct_tensor_add)
const RELEASE = Libdl.dlsym(LIB, :ct_tensor_release)

function c_loop(a::Ptr{Cvoid}, b::Ptr{Cvoid}, n)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    for _ in 1:n
        st = ccall(ADD, Cint, (Ptr{Cvoid}, Ptr{Cvoid}, Ptr{Ptr{Cvoid}}), a, b, out)
        st == 0 || error("ct_tensor_add failed")
        ccall(RELEASE, Cvoid, (Ptr{Cvoid},), out[])
    end
end

const OP_FIND = Libdl.dlsym(LIB, :ct_op_find)
const OP_CALL_OP = Libdl.dlsym(LIB, :ct_op_call_op)
const L = CTorch.LibCTorch

# The boxed C entry point a generated method ends in, called directly with the overload's handle:
# the floor of that method.
function c_boxed_loop(a::Ptr{Cvoid}, b::Ptr{Cvoid}, n)
    vals = [L.ct_value(L.CT_VALUE_TENSOR, 0, 0.0, a, C_NULL, C_NULL, 0, C_NULL),
            L.ct_value(L.CT_VALUE_TENSOR, 0, 0.0, b, C_NULL, C_NULL, 0, C_NULL),
            L.ct_value(L.CT_VALUE_NONE, 0, 0.0, C_NULL, C_NULL, C_NULL, 0, C_NULL)]
    op = Ref{Ptr{Cvoid}}(C_NULL)
    ccall(OP_FIND, Cint, (Cstring, Ptr{Ptr{Cvoid}}), "add.Tensor", op) == 0 || error("ct_op_find failed")
    out = Ref{Ptr{Cvoid}}(C_NULL)
    for _ in 1:n
        st = ccall(OP_CALL_OP, Cint, (Ptr{Cvoid}, Ptr{L.ct_value}, Csize_t, Ptr{Ptr{Cvoid}}, Csize_t), op[], vals, 3, out, 1)
        st == 0 || error("ct_op_call_op failed")
        ccall(RELEASE, Cvoid, (Ptr{Cvoid},), out[])
    end
end

function finalizer_loop(a::Tensor, b::Tensor, n)
    for _ in 1:n
        a + b
    end
    GC.gc(false)
end

function close_loop(a::Tensor, b::Tensor, n)
    for _ in 1:n
        close(a + b)
    end
end

function generated_loop(a::Tensor, b::Tensor, n)
    for _ in 1:n
        close(CTorch.ops.add(a, b))
    end
end

function scope_loop(a::Tensor, b::Tensor, n)
    for _ in 1:div(n, 1000)
        CTorch.scope() do
            for _ in 1:1000
                a + b
            end
        end
    end
end

a = Tensor(Float32[1])
b = Tensor(Float32[2])
pa, pb = Ptr{Cvoid}(a.ptr), Ptr{Cvoid}(b.ptr)
variants = [("C ABI via ccall (ct_tensor_add + ct_tensor_release)", n -> c_loop(pa, pb, n)),
            ("Julia a + b, released by the finalizer, GC counted", n -> finalizer_loop(a, b, n)),
            ("Julia close(a + b)", n -> close_loop(a, b, n)),
            ("Julia a + b in CTorch.scope blocks of 1,000", n -> scope_loop(a, b, n)),
            ("C ABI ct_op_call_op(add.Tensor) (boxed, by handle)", n -> c_boxed_loop(pa, pb, n)),
            ("Julia close(ops.add(a, b)) (generated, boxed call)", n -> generated_loop(a, b, n))]
best = fill(Inf, length(variants))
live0 = CTorch.metric("tensors.live")
for (_, f) in variants
    f(10_000)
end
GC.gc()
pending = 0
for round in 1:ROUNDS
    for (k, (_, f)) in enumerate(variants)
        t0 = time_ns()
        f(N)
        t = (time_ns() - t0) / N
        global pending = max(pending, CTorch.metric("tensors.live") - live0)
        best[k] = min(best[k], t)
    end
    GC.gc()
end
CTorch.metric("tensors.live") == live0 || error("per_op: tensors leaked")

println("CTorch.jl per-op cost of a + b on 1-element float32 tensors (Julia $(VERSION), $N ops, best of $ROUNDS)")
for (k, (name, _)) in enumerate(variants)
    println(rpad("  " * name, 60), lpad(string(round(best[k]; digits = 1)), 8), " ns",
            k == 1 ? "" : "  " * string(round(best[k] / best[1]; digits = 2)) * "x C")
end
println("  handles still unreleased when a timed round ended: ", pending)
