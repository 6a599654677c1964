/*
 * ctorch_dlpack.h - the DLPack 1.0 structs, for ct_tensor_to_dlpack and ct_tensor_from_dlpack.
 *
 * ctorch.h declares the DLPack functions with the struct types only forward-declared, so it stays
 * includable alone. Include this header (it includes ctorch.h) when your code reads or builds
 * DLManagedTensorVersioned or DLManagedTensor itself. The definitions follow the DLPack 1.0 ABI
 * (https://github.com/dmlc/dlpack, include/dlpack/dlpack.h) field for field, so a capsule made by
 * numpy, PyTorch, JAX or CuPy passes through unchanged.
 *
 * Living beside the official dlpack.h:
 *   - dlpack.h 1.x included first: this header defines nothing of its own and uses those
 *     definitions (the layout of these structs is fixed within a major version).
 *   - a dlpack.h older than 1.0 included first (for instance ATen/dlpack.h of an older PyTorch): it
 *     has DLTensor and DLManagedTensor but no versioned capsule, so this header adds only
 *     DLPackVersion, the DLPACK_FLAG_BITMASK_* flags and DLManagedTensorVersioned.
 *   - dlpack.h included after: this header has already defined DLPACK_DLPACK_H_ (dlpack.h's own
 *     include guard) and DLPACK_MAJOR_VERSION / DLPACK_MINOR_VERSION, so dlpack.h expands to
 *     nothing and the 1.0 definitions here stay in force. Include dlpack.h first when you need
 *     names that a later DLPack release added (new device types or dtype codes).
 */
#ifndef CTORCH_DLPACK_H
#define CTORCH_DLPACK_H

#include <stddef.h>
#include <stdint.h>

#include "ctorch.h"

#if !defined(DLPACK_MAJOR_VERSION) && !defined(DLPACK_DLPACK_H_) /* no dlpack.h: define it all */
#define DLPACK_DLPACK_H_
#define CTORCH_DLPACK_ADD_VERSIONED

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif
#ifndef DLPACK_DLL
#define DLPACK_DLL
#endif

/* The DLPack release these definitions follow. A capsule's own version is in its version field. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

/* Where the data lives. An int32 in DLDevice (the enum's underlying type is fixed in C++). */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,          /* ordinary host memory: the only device ctorch accepts today */
  kDLCUDA = 2,         /* CUDA device memory */
  kDLCUDAHost = 3,     /* pinned host memory from cudaMallocHost */
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13, /* unified memory from cudaMallocManaged */
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16
} DLDeviceType;

/* A device type plus an index (0 for host memory). */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/* Type codes of DLDataType.code (stored as a uint8). */
typedef enum {
  kDLInt = 0U,          /* signed integer */
  kDLUInt = 1U,         /* unsigned integer */
  kDLFloat = 2U,        /* IEEE floating point */
  kDLOpaqueHandle = 3U, /* reserved for testing */
  kDLBfloat = 4U,       /* bfloat16 */
  kDLComplex = 5U,      /* complex, as a struct of two floats per element */
  kDLBool = 6U          /* boolean (bits 8: one byte per element) */
} DLDataTypeCode;

/* An element type: code, bits per lane, lanes per element (1 for scalars; > 1 is a vector type). */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A tensor that does not manage its memory.
 * Element i of a tensor sits at (char*)data + byte_offset + (sum_d i_d * strides[d]) * itemsize.
 * shape and strides have ndim entries; strides are in elements, and NULL strides mean compact
 * row-major. */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

/* The unversioned capsule of DLPack before 1.0 (still produced by older numpy and PyTorch).
 * The consumer calls deleter(self) once when done; deleter may be NULL (nothing to free). */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#ifdef __cplusplus
}  // extern "C"
#endif

#elif !defined(DLPACK_MAJOR_VERSION) /* a pre-1.0 dlpack.h came first: add the 1.0 capsule only */
#define CTORCH_DLPACK_ADD_VERSIONED
#endif

#ifdef CTORCH_DLPACK_ADD_VERSIONED
#undef CTORCH_DLPACK_ADD_VERSIONED

#ifdef __cplusplus
extern "C" {
#endif

/* A DLPack version: major changes break the ABI, minor ones only add. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0) /* the consumer must not write the data */
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1) /* the producer made a copy for this capsule */

/* The DLPack 1.0 capsule: version first, so a consumer can refuse an unknown major version before
 * reading any other field. The consumer calls deleter(self) once when done; deleter may be NULL. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* CTORCH_DLPACK_ADD_VERSIONED */

#endif /* CTORCH_DLPACK_H */
