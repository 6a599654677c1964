#include "runtime/generator.h"

#include <cstring>

#include "core/device_backend.h"
#include "core/error.h"
#include "core/object_pool.h"

namespace ct::runtime {
namespace {

using GeneratorPool = SlotPool<sizeof(Generator), alignof(Generator)>;

constexpr uint32_t kStateMagic = 0x50485831;  // "1XHP": a Philox state
constexpr uint32_t kStateVersion = 1;

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

namespace {

// The default generators of devices other than the cpu, made on first use; and the seed the last
// manual_seed_all gave, which they start from. Guarded by g_defaults_mu; never freed.
std::mutex g_defaults_mu;
Generator* g_defaults[kNumDeviceTypes][128] = {};
uint64_t g_all_seed = Generator::kDefaultSeed;

}  // namespace

Generator& Generator::default_for(Device d) {
  static Generator* cpu = [] {
    Generator* g = new Generator(kCPU);  // leaked on purpose: used until the process ends
    g->is_default_ = true;
    return g;
  }();
  if (d.is_cpu() || d.is_meta()) return *cpu;
  require_backend(d, "random");  // a device this process has
  std::lock_guard<std::mutex> lock(g_defaults_mu);
  Generator*& g = g_defaults[static_cast<int>(d.type)][d.index];
  if (!g) {
    g = new Generator(d, g_all_seed);
    g->is_default_ = true;
  }
  return *g;
}

void Generator::manual_seed_all(uint64_t seed) {
  default_for(kCPU).manual_seed(seed);
  std::lock_guard<std::mutex> lock(g_defaults_mu);
  g_all_seed = seed;
  for (auto& row : g_defaults)
    for (Generator* g : row)
      if (g) g->manual_seed(seed);
}

Generator* Generator::create(Device d) { return new (GeneratorPool::allocate()) Generator(d); }

PhiloxRange Generator::reserve(uint64_t blocks) {
  std::lock_guard<std::mutex> g(mu_);
  CT_CHECK(offset_ <= UINT64_MAX - blocks, CT_ERROR_INVALID_ARGUMENT, "random: the generator's stream is used up (offset ",
           offset_, " + ", blocks, " blocks passes 2^64). Reseed it with manual_seed");
  PhiloxRange r{seed_, offset_};
  offset_ += blocks;
  return r;
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> g(mu_);
  return seed_;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> g(mu_);
  return offset_;
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> g(mu_);
  offset_ = offset;
}

void Generator::get_state(uint8_t* out) const {
  std::lock_guard<std::mutex> g(mu_);
  put_u32(out, kStateMagic);
  put_u32(out + 4, kStateVersion);
  put_u64(out + 8, seed_);
  put_u64(out + 16, offset_);
}

void Generator::set_state(const uint8_t* state) {
  CT_CHECK(get_u32(state) == kStateMagic, CT_ERROR_FORMAT,
           "set_state: these bytes are not a generator state (wrong magic number). Pass what get_state returned");
  CT_CHECK(get_u32(state + 4) == kStateVersion, CT_ERROR_FORMAT, "set_state: state format version ",
           get_u32(state + 4), " is not one this ctorch reads (", kStateVersion, ")");
  std::lock_guard<std::mutex> g(mu_);
  seed_ = get_u64(state + 8);
  offset_ = get_u64(state + 16);
}

void Generator::release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1 || is_default_) return;
  this->~Generator();
  // As TensorImpl::destroy: the dead tag stays readable in the slot (Note [Handle poisoning]).
  *reinterpret_cast<volatile uint32_t*>(static_cast<void*>(this)) = 0;
  GeneratorPool::deallocate(this);
}

}  // namespace ct::runtime
