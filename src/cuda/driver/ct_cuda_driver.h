/*
 * ct_cuda_driver.h - the contract between libctorch and libctorch_cuda.so.
 *
 * libctorch never links CUDA. On first CUDA use its host glue dlopens libctorch_cuda.so (found next
 * to libctorch), looks up the one exported symbol ct_cuda_driver_get, and from then on calls the
 * CUDA backend only through the table of C function pointers it returns. Everything that touches
 * CUDA (the runtime, cuBLAS, cuSOLVER, NVRTC, kernels) lives behind this table, so libctorch loads
 * and runs on machines with no CUDA libraries at all, and libctorch_cuda.so itself loads on a machine with
 * the toolkit but no driver (libcuda is opened by cudart on the first CUDA call, not at load time).
 *
 * Conventions that hold for every member:
 *   - Every function returns int: CT_CUDA_OK (0) or a negative CT_CUDA_ERR_* code. On failure
 *     last_error() on the same thread names the CUDA call and its error (cudaGetErrorString, the
 *     cuBLAS status, or the NVRTC log). No member aborts, asserts or exits.
 *   - Out-pointers are written only on success unless stated otherwise.
 *   - Devices are CUDA ordinals (0 .. count - 1). Functions that take a stream run on the device
 *     the stream belongs to, and the caller makes that device current first (set_device): kernels
 *     launch on the current device. Functions that take a device index switch to it for the call
 *     and restore the previous current device before returning.
 *   - Streams are opaque cudaStream_t values passed as void*. NULL means the legacy default stream
 *     (it synchronizes with every blocking stream of the device); CT_CUDA_STREAM_PER_THREAD means
 *     the calling thread's per-thread default stream. stream_create makes non-blocking streams,
 *     which do not synchronize with the legacy default stream: mix NULL and created streams only
 *     through events. Graph capture needs a created stream (the legacy stream cannot be captured).
 *   - Asynchronous members (kernels, *_async, gemm, random, launch) only enqueue work: a success
 *     status means the launch was accepted. A fault during execution (an illegal address, say) is
 *     reported by a later synchronize or query on that stream, as CT_CUDA_ERR_CUDA.
 *   - Sizes and element counts are int64_t (elements) or size_t (bytes). Strides are in elements.
 *   - dtype codes are ctorch's ct_dtype numbers (include/ctorch.h): bool 0, uint8 1, int8 2,
 *     int16 3, int32 4, int64 5, float16 6, bfloat16 7, float32 8, float64 9.
 *
 * Versioning: a caller asks for the CT_CUDA_DRIVER_VERSION its copy of this header declares and
 * gets NULL from a library that does not implement it. Within one version the struct only grows
 * at the end: check struct_size before using a member added later.
 *
 * Determinism: every kernel here is deterministic: no atomics, and every reduction order is a
 * function of the shape alone (not of the device, its SM count or timing), so one input gives the
 * same bits run to run on one GPU model. See each family for details.
 */
#ifndef CT_CUDA_DRIVER_H
#define CT_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CT_CUDA_DRIVER_VERSION 1

/* ---- Status codes (append-only; new negative codes may appear) ---- */
#define CT_CUDA_OK 0
#define CT_CUDA_ERR_INVALID_ARGUMENT (-1) /* a NULL out-pointer, an unknown op/dtype code, a bad shape */
#define CT_CUDA_ERR_OOM (-2)              /* device or pinned allocation failed: free cached memory and retry */
#define CT_CUDA_ERR_NO_DEVICE (-3)        /* no CUDA device, or no usable driver (device_count reports 0) */
#define CT_CUDA_ERR_UNSUPPORTED (-4)      /* no kernel for this op and dtype combination */
#define CT_CUDA_ERR_CUDA (-5)             /* any other CUDA runtime error (launch failure, fault, ...) */
#define CT_CUDA_ERR_CUBLAS (-6)           /* a cuBLAS call failed (message holds the cublasStatus_t) */
#define CT_CUDA_ERR_NVRTC (-7)            /* NVRTC failed; for compile errors the message holds the log */
#define CT_CUDA_ERR_NOT_READY (-8)        /* reserved: queries report readiness through an out-flag */
#define CT_CUDA_ERR_CUSOLVER (-9)         /* a cuSOLVER call failed (message holds the cusolverStatus_t) */
#define CT_CUDA_ERR_CUFFT (-10)           /* a cuFFT call failed (message holds the cufftResult) */

/* The per-thread default stream (cudaStreamPerThread), usable wherever a stream is taken. */
#define CT_CUDA_STREAM_PER_THREAD ((void*)0x2)

/* memcpy_async directions. DEFAULT lets unified addressing infer it from the pointers. */
enum ct_cuda_memcpy_kind {
  CT_CUDA_MEMCPY_H2H = 0,
  CT_CUDA_MEMCPY_H2D = 1,
  CT_CUDA_MEMCPY_D2H = 2,
  CT_CUDA_MEMCPY_D2D = 3,
  CT_CUDA_MEMCPY_DEFAULT = 4
};

/* ---- Elementwise ---- */

#define CT_CUDA_MAX_DIMS 8
#define CT_CUDA_MAX_OPERANDS 4

/*
 * ct_cuda_loop - the iteration space of one elementwise call.
 *
 * The broadcast shape `sizes[0 .. ndim)` in tensor order, the LAST dim varying fastest (element
 * number i is the row-major i-th index). strides[k][d] is operand k's stride along dim d in
 * ELEMENTS of that operand (0 where it broadcasts, negative allowed); operand 0 is the output,
 * then the inputs in argument order. numel = product of sizes. The caller has already merged
 * dims (ndim 1 with all strides 1 is the contiguous fast path, taken with 16-byte vector loads
 * when every pointer is aligned). ndim 0 means a single element (numel 1). The output must not
 * partially overlap an input (exact aliasing, out == in with equal strides, is fine).
 */
typedef struct ct_cuda_loop {
  int32_t ndim;
  int64_t sizes[CT_CUDA_MAX_DIMS];
  int64_t strides[CT_CUDA_MAX_OPERANDS][CT_CUDA_MAX_DIMS];
  int32_t noperands;
  int64_t numel;
} ct_cuda_loop;

/*
 * Unary ops. Values are read in the input dtype, converted to the compute dtype, mapped, converted
 * to the output dtype (16-bit floats through float32, float to integer truncates toward zero and
 * saturates, NaN to integer gives 0 (undefined in C++ on the CPU), to bool tests != 0).
 * Compute dtype per op: F = float32/float64 (float16/bfloat16 inputs compute in float32),
 * I = int64, B = bool.
 */
enum ct_cuda_unary_op {
  CT_CUDA_UNARY_COPY = 0,        /* F I B  x (a cast between the dtypes) */
  CT_CUDA_UNARY_NEG = 1,         /* F I    -x (integers wrap) */
  CT_CUDA_UNARY_ABS = 2,         /* F I    |x| (INT64_MIN stays INT64_MIN) */
  CT_CUDA_UNARY_EXP = 3,         /* F */
  CT_CUDA_UNARY_LOG = 4,         /* F */
  CT_CUDA_UNARY_SQRT = 5,        /* F */
  CT_CUDA_UNARY_RSQRT = 6,       /* F      1 / sqrt(x) */
  CT_CUDA_UNARY_SIN = 7,         /* F */
  CT_CUDA_UNARY_COS = 8,         /* F */
  CT_CUDA_UNARY_TANH = 9,        /* F */
  CT_CUDA_UNARY_SIGMOID = 10,    /* F      1 / (1 + exp(-x)) */
  CT_CUDA_UNARY_RELU = 11,       /* F I    x < 0 ? 0 : x (NaN stays NaN) */
  CT_CUDA_UNARY_GELU = 12,       /* F      x/2 (1 + erf(x / sqrt 2)) */
  CT_CUDA_UNARY_GELU_TANH = 13,  /* F      x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  CT_CUDA_UNARY_SILU = 14,       /* F      x / (1 + exp(-x)) */
  CT_CUDA_UNARY_RECIPROCAL = 15, /* F      1 / x */
  CT_CUDA_UNARY_FLOOR = 16,      /* F I    integers unchanged */
  CT_CUDA_UNARY_CEIL = 17,       /* F I    integers unchanged */
  CT_CUDA_UNARY_ROUND = 18,      /* F I    half to even; integers unchanged */
  CT_CUDA_UNARY_TRUNC = 19,      /* F I    integers unchanged */
  CT_CUDA_UNARY_SIGN = 20,       /* F I B  (0 < x) - (x < 0); NaN gives 0 as in PyTorch's kernel */
  CT_CUDA_UNARY_ERF = 21,        /* F */
  CT_CUDA_UNARY_LOG1P = 22,      /* F */
  CT_CUDA_UNARY_EXPM1 = 23,      /* F */
  CT_CUDA_UNARY_LOGICAL_NOT = 24, /* F I B x == 0 (the output dtype is usually bool) */
  CT_CUDA_UNARY_BITWISE_NOT = 25, /* I B    ~x; !x for bool */
  /* The ops with parameters and the further math, served by unary_params (unary takes them too,
   * with every parameter 0). p0, p1, p2 are params[0..2], converted to the compute dtype where
   * they enter the arithmetic. */
  CT_CUDA_UNARY_TAN = 26,        /* F */
  CT_CUDA_UNARY_ASIN = 27,       /* F */
  CT_CUDA_UNARY_ACOS = 28,       /* F */
  CT_CUDA_UNARY_ATAN = 29,       /* F */
  CT_CUDA_UNARY_SINH = 30,       /* F */
  CT_CUDA_UNARY_COSH = 31,       /* F */
  CT_CUDA_UNARY_ASINH = 32,      /* F */
  CT_CUDA_UNARY_ACOSH = 33,      /* F */
  CT_CUDA_UNARY_ATANH = 34,      /* F */
  CT_CUDA_UNARY_EXP2 = 35,       /* F */
  CT_CUDA_UNARY_LOG2 = 36,       /* F */
  CT_CUDA_UNARY_LOG10 = 37,      /* F */
  CT_CUDA_UNARY_ERFC = 38,       /* F */
  CT_CUDA_UNARY_ERFINV = 39,     /* F      PyTorch's calc_erfinv: rational guess, two Newton steps */
  CT_CUDA_UNARY_FRAC = 40,       /* F      x - trunc(x) */
  CT_CUDA_UNARY_SQUARE = 41,     /* F I    x * x (integers wrap) */
  CT_CUDA_UNARY_ISNAN = 42,      /* F I B  integers and bool: 0 */
  CT_CUDA_UNARY_ISINF = 43,      /* F I B  integers and bool: 0 */
  CT_CUDA_UNARY_ISFINITE = 44,   /* F I B  integers and bool: 1 */
  CT_CUDA_UNARY_NAN_TO_NUM = 45, /* F I B  NaN -> p0, +inf -> p1, -inf -> p2; integers and bool unchanged */
  CT_CUDA_UNARY_ROUND_DECIMALS = 46, /* F  p0 = 10^|decimals|, p1 != 0 when decimals < 0:
                                          p1 ? rint(x / p0) * p0 : rint(x * p0) / p0 */
  CT_CUDA_UNARY_ELU = 47,        /* F      x <= 0 ? expm1(x * p2) * (p0 * p1) : x * p1 (alpha, scale,
                                          input_scale; p0 * p1 rounded in the compute dtype) */
  CT_CUDA_UNARY_LEAKY_RELU = 48, /* F      x > 0 ? x : x * p0 */
  CT_CUDA_UNARY_HARDTANH = 49,   /* F I    x < p0 ? p0 : (x > p1 ? p1 : x); NaN passes */
  CT_CUDA_UNARY_HARDSIGMOID = 50, /* F     relu6(x + 3) / 6 */
  CT_CUDA_UNARY_HARDSWISH = 51,  /* F      x * relu6(x + 3) / 6 */
  CT_CUDA_UNARY_SOFTPLUS = 52,   /* F      x * p0 > p1 ? x : log1p(exp(x * p0)) / p0 (beta, threshold) */
  CT_CUDA_UNARY_MISH = 53,       /* F      x * tanh(log1p(exp(x))) */
  CT_CUDA_UNARY_CLAMP = 54,      /* F I    bit 0 of p2: x < p0 gives p0; then bit 1: x > p1 gives p1
                                          (NaN passes; p0 > p1 gives p1). Integer bounds beyond 2^53
                                          are rounded by the double */
  /* The element functions of ops/pointwise/fns.h (Note [Element functions]). */
  CT_CUDA_UNARY_SIGNBIT = 55,    /* F I B  1 where the sign bit is set (-0.0 too); integers x < 0 */
  CT_CUDA_UNARY_LOGIT = 56,      /* F      log(x / (1 - x)), x clamped to [p0, 1 - p0] first when p0 >= 0 */
  CT_CUDA_UNARY_POLYGAMMA = 57,  /* F      the p0-th derivative of digamma (p0 a whole number >= 0) */
  CT_CUDA_UNARY_FREXP_MANTISSA = 58, /* F  m of x = m * 2^e, |m| in [0.5, 1); 0, inf and NaN stay */
  CT_CUDA_UNARY_FREXP_EXPONENT = 59  /* F  e of the same, as a number (stored into an int32 output); 0
                                          for 0, inf and NaN */
};

/*
 * Binary ops: out = op(a, b) in the compute dtype (F, I, B as above). Comparisons and logical ops
 * produce 1 or 0 in the compute dtype, stored into the output dtype (usually bool).
 */
enum ct_cuda_binary_op {
  CT_CUDA_BINARY_ADD = 0,          /* F I    a + alpha * b (alpha converted to the compute dtype) */
  CT_CUDA_BINARY_SUB = 1,          /* F I    a - alpha * b */
  CT_CUDA_BINARY_MUL = 2,          /* F I B  a * b (bool: and) */
  CT_CUDA_BINARY_DIV = 3,          /* F      true division */
  CT_CUDA_BINARY_FLOOR_DIVIDE = 4, /* F I    Python's //; PyTorch's div_floor_floating for floats.
                                              Integers: b == 0 gives 0 (the CPU raises; a kernel
                                              cannot), b == -1 negates with wraparound */
  CT_CUDA_BINARY_REMAINDER = 5,    /* F I    Python's %: the sign of b. Integer b == 0 gives 0 */
  CT_CUDA_BINARY_POW = 6,          /* F I    integers: exact by squaring; a negative exponent
                                              gives 1 for a == 1, +-1 for a == -1, else 0 */
  CT_CUDA_BINARY_MAXIMUM = 7,      /* F I B  NaN in either input propagates (a's NaN first) */
  CT_CUDA_BINARY_MINIMUM = 8,      /* F I B  likewise */
  CT_CUDA_BINARY_ATAN2 = 9,        /* F      atan2(a, b) */
  CT_CUDA_BINARY_EQ = 10,          /* F I B */
  CT_CUDA_BINARY_NE = 11,          /* F I B */
  CT_CUDA_BINARY_LT = 12,          /* F I B */
  CT_CUDA_BINARY_LE = 13,          /* F I B */
  CT_CUDA_BINARY_GT = 14,          /* F I B */
  CT_CUDA_BINARY_GE = 15,          /* F I B */
  CT_CUDA_BINARY_LOGICAL_AND = 16, /* F I B  (a != 0) && (b != 0) */
  CT_CUDA_BINARY_LOGICAL_OR = 17,  /* F I B */
  CT_CUDA_BINARY_BITWISE_AND = 18, /* I B */
  CT_CUDA_BINARY_BITWISE_OR = 19,  /* I B */
  CT_CUDA_BINARY_BITWISE_XOR = 20, /* I B */
  /* The ops with parameters and the further math, served by binary_params (binary takes them
   * too, with every parameter 0). */
  CT_CUDA_BINARY_HYPOT = 21,       /* F      hypot(a, b) */
  CT_CUDA_BINARY_FMOD = 22,        /* F I    C's fmod / %: the sign of a. Integer b == 0 gives 0 (the
                                              CPU raises), b == -1 gives 0 */
  CT_CUDA_BINARY_LOGICAL_XOR = 23, /* F I B  (a != 0) != (b != 0) */
  CT_CUDA_BINARY_LEFT_SHIFT = 24,  /* I      params[0]: the bit width w of the dtype ctorch computes
                                              in (8, 16, 32, 64; 0 means 64), params[1] != 0: it is
                                              unsigned. a and b are first wrapped to that dtype; b < 0
                                              or b >= w gives 0, else a << b (wrapping) */
  CT_CUDA_BINARY_RIGHT_SHIFT = 25, /* I      likewise; b < 0 or b >= w gives a >> (w - 1) (the sign
                                              fill; as ctorch's CPU, a >> 7 for uint8), else a >> b */
  CT_CUDA_BINARY_GCD = 26,         /* I      the greatest common divisor, >= 0; computed in the width and
                                              signedness params[0..1] give, as the shifts */
  CT_CUDA_BINARY_LCM = 27          /* I      |a / gcd(a, b) * b|, 0 when either is 0; likewise (wraps) */
};

/* Ternary ops for the ternary member: out = op(a, b, c) in the compute dtype; params[0] is the
 * scalar. LERP_SCALAR has no c (loop.noperands 3). */
enum ct_cuda_ternary_op {
  CT_CUDA_TERNARY_LERP = 0,        /* F      w = c: |w| < 0.5 ? a + w (b - a) : b - (b - a)(1 - w) */
  CT_CUDA_TERNARY_LERP_SCALAR = 1, /* F      the same with w = params[0] */
  CT_CUDA_TERNARY_ADDCMUL = 2,     /* F I    a + params[0] * b * c (integers wrap) */
  CT_CUDA_TERNARY_ADDCDIV = 3      /* F      a + params[0] * (b / c) */
};

/* Fill-by-index ops (index_fill) over a contiguous output of numel elements, each value computed
 * in float64 and converted to the dtype once (as ctorch's CPU factories). */
enum ct_cuda_index_fill_op {
  CT_CUDA_INDEX_FILL_ARANGE = 0,   /* out[i] = a + i * b */
  CT_CUDA_INDEX_FILL_LINSPACE = 1, /* start a, end b, step = (b - a) / (numel - 1) (0 for numel 1):
                                      i < numel / 2 ? a + step * i : b - step * (numel - 1 - i) */
  CT_CUDA_INDEX_FILL_EYE = 2       /* a [numel / cols, cols] matrix: 1 where row == col, else 0 */
};

/* Scans along the middle dim of a contiguous [outer, n, inner] input into a contiguous output of
 * the same shape. Each (outer, inner) line is folded by one thread in index order, so the result
 * is the CPU's sequential fold: sums and products accumulate in float64 for float32, float32 for
 * float16/bfloat16, float64 for float64, int64 (wrapping) for integers and bool. */
enum ct_cuda_scan_op {
  CT_CUDA_SCAN_CUMSUM = 0,
  CT_CUDA_SCAN_CUMPROD = 1,
  CT_CUDA_SCAN_CUMMAX = 2, /* values to out (dtype_out == dtype_in), int64 indices to out_index; a
                              new element takes over on ties (the latest index); a NaN sticks, each
                              later NaN taking its place */
  CT_CUDA_SCAN_CUMMIN = 3  /* likewise */
};

/* ---- Reductions ---- */

/*
 * Reduction ops over the middle dim of a contiguous [outer, reduce, inner] input; the output is
 * contiguous [outer, inner]. Accumulation: float32 for float16/bfloat16/float32 input, float64
 * for float64, int64 for integer and bool input. Each output is reduced by one thread block with
 * a fixed thread count (or, when there are few outputs, by several blocks over chunks of the reduce
 * dim and a second pass over their partials): thread t folds reduce indices t, t + T, ... in order,
 * then the T partials are combined by a fixed binary tree, so the order depends on the shape only.
 */
enum ct_cuda_reduce_op {
  CT_CUDA_REDUCE_SUM = 0,       /* any input; integer/bool accumulate in int64 */
  CT_CUDA_REDUCE_PROD = 1,      /* any input */
  CT_CUDA_REDUCE_MEAN = 2,      /* floating input; reduce == 0 gives NaN */
  CT_CUDA_REDUCE_MAX = 3,       /* values to out, int64 indices to out_index when not NULL; NaN wins */
  CT_CUDA_REDUCE_MIN = 4,       /* likewise */
  CT_CUDA_REDUCE_AMAX = 5,      /* MAX without indices (out_index ignored) */
  CT_CUDA_REDUCE_AMIN = 6,      /* MIN without indices */
  CT_CUDA_REDUCE_ARGMAX = 7,    /* int64 index to out (dtype_out must be int64); first index on
                                   ties; the first NaN wins */
  CT_CUDA_REDUCE_ARGMIN = 8,    /* likewise */
  CT_CUDA_REDUCE_VAR = 9,       /* floating input; sum((x - mean)^2) / max(reduce - correction, 0),
                                   Welford per thread, Chan's merge in the tree */
  CT_CUDA_REDUCE_STD = 10,      /* sqrt of VAR */
  CT_CUDA_REDUCE_LOGSUMEXP = 11, /* floating input; max + log(sum(exp(x - max))), online per thread;
                                   +-inf max gives that infinity, NaN propagates */
  /* Logical reductions and norms. */
  CT_CUDA_REDUCE_ALL = 12,      /* any input; 1 when every x != 0 (NaN counts as nonzero), 1 for none */
  CT_CUDA_REDUCE_ANY = 13,      /* any input; 1 when some x != 0, 0 for none */
  CT_CUDA_REDUCE_COUNT_NONZERO = 14, /* any input; the number of x != 0, as int64 accumulation */
  CT_CUDA_REDUCE_NORM = 15,     /* floating input; the vector p-norm, p = correction: 2: sqrt(sum x^2),
                                   1: sum |x|, inf / -inf: max / min |x| (NaN wins; reduce == 0 is
                                   invalid), 0: the count of x != 0, else sum(|x|^p)^(1/p) */
  CT_CUDA_REDUCE_WELFORD_MEAN = 16 /* floating input; the running mean VAR keeps (var_mean's mean, as
                                      the cpu's: NaN where an infinity meets another value) */
};

/* ---- Indexing, sorting, convolution: types (appended) ---- */

/*
 * Note [Indexed kernels]
 * One loop (ct_cuda_loop, noperands 3: dst, src, index) walks the positions of the tensor that
 * drives the operation (index's for gather/scatter, the result's for index_select, source's for
 * index_add). At each position the index value i (int32 or int64, checked to lie in [0, size), or
 * [-size, size) and wrapped when wrap) moves the INDEXED operand by i * indexed_stride elements:
 * its loop strides are those of the other dims (0 along the indexed dim). indexed 1 (src) is a
 * gather: dst[p] = src[p + i * stride]; indexed 0 (dst) a scatter: dst[p + i * stride] op= src[p].
 * A broadcast src (stride 0 everywhere, one element) fills.
 *
 * Bad indices: a kernel cannot raise, so the first out-of-range value seen sets error[0] = 1 and
 * error[1] = the value (error: two int64 of device memory the caller zeroes first) and the
 * element is skipped. The caller copies error back once after the call (one small device-to-host
 * copy and a stream synchronization per call) and raises.
 *
 * Accumulating ops (ADD, PROD, MEAN, AMAX, AMIN; the indexed operand must be dst): with
 * deterministic 0 they combine with atomic compare-and-swap loops (run-to-run order varies); with
 * deterministic 1 the (destination, position) pairs are radix sorted (stable) and one thread per
 * destination folds its contributions in position order, writing once: the same bits every run.
 * COPY with deterministic 1 and indexed 0 takes the sorted path too: the last position wins, as on
 * the CPU (with 0 duplicated destinations get an arbitrary one of their values).
 */
enum ct_cuda_index_op {
  CT_CUDA_INDEX_COPY = 0, /* gather or scatter a value (raw bytes: any dtype) */
  CT_CUDA_INDEX_ADD = 1,  /* dst += alpha * src (bool: or). float16/bfloat16/float32 compute in
                             float32, float64 in float64, integers and bool in int64 */
  CT_CUDA_INDEX_PROD = 2, /* dst *= src */
  CT_CUDA_INDEX_MEAN = 3, /* dst = (include_self ? dst : 0) + sum, divided by the count (including
                             dst when include_self) where that is nonzero; floor division for
                             integers. The atomic path needs a workspace of dst_numel int64 */
  CT_CUDA_INDEX_AMAX = 4, /* NaN propagates */
  CT_CUDA_INDEX_AMIN = 5
};

typedef struct ct_cuda_index {
  int32_t op;            /* ct_cuda_index_op */
  int32_t dtype;         /* of dst and src (one dtype) */
  int32_t index_dtype;   /* int32 or int64 */
  int32_t indexed;       /* 1: src is indexed (gather, COPY only); 0: dst is (scatter) */
  int64_t indexed_stride; /* element stride of the indexed operand along the indexed dim */
  int64_t size;          /* length of the indexed dim */
  int32_t wrap;          /* negative indices count from the end */
  int32_t include_self;  /* accumulating ops: fold dst's own value in (else start from the op's
                            identity: dst's reached elements are reset first) */
  int32_t deterministic; /* the sorted path (see the Note) */
  int32_t reserved;
  double alpha;          /* ADD's scale of src */
  int64_t dst_numel;     /* dst offsets lie in [0, dst_numel) (the sorted path's key range, MEAN's
                            count buffer) */
} ct_cuda_index;

/* sort_select modes, over rows sorted ascending by sort (stable): the k-th element, the lower
 * median (the first NaN by index when the row has one: NaN propagates), the most frequent value
 * (the smallest of equally frequent ones, at its last index). */
enum ct_cuda_select_mode { CT_CUDA_SELECT_KTH = 0, CT_CUDA_SELECT_MEDIAN = 1, CT_CUDA_SELECT_MODE = 2 };

/* A 2-D sliding window: `channels` planes of h x w give planes of oh x ow (kernel kh x kw, stride,
 * padding, dilation). For a transposed convolution h, w is the output's plane. */
typedef struct ct_cuda_window2d {
  int64_t channels, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
} ct_cuda_window2d;

/* pool2d ops. Forward: in [channels, h, w] -> out [channels, oh, ow]. Backward: in is the
 * gradient [channels, oh, ow], out the input's gradient [channels, h, w], computed as a gather
 * (each input element sums the windows containing it in kernel order: no atomics). */
enum ct_cuda_pool_op {
  CT_CUDA_POOL_MAX = 0,                   /* values and int64 indices y * w + x; first NaN, else first max */
  CT_CUDA_POOL_MAX_BACKWARD = 1,          /* indices: the forward's */
  CT_CUDA_POOL_AVG = 2,                   /* dh = dw = 1; PyTorch's divisor rules */
  CT_CUDA_POOL_AVG_BACKWARD = 3,
  CT_CUDA_POOL_ADAPTIVE_AVG = 4,          /* window o: [floor(o h / oh), ceil((o + 1) h / oh)) */
  CT_CUDA_POOL_ADAPTIVE_AVG_BACKWARD = 5
};

/* ---- Random sampling: types (appended) ---- */

/* What check_probabilities checks: BERNOULLI, every probability in [0, 1] (NaN fails);
 * MULTINOMIAL, per row: every weight finite and >= 0, some weight > 0, at least k weights > 0. */
enum ct_cuda_probability_check { CT_CUDA_CHECK_BERNOULLI = 0, CT_CUDA_CHECK_MULTINOMIAL = 1 };

/* The sort keys philox_sort_keys draws, two per Philox block (element i from words 2 (i % 2) and
 * 2 (i % 2) + 1 of block offset_block + i / 2, low word first). RANDPERM: int64 keys
 * (hi << 32 | lo) ^ 2^63, whose signed order is the CPU's unsigned order of hi << 32 | lo (randperm
 * in src/ops/random/sampling.cpp sorts them ascending, ties by index). MULTINOMIAL: float64 keys
 * log(1 - u) / p[i] for p[i] > 0 (u the 53-bit uniform of the two words, log philox.h's log_f64),
 * -inf for p[i] == 0 (multinomial without replacement takes the k largest, ties by index). */
enum ct_cuda_sort_keys { CT_CUDA_SORT_KEYS_RANDPERM = 0, CT_CUDA_SORT_KEYS_MULTINOMIAL = 1 };

/* ---- Dense linear algebra: types (appended) ---- */

/* The cuSOLVER routines solver runs (LAPACK's, column-major, on float32 and float64), each on a
 * batch of matrices in turn. Every matrix is contiguous column-major (leading dimension its row
 * count), and matrix i of an operand starts i * (its rows * cols) elements past the pointer.
 *   GETRF  a (m x n) <- L and U, ipiv[min(m, n)] LAPACK's 1-based row swaps, info.
 *   GETRS  b (n x k) <- op(A)^-1 b with GETRF's a (n x n; m = n) and ipiv; op(A) = A^T when trans.
 *   POTRF  the upper (upper) or lower triangle of a (n x n) <- its Cholesky factor; the other
 *          triangle is left as it was.
 *   SYEVD  w[n] <- the eigenvalues ascending, a (n x n) <- the eigenvectors (its columns), reading
 *          the upper or lower triangle.
 *   GESVD  m >= n: s[n] <- the singular values descending, u (m x m when full, else m x n) and
 *          vt (n x n) <- the singular vectors; a is overwritten.
 *   GEQRF  a (m x n) <- R above the diagonal and the reflectors below it, w[min(m, n)] <- tau.
 *   ORGQR  a (m x n, m >= n >= k) <- the first n columns of Q from GEQRF's k reflectors and w.
 *   SYTRF  the upper (upper) or lower triangle of a (n x n; m = n) <- its LDL^T factors
 *          (Bunch-Kaufman), ipiv[n] LAPACK's 1-based pivots (a negative pair for a 2 x 2 block).
 *   SYTRS  b (n x k) <- A^-1 b with SYTRF's a and ipiv (m = n), which the caller has checked are
 *          LAPACK's; the same triangle as SYTRF's.
 *   GEEV   w[n] <- the eigenvalues of the general a (n x n; m = n; overwritten), complex (pairs
 *          of the dtype: real, imaginary), in LAPACK's order; c (n x n complex, or NULL for none)
 *          <- the right eigenvectors, each of norm 1 with its largest component real (LAPACK's). */
enum ct_cuda_solver_op {
  CT_CUDA_SOLVER_GETRF = 0,
  CT_CUDA_SOLVER_GETRS = 1,
  CT_CUDA_SOLVER_POTRF = 2,
  CT_CUDA_SOLVER_SYEVD = 3,
  CT_CUDA_SOLVER_GESVD = 4,
  CT_CUDA_SOLVER_GEQRF = 5,
  CT_CUDA_SOLVER_ORGQR = 6,
  CT_CUDA_SOLVER_SYTRF = 7, /* appended */
  CT_CUDA_SOLVER_SYTRS = 8, /* appended */
  CT_CUDA_SOLVER_GEEV = 9   /* appended */
};

/* One solver call; the pointers are device memory of the current device. info: batch int32s, each
 * LAPACK's info for its matrix (0, or > 0: the routine's failure, such as a zero pivot, a minor
 * that is not positive-definite or no convergence); written in stream order. */
typedef struct ct_cuda_solver {
  int32_t op;    /* ct_cuda_solver_op */
  int32_t dtype; /* float32 or float64 */
  int64_t m, n, k, batch;
  int32_t upper; /* POTRF, SYEVD, SYTRF, SYTRS: the triangle */
  int32_t trans; /* GETRS */
  int32_t full;  /* GESVD: u is m x m */
  void* a;
  void* b;       /* GETRS, SYTRS: the right-hand sides; GESVD: u */
  void* c;       /* GESVD: vt; GEEV: the eigenvectors or NULL */
  void* w;       /* SYEVD, GEEV: eigenvalues; GESVD: singular values; GEQRF, ORGQR: tau */
  int32_t* ipiv; /* GETRF, GETRS, SYTRF, SYTRS */
  int32_t* info;
} ct_cuda_solver;

/* ---- Fourier transforms: types (appended) ---- */

/* The transforms fft runs on cuFFT, unnormalized, each over the innermost `rank` dims (1 to 3) of
 * `batch` contiguous signals laid one after another (cuFFT's basic layout):
 *   C2C  complex n[0..rank) -> complex n[0..rank): exp(-2 pi i jk/n) forward, exp(+...) when inverse.
 *        in == out is allowed.
 *   R2C  real n[0..rank) -> complex with the last dim n[rank-1] / 2 + 1 (the half spectrum).
 *   C2R  complex with the last dim n[rank-1] / 2 + 1 -> real n[0..rank); in is overwritten (cuFFT's
 *        own rule), so pass a copy. */
enum ct_cuda_fft_kind { CT_CUDA_FFT_C2C = 0, CT_CUDA_FFT_R2C = 1, CT_CUDA_FFT_C2R = 2 };

typedef struct ct_cuda_fft {
  int32_t kind;    /* ct_cuda_fft_kind */
  int32_t dtype;   /* float32 or float64: the precision (complex64 or complex128 data) */
  int32_t inverse; /* C2C only */
  int32_t rank;    /* 1, 2 or 3 */
  int64_t n[3];    /* the signal's sizes, outermost first (C2R: the real output's) */
  int64_t batch;
  void* in;
  void* out;
} ct_cuda_fft;

/* ---- The table ---- */

typedef struct ct_cuda_driver {
  size_t struct_size; /* sizeof(ct_cuda_driver) of the library; members past it are absent */
  int32_t version;    /* CT_CUDA_DRIVER_VERSION of the library */

  /* ---- Errors ---- */

  /* The message of the last failing call on this thread ("" if none). Owned by the library, valid
   * until the next failing call on this thread. After device_count reports 0 it says why. */
  const char* (*last_error)(void);

  /* ---- Devices ---- */

  /* OUT *count: number of usable devices. ^No device, no driver, an insufficient driver or a
   * driver/library mismatch give *count = 0 and CT_CUDA_OK (last_error() then holds the reason);
   * never aborts. */
  int (*device_count)(int* count);
  /* Makes device current for the calling thread (cudaSetDevice). */
  int (*set_device)(int device);
  /* OUT *device: the calling thread's current device. */
  int (*get_device)(int* device);
  /* Properties of device; any out-pointer may be NULL. name: filled, NUL-terminated, truncated to
   * name_capacity bytes. total_memory in bytes. */
  int (*device_properties)(int device, char* name, size_t name_capacity, int* major, int* minor,
                           size_t* total_memory, int* multiprocessor_count);
  /* OUT free/total bytes of device (cudaMemGetInfo); either may be NULL. */
  int (*mem_get_info)(int device, size_t* free_bytes, size_t* total_bytes);
  /* Waits for all work on device (cudaDeviceSynchronize). */
  int (*synchronize_device)(int device);

  /* ---- Memory (raw: the caching allocator lives in libctorch) ---- */

  /* OUT *ptr: nbytes of device memory on device (cudaMalloc, 256-byte aligned); NULL for nbytes 0.
   * CT_CUDA_ERR_OOM when the device is out of memory: the caller may free cached blocks and retry.
   * On failure *ptr is NULL. Release with free. */
  int (*malloc)(int device, size_t nbytes, void** ptr);
  /* Releases ptr from malloc (cudaFree: waits for the device). NULL is a no-op. */
  int (*free)(int device, void* ptr);
  /* OUT *ptr: nbytes of page-locked host memory, visible to every device (cudaHostAlloc portable);
   * CT_CUDA_ERR_OOM when it cannot be had (then *ptr is NULL). Release with host_free_pinned. */
  int (*host_alloc_pinned)(size_t nbytes, void** ptr);
  /* Releases host_alloc_pinned memory (waits for the copies using it). NULL is a no-op. */
  int (*host_free_pinned)(void* ptr);
  /* Copies nbytes from src to dst on stream, kind from ct_cuda_memcpy_kind. Asynchronous with
   * respect to the host only when the host side is pinned; pageable host memory is staged. */
  int (*memcpy_async)(void* dst, const void* src, size_t nbytes, int kind, void* stream);
  /* Sets nbytes at ptr to the byte value (low 8 bits) on stream. */
  int (*memset_async)(void* ptr, int value, size_t nbytes, void* stream);

  /* ---- Streams and events ---- */

  /* OUT *stream: a new non-blocking stream on device (cudaStreamNonBlocking). Destroy it. */
  int (*stream_create)(int device, void** stream);
  /* Destroys a stream from stream_create once its queued work completes. NULL is a no-op. */
  int (*stream_destroy)(void* stream);
  /* Waits for all work queued on stream. */
  int (*stream_synchronize)(void* stream);
  /* OUT *done: 1 when all work on stream has completed, else 0. */
  int (*stream_query)(void* stream, int* done);
  /* OUT *event: a new event on device; timing off unless enable_timing (cheaper without). */
  int (*event_create)(int device, int enable_timing, void** event);
  /* Records event at the current end of stream. */
  int (*event_record)(void* event, void* stream);
  /* Waits until the work before the event's record has completed. */
  int (*event_synchronize)(void* event);
  /* OUT *done: 1 when the recorded work has completed (or never recorded), else 0. */
  int (*event_query)(void* event, int* done);
  /* OUT *ms: milliseconds between two completed, timing-enabled events. */
  int (*event_elapsed_ms)(void* start, void* end, float* ms);
  /* Destroys an event. NULL is a no-op. */
  int (*event_destroy)(void* event);
  /* Makes future work on stream wait for event (no host wait). */
  int (*stream_wait_event)(void* stream, void* event);

  /* ---- Elementwise (all on stream; pointers are device memory of the current device) ---- */

  /* out = op(in). loop: noperands 2 (out, in). compute_dtype: float32, float64, int64 or bool, as
   * listed per op; CT_CUDA_ERR_UNSUPPORTED otherwise. */
  int (*unary)(int op, int dtype_out, int dtype_in, int compute_dtype, void* out, const void* in,
               const ct_cuda_loop* loop, void* stream);
  /* out = op(a, b). loop: noperands 3 (out, a, b). alpha is used by ADD and SUB only. */
  int (*binary)(int op, int dtype_out, int dtype_a, int dtype_b, int compute_dtype, double alpha, void* out,
                const void* a, const void* b, const ct_cuda_loop* loop, void* stream);
  /* Writes one value to every element of out: ivalue for integer and bool dtypes (bool: != 0),
   * value for floating ones (float16/bfloat16/float32 round it to float32 first). loop:
   * noperands 1 (the output's strides). */
  int (*fill)(int dtype, double value, int64_t ivalue, void* out, const ct_cuda_loop* loop, void* stream);
  /* out = cond != 0 ? a : b. loop: noperands 4 (out, cond, a, b). a and b are converted to
   * dtype_out exactly (bool, int64 or float compute by dtype_out). */
  int (*where)(int dtype_out, int dtype_cond, int dtype_a, int dtype_b, void* out, const void* cond,
               const void* a, const void* b, const ct_cuda_loop* loop, void* stream);

  /* ---- Reductions and normalization ---- */

  /* out[o, i] = op over r of in[o, r, i]; in contiguous [outer, reduce, inner], out contiguous
   * [outer, inner] of dtype_out (int64 for ARGMAX/ARGMIN), out_index int64 [outer, inner] or NULL.
   * correction: VAR/STD only. reduce == 0 is CT_CUDA_ERR_INVALID_ARGUMENT for MAX/MIN/AMAX/AMIN/
   * ARGMAX/ARGMIN. Deterministic: see ct_cuda_reduce_op. */
  int (*reduce)(int op, int dtype_out, int dtype_in, void* out, void* out_index, const void* in, int64_t outer,
                int64_t reduce, int64_t inner, double correction, void* stream);
  /* Softmax (log_softmax when log != 0) over the last dim of a contiguous [rows, cols] input, into
   * a contiguous [rows, cols] output. Floating dtypes; float32 compute (float64 for float64 input).
   * One block per row: max, then sum of exp(x - max), each by the fixed tree. */
  int (*softmax)(int log, int dtype_out, int dtype_in, void* out, const void* in, int64_t rows, int64_t cols,
                 void* stream);
  /* layer_norm forward over the last dim of a contiguous [rows, cols] x (dtype): y = (x - mean) *
   * rstd * weight + bias, rstd = 1 / sqrt(var + eps) with the biased variance (two-pass: mean,
   * then sum of squared deviations). weight, bias: [cols] of dtype or NULL. mean, rstd: [rows] in
   * the accumulation dtype (float32, float64 for float64 x), or NULL when not needed. */
  int (*layer_norm)(int dtype, void* y, void* mean, void* rstd, const void* x, const void* weight,
                    const void* bias, int64_t rows, int64_t cols, double eps, void* stream);
  /* OUT *bytes: the workspace layer_norm_backward needs for this shape (0 when none). */
  int (*layer_norm_backward_workspace)(int dtype, int64_t rows, int64_t cols, size_t* bytes);
  /* layer_norm backward from the saved mean and rstd of the forward. dx [rows, cols] (dtype),
   * dweight/dbias [cols] (dtype): each may be NULL when not needed; weight NULL means 1.
   * workspace: device memory of at least layer_norm_backward_workspace bytes (may be NULL when that
   * is 0), borrowed for the call's stream order only. dweight/dbias are two-stage: rows are cut in
   * fixed chunks of 64, each chunk summed in row order, then the chunk sums in chunk order. */
  int (*layer_norm_backward)(int dtype, void* dx, void* dweight, void* dbias, const void* dy, const void* x,
                             const void* mean, const void* rstd, const void* weight, int64_t rows, int64_t cols,
                             void* workspace, size_t workspace_bytes, void* stream);

  /* ---- Random: bit-identical to ctorch's CPU generator (src/ops/random/random.cpp) ---- */

  /* Fills out[0, numel) (contiguous, dtype float16/bfloat16/float32/float64) with Uniform[low, high)
   * from Philox4x32-10 keyed by seed, blocks offset_block, offset_block + 1, ...: mirrors
   * fill_uniform<T> in random.cpp (4 values per block, 24/11/8 random bits for float32/float16/
   * bfloat16, low + (high - low) * u in float32; float64: 2 values per block, 53 bits, in
   * float64). Uses ceil(numel / 4) blocks (ceil(numel / 2) for float64): the caller reserves them
   * from its Generator (Generator::reserve) and passes the first as offset_block. */
  int (*philox_uniform)(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, double low,
                        double high, void* stream);
  /* Normal(mean, std): mirrors fill_normal<T> in random.cpp (Box-Muller of philox.h, mean + std * z
   * in float32, or float64 for float64). Same block use as philox_uniform. */
  int (*philox_normal)(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, double mean,
                       double std, void* stream);

  /* ---- BLAS (cuBLAS, column-major as in BLAS) ---- */

  /* For b in [0, batch): C_b = alpha * op(A_b) op(B_b) + beta * C_b, A_b = A + b * strideA
   * (elements), op(X) = X^T when trans != 0; m x n result, inner size k; column-major with
   * leading dimensions lda/ldb/ldc (a row-major caller computes C^T = B^T A^T by swapping A and
   * B and m and n). dtype float32 (TF32 tensor cores only when allow_tf32, otherwise true fp32),
   * float64, float16 and bfloat16 (both accumulate in float32, no reduced-precision reductions).
   * One cuBLAS handle per (thread, device), created lazily with a fixed 32 MiB workspace and bound
   * to stream for the call, so results are bitwise reproducible for one shape on one GPU model.
   * The first call on a thread allocates: warm up before graph capture. */
  int (*gemm_strided_batched)(int dtype, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                              const void* A, int64_t lda, int64_t strideA, const void* B, int64_t ldb,
                              int64_t strideB, double beta, void* C, int64_t ldc, int64_t strideC, int64_t batch,
                              int allow_tf32, void* stream);

  /* ---- NVRTC and modules ---- */

  /* Compiles CUDA C++ source (name is used in messages) to a CUBIN for sm_<major><minor>; needs no
   * device. OUT *image (malloc'ed; release with buffer_free; NULL on failure) and *size. log: when not NULL, *log
   * is set to the compiler log (a NUL-terminated malloc'ed string, possibly empty; release with
   * buffer_free), on failure too. ^A compile error returns CT_CUDA_ERR_NVRTC and last_error()
   * contains the log. Options: -std=c++17, --fmad=false (same bits as the CPU for plain IEEE code). */
  int (*nvrtc_compile)(const char* source, const char* name, int arch_major, int arch_minor, char** image,
                       size_t* size, char** log);
  /* Releases a buffer from nvrtc_compile. NULL is a no-op. */
  int (*buffer_free)(void* buffer);
  /* OUT *module: image (CUBIN, PTX or fatbin) loaded into every device (cudaLibraryLoadData). The
   * image is copied; release the module with module_unload. */
  int (*module_load)(const void* image, void** module);
  /* Unloads a module; its functions become invalid. NULL is a no-op. */
  int (*module_unload)(void* module);
  /* OUT *fn: the extern "C" __global__ function name of module (cudaLibraryGetKernel); valid
   * until module_unload. */
  int (*module_get_function)(void* module, const char* name, void** fn);
  /* Launches fn on stream (cudaLaunchKernel). args: one pointer per kernel parameter, pointing at
   * the value (as cudaLaunchKernel takes them). */
  int (*launch)(void* fn, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, uint32_t block_x, uint32_t block_y,
                uint32_t block_z, uint32_t shared_bytes, void* stream, void** args);

  /* ---- CUDA graphs ---- */

  /* Starts capturing the work the calling thread enqueues on stream (a created stream, not NULL;
   * thread-local capture mode: other threads are unaffected). */
  int (*graph_capture_begin)(void* stream);
  /* Ends the capture and instantiates it: OUT *graph_exec, replayable with graph_launch. If
   * anything failed during capture, returns the error and ends the capture. */
  int (*graph_capture_end)(void* stream, void** graph_exec);
  /* Replays graph_exec on stream. */
  int (*graph_launch)(void* graph_exec, void* stream);
  /* Destroys graph_exec. NULL is a no-op. */
  int (*graph_destroy)(void* graph_exec);
  /* ---- Indexing, sorting, convolution (appended) ---- */

  /* OUT *bytes: the workspace index needs for args over loop (0 when none). */
  int (*index_workspace)(const ct_cuda_index* args, const ct_cuda_loop* loop, size_t* bytes);
  /* The indexed op of args over loop (see Note [Indexed kernels]); error: 2 zeroed int64 on the
   * device. workspace: index_workspace bytes, borrowed in stream order. loop->numel < 2^31. */
  int (*index)(const ct_cuda_index* args, void* dst, const void* src, const void* index, const ct_cuda_loop* loop,
               void* workspace, size_t workspace_bytes, int64_t* error, void* stream);
  /* OUT *bytes: masked_scatter's workspace for n elements. */
  int (*masked_scatter_workspace)(int64_t n, size_t* bytes);
  /* out[p] = source[k] for the k-th true mask[p], p in [0, n) (out, mask (bool) and source
   * contiguous). More true elements than source_numel: error[0] = 1, error[1] = their count. */
  int (*masked_scatter)(int dtype, void* out, const void* mask, const void* source, int64_t n, int64_t source_numel,
                        void* workspace, size_t workspace_bytes, int64_t* error, void* stream);
  /* OUT *bytes: sort's workspace for rows x cols of dtype. rows * cols < 2^31. */
  int (*sort_workspace)(int dtype, int64_t rows, int64_t cols, size_t* bytes);
  /* Sorts each row of a contiguous [rows, cols] in (stable: ties keep index order; NaN above +inf;
   * -0.0 equals 0.0; descending is the reversed key order, ties still by index) into values
   * (same dtype, may be NULL) and indices (int64 column numbers), both contiguous [rows, cols]. */
  int (*sort)(int dtype, int descending, void* values, int64_t* indices, const void* in, int64_t rows, int64_t cols,
              void* workspace, size_t workspace_bytes, void* stream);
  /* Per row of in [rows, cols] and its ascending stable order (sort's indices): value[r] and
   * index[r] by ct_cuda_select_mode (k: the 0-based rank for KTH and MEDIAN). */
  int (*sort_select)(int mode, int dtype, void* value, int64_t* index, const void* in, const int64_t* order,
                     int64_t rows, int64_t cols, int64_t k, void* stream);
  /* col [channels * kh * kw, oh * ow] from im [channels, h, w] (0 in the padding). Floating dtypes. */
  int (*im2col)(int dtype, void* col, const void* im, const ct_cuda_window2d* window, void* stream);
  /* im [channels, h, w] = the sum of the col entries im2col reads from each element (a gather,
   * in kernel order: deterministic). Overwrites im. */
  int (*col2im)(int dtype, void* im, const void* col, const ct_cuda_window2d* window, void* stream);
  /* ct_cuda_pool_op over contiguous planes; indices for MAX (out) and MAX_BACKWARD (in);
   * count_include_pad and divisor_override (0: none) for AVG and AVG_BACKWARD. Floating dtypes. */
  int (*pool2d)(int op, int dtype, void* out, int64_t* indices, const void* in, const ct_cuda_window2d* window,
                int count_include_pad, int64_t divisor_override, void* stream);

  /* ---- Pointwise, factories, scans (appended) ---- */

  /* unary with parameters: every ct_cuda_unary_op; params points at 3 doubles (NULL: all 0), the
   * op's p0..p2 (see ct_cuda_unary_op). Same conversions and loop contract as unary. */
  int (*unary_params)(int op, int dtype_out, int dtype_in, int compute, const double* params, void* out,
                      const void* in, const ct_cuda_loop* loop, void* stream);
  /* binary with parameters: every ct_cuda_binary_op; params: 3 doubles or NULL (all 0). For ADD and
   * SUB params[0] is alpha (NULL: 1); the shifts read params[0..1]. Otherwise as binary. */
  int (*binary_params)(int op, int dtype_out, int dtype_a, int dtype_b, int compute, const double* params,
                       void* out, const void* a, const void* b, const ct_cuda_loop* loop, void* stream);
  /* out = op(a, b, c) (ct_cuda_ternary_op) over loop: noperands 4 (out, a, b, c), or 3 for
   * LERP_SCALAR (c ignored, may be NULL). params: 3 doubles or NULL (all 0). */
  int (*ternary)(int op, int dtype_out, int dtype_a, int dtype_b, int dtype_c, int compute, const double* params,
                 void* out, const void* a, const void* b, const void* c, const ct_cuda_loop* loop, void* stream);
  /* Fills a contiguous out[0, numel) of dtype by ct_cuda_index_fill_op: a and b its two numbers,
   * cols the row length of EYE (>= 1 when numel > 0). */
  int (*index_fill)(int op, int dtype, double a, double b, int64_t cols, void* out, int64_t numel, void* stream);
  /* A ct_cuda_scan_op along the middle dim of a contiguous [outer, n, inner] in (dtype_in) into a
   * contiguous out (dtype_out), out_index int64 (CUMMAX/CUMMIN only, required there, else ignored).
   * CUMSUM/CUMPROD read any dtype and write any non-bool dtype_out; CUMMAX/CUMMIN need
   * dtype_out == dtype_in. Deterministic (see ct_cuda_scan_op). */
  int (*scan)(int op, int dtype_out, int dtype_in, void* out, void* out_index, const void* in, int64_t outer,
              int64_t n, int64_t inner, void* stream);

  /* ---- Random sampling (appended) ---- */
  /* Bit-identical to ctorch's CPU sampling (src/ops/random/random.cpp, sampling.cpp): the caller
   * reserves the blocks named below from its Generator and passes the first as offset_block. */

  /* Checks the probabilities of a draw before it is made (ct_cuda_probability_check); p: contiguous
   * float64 [rows, cols]; k: MULTINOMIAL's sample count without replacement (1 with it). OUT
   * error: 1 int64 on the device, written in stream order: the smallest failing flat index
   * (BERNOULLI) or row (MULTINOMIAL), -1 when everything passes. Reserves no blocks. */
  int (*check_probabilities)(int mode, const double* p, int64_t rows, int64_t cols, int64_t k, int64_t* error,
                             void* stream);
  /* out[i] = w * 2^-32 < p_i ? 1 : 0 (compared in float64) for a contiguous out of any dtype, w
   * word i % 4 of block offset_block + i / 4, p_i = p[i] (contiguous float64 [numel]) or p_scalar
   * when p is NULL: mirrors fill_bernoulli. Uses ceil(numel / 4) blocks. */
  int (*philox_bernoulli)(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, const double* p,
                          double p_scalar, void* stream);
  /* out[i] = low + x % (high - low) (low < high; contiguous out of any dtype, the values exact in
   * it): mirrors fill_randint. Range <= 2^32: x word i % 4 of block offset_block + i / 4,
   * ceil(numel / 4) blocks; wider: x = (hi << 32 | lo) from words 2 (i % 2), 2 (i % 2) + 1 of block
   * offset_block + i / 2, ceil(numel / 2) blocks. */
  int (*philox_randint)(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, int64_t low,
                        int64_t high, void* stream);
  /* keys[0, numel) (contiguous; int64 for RANDPERM, float64 for MULTINOMIAL) by ct_cuda_sort_keys;
   * p: contiguous float64 [numel] for MULTINOMIAL, ignored for RANDPERM. Uses ceil(numel / 2)
   * blocks. Sorted with sort (ascending for RANDPERM, descending for MULTINOMIAL; ties by index),
   * the indices are the CPU's randperm and multinomial without replacement (first k of each row). */
  int (*philox_sort_keys)(int mode, void* keys, const double* p, int64_t numel, uint64_t seed, uint64_t offset_block,
                          void* stream);
  /* multinomial with replacement: out int64 [rows, k], sample s of row r the first category whose
   * running total (float64, in category order) exceeds u * total, at most the last category of
   * positive weight; u the 53-bit uniform of sample r * k + s (two per block, as
   * philox_sort_keys), ceil(rows * k / 2) blocks. p: contiguous float64 [rows, cols], checked by
   * check_probabilities. workspace: (rows * cols + rows) * 8 bytes of device memory, borrowed in
   * stream order. */
  int (*multinomial_replacement)(int64_t* out, const double* p, int64_t rows, int64_t cols, int64_t k, uint64_t seed,
                                 uint64_t offset_block, void* workspace, void* stream);

  /* ---- Dense linear algebra (appended) ---- */
  /* Determinism: cuSOLVER runs in CUSOLVER_DETERMINISTIC_RESULTS mode and cuBLAS as in gemm (a
   * handle per thread and device with a fixed workspace), so a call gives the same bits run to run
   * on one GPU model. */

  /* The device workspace, in bytes, that solver needs for args (sizes, op and dtype only). */
  int (*solver_workspace)(const ct_cuda_solver* args, size_t* bytes);
  /* Runs args (ct_cuda_solver_op) on stream; workspace: solver_workspace's bytes of device memory,
   * borrowed in stream order. */
  int (*solver)(const ct_cuda_solver* args, void* workspace, size_t workspace_bytes, void* stream);
  /* cuBLAS trsm on a batch: B (m x n, column-major, ld m) <- op(A)^-1 B (left) or B op(A)^-1, A
   * (m x m or n x n, column-major) upper or lower triangular, op(A) = A^T when trans, its diagonal
   * taken as ones when unit. Matrix i at A + i strideA, B + i strideB elements; float32, float64. */
  int (*trsm)(int dtype, int left, int upper, int trans, int unit, int64_t m, int64_t n, const void* A,
              int64_t strideA, void* B, int64_t strideB, int64_t batch, void* stream);

  /* ---- Fourier transforms (appended) ---- */
  /* The device workspace, in bytes, that fft needs for args (its kind, dtype, sizes and batch). */
  int (*fft_workspace)(const ct_cuda_fft* args, size_t* bytes);
  /* Runs args (ct_cuda_fft_kind) on stream, on the current device; workspace: fft_workspace's bytes
   * of device memory, borrowed in stream order. The cuFFT plan for the sizes is made on first use
   * and kept for later calls (the 32 most recent); cuFFT gives the same bits for the same plan on
   * one GPU model. */
  int (*fft)(const ct_cuda_fft* args, void* workspace, size_t workspace_bytes, void* stream);
} ct_cuda_driver;

/* The table for `version`, or NULL when this library does not implement it. The table is static:
 * the pointer stays valid until the library is unloaded. The one exported symbol. */
const ct_cuda_driver* ct_cuda_driver_get(int32_t version);
typedef const ct_cuda_driver* (*ct_cuda_driver_get_fn)(int32_t version);

#ifdef __cplusplus
}
#endif

#endif /* CT_CUDA_DRIVER_H */
