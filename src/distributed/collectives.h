// collectives.h - torch.distributed's collectives on tensors, over any engine: checks, lists
// flattened into one buffer, AVG, dtypes an engine cannot reduce, and the deterministic order.
#pragma once

#include <memory>
#include <vector>

#include "core/tensor.h"
#include "distributed/process_group.h"

namespace ct::dist {

enum class ReduceOp : int { Sum = 0, Product = 1, Min = 2, Max = 3, Avg = 4 };

/// Each function checks its arguments on the calling thread (raising ct::Error naming fn), then runs
/// through pg.run: with async it returns the Work, else nullptr after the operation is done.
using WorkPtr = std::shared_ptr<Work>;

WorkPtr all_reduce(ProcessGroup& pg, const Tensor& t, ReduceOp op, bool async);
WorkPtr broadcast(ProcessGroup& pg, const Tensor& t, int src, bool async);
WorkPtr reduce(ProcessGroup& pg, const Tensor& t, int dst, ReduceOp op, bool async);
WorkPtr all_gather(ProcessGroup& pg, const std::vector<Tensor>& outputs, const Tensor& input, bool async);
WorkPtr all_gather_into_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input, bool async);
WorkPtr reduce_scatter(ProcessGroup& pg, const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                       bool async);
WorkPtr reduce_scatter_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input, ReduceOp op, bool async);
WorkPtr gather(ProcessGroup& pg, const Tensor& input, const std::vector<Tensor>& outputs, int dst, bool async);
WorkPtr scatter(ProcessGroup& pg, const Tensor& output, const std::vector<Tensor>& inputs, int src, bool async);
WorkPtr all_to_all(ProcessGroup& pg, const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, bool async);
WorkPtr all_to_all_single(ProcessGroup& pg, const Tensor& output, const Tensor& input, bool async);
WorkPtr send(ProcessGroup& pg, const Tensor& t, int dst, int tag, bool async);
WorkPtr recv(ProcessGroup& pg, const Tensor& t, int src, int tag, bool async);
WorkPtr barrier(ProcessGroup& pg, bool async);

}  // namespace ct::dist
