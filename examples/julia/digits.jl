# digits.jl - a multilayer perceptron on the handwritten digits, following examples/digits.md call
# for call, so its epoch lines are bitwise those of every other language's digits example.
#
#   CTORCH_LIBRARY=build/src/libctorch.so julia --project=bindings/julia/CTorch examples/julia/digits.jl [data]
#
# data defaults to examples/data/digits.safetensors beside this file.

using CTorch
using Printf
const ops = CTorch.ops

const N, N_TRAIN, BATCH, EPOCHS = 1797, 1437, 64, 30

function main(path)
    manual_seed(0)                                                  # 1

    data = CTorch.load_checkpoint(path)                             # 2
    pixels, labels = data["pixels"], data["labels"]                 # uint8 1797×64, int64 1797 (a row a sample)
    X = CTorch.to(pixels, Float32) / 16

    perm = CTorch.randperm(N)                                       # 3
    train = ops.narrow(perm, 0, 0, N_TRAIN)
    test = ops.narrow(perm, 0, N_TRAIN, N - N_TRAIN)

    model = CTorch.Sequential(CTorch.Linear(64, 64), CTorch.relu, CTorch.Linear(64, 10))   # 4
    opt = CTorch.Adam(CTorch.parameters(model); lr = 0.01)          # 5: [W1, b1, W2, b2]

    for epoch in 1:EPOCHS                                           # 6
        order = CTorch.randperm(N_TRAIN)
        total = 0.0
        for start in 0:BATCH:N_TRAIN-1
            n = min(BATCH, N_TRAIN - start)
            total += CTorch.scope() do                              # releases the batch's tensors at once
                idx = ops.index_select(train, 0, ops.narrow(order, 0, start, n))
                xb = ops.index_select(X, 0, idx)
                yb = ops.index_select(labels, 0, idx)
                loss = CTorch.cross_entropy(model(xb), yb)
                CTorch.zero_grad!(opt)
                backward(loss)
                CTorch.step!(opt)
                Float64(item(loss)) * n
            end
        end
        loss = total / N_TRAIN
        @printf("epoch %2d  loss %.9f  bits %016x\n", epoch, loss, reinterpret(UInt64, loss))   # 7
    end

    correct = no_grad() do                                          # 8
        pred = ops.argmax(model(ops.index_select(X, 0, test)), 1)
        item(ops.sum(ops.eq(pred, ops.index_select(labels, 0, test))))
    end
    n_test = N - N_TRAIN
    @printf("held-out accuracy %.2f%% (%d/%d)\n", 100 * correct / n_test, correct, n_test)
end

main(length(ARGS) >= 1 ? ARGS[1] : joinpath(@__DIR__, "..", "data", "digits.safetensors"))
