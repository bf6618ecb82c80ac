// Joins the process group of a distributed run with PyTorch's own c10d: a TCPStore rendezvous at
// MASTER_ADDR:MASTER_PORT (rank 0 serves it, on that address only), then ProcessGroupGloo on the
// CPU or ProcessGroupNCCL on CUDA. Every collective has the group's timeout, so a dead peer ends
// the run with an error on the survivors instead of a hang.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "harness/distributed/launch_environment.h"

namespace speedbench::distributed {

struct ProcessGroup {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;    // the CUDA device of this worker
  std::string launcher;  // torchrun | slurm
  std::string backend;   // "gloo" | "nccl"
  std::chrono::milliseconds timeout{60000};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Backend> collectives;
};

// Connects this worker. `device` is "cpu" (Gloo) or "cuda" (NCCL, on device LOCAL_RANK).
// A port already in use, a peer that never arrives (within `timeout`) or a backend this build
// lacks are errors with the address, port and what to do.
std::shared_ptr<ProcessGroup> join_process_group(const LaunchEnvironment& env,
                                                 const std::string& device,
                                                 std::chrono::milliseconds timeout);

// Whether this build can make a Gloo (CPU) process group: it needs gloo's headers at build time.
bool gloo_available();

}  // namespace speedbench::distributed
