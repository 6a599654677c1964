// isa.h - which instruction set the CPU kernels run with.
//
// Note [CPU capability dispatch]
// The library is built for the baseline x86-64 ISA, so it runs on any x86-64 machine. The loop
// bodies of the two engines (loop.h, reduce.h) are instantiated twice: as built, and inside a
// function compiled with target("avx2,fma"); each call picks one by a flag read once from the CPU.
// The body is the same source either way. The library is compiled with -ffp-contract=off, so the
// AVX2 build never fuses a multiply and an add that the baseline build rounds separately: both
// give the same bits, and results do not depend on the machine's vector width. Loops whose
// arithmetic, not memory, sets their speed add a third build, for AVX-512, under the same rules:
// the compiler's fused kernels (src/compile/fuse.cpp), the elementwise engine's float32 functions
// of one float32 input (loop.h) and softmax's rows (softmax.cpp).
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CT_HAVE_AVX2_KERNELS 1
#define CT_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define CT_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma")))
#else
#define CT_HAVE_AVX2_KERNELS 0
#endif

namespace ct::cpu {

/// True when the CPU supports AVX2 and FMA, this build has kernels for them, and the environment
/// variable CTORCH_CPU_CAPABILITY is not "default".
bool has_avx2();
/// True when, besides, the CPU has AVX-512 (F, DQ, VL) and CTORCH_CPU_CAPABILITY is not "default"
/// or "avx2". The arithmetic-bound loops of Note [CPU capability dispatch] use it (they issue half
/// the instructions there); lane for lane they compute what the AVX2 loops do, so the bits agree.
bool has_avx512();

}  // namespace ct::cpu
