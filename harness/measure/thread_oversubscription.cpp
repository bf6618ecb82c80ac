#include "harness/measure/thread_oversubscription.h"

#include <algorithm>

namespace speedbench::measure {

std::optional<std::string> thread_oversubscription(int64_t threads, int64_t ranks, int64_t cores) {
  ranks = std::max<int64_t>(ranks, 1);
  const int64_t total = threads * ranks;
  if (cores <= 0 || total <= cores) return std::nullopt;
  const std::string split =
      ranks > 1 ? " (" + std::to_string(ranks) + " ranks x " + std::to_string(threads) + ")" : "";
  return std::to_string(total) + " threads" + split + " on " + std::to_string(cores) +
         (cores == 1 ? " core" : " cores");
}

int64_t idle_cores_left(int64_t threads, int64_t ranks, int64_t loader_workers, int64_t cores) {
  if (threads <= 0) return 0;  // not known: none counted idle
  const int64_t busy = threads * std::max<int64_t>(ranks, 1) + loader_workers;
  return std::max<int64_t>(cores - busy, 0);
}

}  // namespace speedbench::measure
