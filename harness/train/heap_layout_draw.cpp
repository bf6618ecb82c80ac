#include "harness/train/heap_layout_draw.h"

#include <cmath>
#include <cstdlib>
#include <new>

namespace speedbench {
namespace {

// splitmix64 (Steele, Lea and Flood, 2014): one well-mixed 64-bit value per seed.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

int64_t heap_layout_bytes(int64_t seed) {
  const double unit = static_cast<double>(mix(static_cast<uint64_t>(seed)) >> 11) * 0x1.0p-53;
  const double octaves = std::log2(static_cast<double>(kMaxHeapLayoutBytes / kMinHeapLayoutBytes));
  const auto bytes = static_cast<int64_t>(kMinHeapLayoutBytes * std::exp2(unit * octaves));
  return bytes < kMaxHeapLayoutBytes ? bytes : kMaxHeapLayoutBytes - 1;
}

void HeapLayoutDraw::FreeBlock::operator()(void* block) const { std::free(block); }

HeapLayoutDraw::HeapLayoutDraw(int64_t seed)
    : bytes_(heap_layout_bytes(seed)), block_(std::malloc(static_cast<size_t>(bytes_))) {
  if (!block_) throw std::bad_alloc();
  *static_cast<volatile char*>(block_.get()) = 0;
}

}  // namespace speedbench
