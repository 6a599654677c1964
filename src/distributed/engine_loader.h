// engine_loader.h - finds and loads the engine modules (Note [Engine modules] in engine.h).
#pragma once

#include <string>

#include "distributed/engine.h"

namespace ct::dist {

/// The engine named name ("gloo", "mpi", "nccl"), loaded once per process. Raises
/// CT_ERROR_INVALID_ARGUMENT for an unknown name (listing the known ones) and CT_ERROR_BACKEND when
/// the module was not built or does not load, naming what to install.
const ct_engine& load_engine(const std::string& name);

}  // namespace ct::dist
