#include "harness/distributed/launch_environment.h"

#include <cstdlib>

#include "harness/config/config_error.h"

namespace speedbench::distributed {

namespace {

int parse_int(const EnvLookup& lookup, const std::string& name, int min, int max) {
  const auto text = lookup(name);
  if (!text) {
    throw ConfigError("environment", name,
                      "is not set; a distributed worker needs RANK, WORLD_SIZE, "
                      "MASTER_ADDR and MASTER_PORT (or SLURM_PROCID and SLURM_NTASKS)");
  }
  char* end = nullptr;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (text->empty() || *end != '\0' || value < min || value > max) {
    throw ConfigError("environment", name,
                      "got \"" + *text + "\", expected an integer in [" + std::to_string(min) +
                          ", " + std::to_string(max) + "]");
  }
  return static_cast<int>(value);
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
}

std::optional<LaunchEnvironment> read_launch_environment(const EnvLookup& lookup) {
  LaunchEnvironment env;
  if (lookup("RANK") || lookup("WORLD_SIZE")) {
    env.launcher = "torchrun";
    env.world_size = parse_int(lookup, "WORLD_SIZE", 1, 1 << 20);
    env.rank = parse_int(lookup, "RANK", 0, env.world_size - 1);
    env.local_rank =
        lookup("LOCAL_RANK") ? parse_int(lookup, "LOCAL_RANK", 0, env.world_size - 1) : env.rank;
  } else if (lookup("SLURM_PROCID") && lookup("SLURM_NTASKS")) {
    env.launcher = "slurm";
    env.world_size = parse_int(lookup, "SLURM_NTASKS", 1, 1 << 20);
    env.rank = parse_int(lookup, "SLURM_PROCID", 0, env.world_size - 1);
    env.local_rank =
        lookup("SLURM_LOCALID") ? parse_int(lookup, "SLURM_LOCALID", 0, env.world_size - 1) : 0;
  } else {
    return std::nullopt;
  }
  if (const auto addr = lookup("MASTER_ADDR")) {
    if (addr->empty())
      throw ConfigError("environment", "MASTER_ADDR", "is empty; expected a host name or address");
    env.master_addr = *addr;
  } else if (env.world_size > 1) {
    throw ConfigError("environment", "MASTER_ADDR",
                      "is not set; expected rank 0's host (127.0.0.1 for one machine)");
  }
  if (lookup("MASTER_PORT")) {
    env.master_port = parse_int(lookup, "MASTER_PORT", 1, 65535);
  } else if (env.world_size > 1) {
    throw ConfigError("environment", "MASTER_PORT",
                      "is not set; expected a free TCP port on MASTER_ADDR");
  }
  return env;
}

bool is_loopback_address(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

}  // namespace speedbench::distributed
