// A block of host memory whose size the run's seed draws, held from the first training step to
// the run's end, so that repetitions sample the C library allocator's layout instead of repeating
// one.
//
// Why: glibc's malloc places each block by the whole allocation history before it, so a run's
// heap layout, and with it the process's peak RSS and (under glibc's defaults) which blocks are
// mapped afresh each step, is one draw that every repetition of a config repeats: the
// seed changes the numbers, not the sizes. The same kept-heap character-LSTM config read 704 to
// 810 MiB of peak RSS as only its workload's name changed, each the same in every repetition;
// with this block, 15 seeds spread it over 706 to 833 MiB (README: "The heap's layout is drawn
// per run"). Stabilizer's argument (Curtsinger and Berger, ASPLOS 2013), at one block's scale.
#pragma once

#include <cstdint>
#include <memory>

namespace speedbench {

// The draw: log-uniform in [kMinHeapLayoutBytes, kMaxHeapLayoutBytes), a pure function of the
// seed (splitmix64), so that a record's seed reproduces its layout.
constexpr int64_t kMinHeapLayoutBytes = 64;
constexpr int64_t kMaxHeapLayoutBytes = int64_t{1} << 20;
int64_t heap_layout_bytes(int64_t seed);

// Holds the drawn block until destroyed. Only its first byte is written, so that the compiler
// keeps the allocation; the rest is never touched and adds no resident pages.
class HeapLayoutDraw {
 public:
  explicit HeapLayoutDraw(int64_t seed);
  int64_t bytes() const { return bytes_; }

 private:
  struct FreeBlock {
    void operator()(void* block) const;
  };
  int64_t bytes_;
  std::unique_ptr<void, FreeBlock> block_;
};

}  // namespace speedbench
