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

}  // namespace speedbench::measure
