package org.ctorch.distributed;

import org.ctorch.jni.CTorchNativeConstants;

/** How a reduction combines the ranks' values (torch.distributed.ReduceOp). */
public enum ReduceOp {
  /** The sum. */
  SUM(CTorchNativeConstants.CT_REDUCE_SUM),
  /** The product. */
  PRODUCT(CTorchNativeConstants.CT_REDUCE_PRODUCT),
  /** The minimum. */
  MIN(CTorchNativeConstants.CT_REDUCE_MIN),
  /** The maximum. */
  MAX(CTorchNativeConstants.CT_REDUCE_MAX),
  /** The sum divided by the group's size (floating dtypes only, as torch). */
  AVG(CTorchNativeConstants.CT_REDUCE_AVG);

  final int code;

  ReduceOp(int code) {
    this.code = code;
  }
}
