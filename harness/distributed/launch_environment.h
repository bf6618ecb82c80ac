// The environment contract of a distributed worker, as torchrun, srun and our own launcher set it:
// RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (torchrun), or SLURM_PROCID,
// SLURM_LOCALID, SLURM_NTASKS (srun) with MASTER_ADDR/MASTER_PORT exported by the batch script.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace speedbench::distributed {

struct LaunchEnvironment {
  int rank = 0;
  int local_rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";  // where rank 0's rendezvous store listens
  int master_port = 29500;
  std::string launcher;  // "torchrun" (or speedbench's own) | "slurm"
};

// Looks a variable up; returns nullopt when unset (tests pass a map instead of getenv).
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

// The contract, or nullopt when this process was not started as a distributed worker (neither
// RANK/WORLD_SIZE nor SLURM_PROCID/SLURM_NTASKS set). A partial or malformed contract is a
// ConfigError naming the variable ("environment", "WORLD_SIZE", what was expected).
std::optional<LaunchEnvironment> read_launch_environment(const EnvLookup& lookup);

// Whether `address` is a loopback address (the store then listens on loopback only).
bool is_loopback_address(const std::string& address);

}  // namespace speedbench::distributed
