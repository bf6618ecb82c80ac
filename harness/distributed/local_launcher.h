// `speedbench run-one --nproc N`: starts N workers of this same command on this machine with
// torchrun's environment contract (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1,
// MASTER_PORT = a free port), prefixes each line they print with "[rank K] ", forwards SIGINT and
// SIGTERM to them, and fails the whole run as soon as one worker fails (the others are stopped).
#pragma once

#include <string>
#include <vector>

namespace speedbench::distributed {

struct LocalLaunch {
  int nproc = 2;
  std::vector<std::string> argv;  // the worker command (argv[0] an executable path)
  std::string master_addr = "127.0.0.1";
  int master_port = 0;       // 0: pick a free port on master_addr
  double stop_grace_s = 10;  // how long a stopped worker gets before SIGKILL
};

// Runs the workers to the end. Returns 0 when all exited with 0; otherwise 1 (or 130 when
// interrupted), after printing which rank failed and how.
int launch_local_workers(const LocalLaunch& launch);

// A TCP port on `address` that nothing listens on right now.
int find_free_port(const std::string& address);

// This process's own command line (from /proc/self/cmdline), argv[0] resolved to /proc/self/exe.
std::vector<std::string> own_command_line();

}  // namespace speedbench::distributed
