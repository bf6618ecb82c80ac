// Counts the host<->device synchronisations the harness itself forces (a .item() read of the
// loss, a blocking copy to the host). Each such place calls count_host_sync(), so a record can
// state syncs per step for the baseline and for sync_avoidance alike.
#pragma once

#include <cstdint>

namespace speedbench::measure {

void count_host_sync();
int64_t host_sync_count();
void reset_host_sync_count();

}  // namespace speedbench::measure
