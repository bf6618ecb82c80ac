#include "harness/measure/sync_counter.h"

#include <atomic>

namespace speedbench::measure {

namespace {
std::atomic<int64_t> g_host_syncs{0};
}

void count_host_sync() { g_host_syncs.fetch_add(1, std::memory_order_relaxed); }
int64_t host_sync_count() { return g_host_syncs.load(std::memory_order_relaxed); }
void reset_host_sync_count() { g_host_syncs.store(0, std::memory_order_relaxed); }

}  // namespace speedbench::measure
