// random_common.h - what the random operators share beyond the fill loop.
#pragma once

#include "core/error.h"
#include "dispatch/value.h"
#include "runtime/generator.h"

namespace ct::ops {

/// The generator a random operator draws from: its Generator argument, or the default generator of
/// the output's device. CT_ERROR_DEVICE when a given generator belongs to another device.
inline runtime::Generator& random_generator(const Value& v, Device d) {
  runtime::Generator* g = v.generator();
  if (!g) return runtime::Generator::default_for(d);
  CT_CHECK(g->device().type == d.type, CT_ERROR_DEVICE, "random: the generator is for ", device_string(g->device()),
           " but the tensor is on ", device_string(d), ". Pass a generator created for ", device_string(d));
  return *g;
}

}  // namespace ct::ops
