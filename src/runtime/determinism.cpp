#include "runtime/determinism.h"

namespace ct::runtime::detail {
std::atomic<int> deterministic_mode{0};
}
