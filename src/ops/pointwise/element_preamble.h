// element_preamble.h - the element functions' source (element_math.h and fns.h), as the text a
// generated CUDA kernel starts with (fused kernels, and the eager kernels of operators the CUDA
// library's table lacks); generated at build time by cmake/embed_source.cmake. See Note [Element
// functions].
#pragma once

namespace ct {

/// The device branch of element_math.h and every functor of fns.h, self-contained (no #include).
extern const char kElementPreamble[];

}  // namespace ct
