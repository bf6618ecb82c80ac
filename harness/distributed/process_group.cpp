#include "harness/distributed/process_group.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if SPEEDBENCH_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

#include "harness/config/config_error.h"

namespace speedbench::distributed {

// Defined in harness/cuda/nccl_backend.cpp (or its stand-in when this build has no NCCL).
c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                    int rank, int world_size, int local_rank,
                                                    std::chrono::milliseconds timeout);

namespace {

std::string where(const LaunchEnvironment& env) {
  return env.master_addr + ":" + std::to_string(env.master_port);
}

// Rank 0's listening socket, bound to MASTER_ADDR only (loopback unless MASTER_ADDR says
// otherwise); the TCPStore server takes it over. Binding it ourselves makes "port in use" clear.
int listen_on_master_address(const LaunchEnvironment& env) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  const auto port = std::to_string(env.master_port);
  if (getaddrinfo(env.master_addr.c_str(), port.c_str(), &hints, &addresses) != 0 || !addresses) {
    throw ConfigError(
        "environment", "MASTER_ADDR",
        "cannot resolve \"" + env.master_addr + "\"; expected this machine's address");
  }
  int fd = -1;
  int bind_errno = 0;
  for (auto* a = addresses; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      bind_errno = errno;
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(addresses);
  if (fd < 0) {
    throw ConfigError("environment", "MASTER_PORT",
                      "rank 0 cannot listen on " + where(env) + ": " + std::strerror(bind_errno) +
                          (bind_errno == EADDRINUSE ? " (another run or program holds this port; "
                                                      "choose another MASTER_PORT)"
                                                    : ""));
  }
  return fd;
}

c10::intrusive_ptr<c10d::Backend> make_gloo_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                    const LaunchEnvironment& env,
                                                    std::chrono::milliseconds timeout) {
#if SPEEDBENCH_WITH_GLOO
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(is_loopback_address(env.master_addr)
                                 ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                 : c10d::ProcessGroupGloo::createDefaultDevice());
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world_size, options);
#else
  throw std::runtime_error(
      "this speedbench was built without gloo's headers, so it cannot make a CPU process group; "
      "install libgloo-dev (scripts/install-deps does) and rebuild");
#endif
}

}  // namespace

bool gloo_available() { return SPEEDBENCH_WITH_GLOO != 0; }

std::shared_ptr<ProcessGroup> join_process_group(const LaunchEnvironment& env,
                                                 const std::string& device,
                                                 std::chrono::milliseconds timeout) {
  auto group = std::make_shared<ProcessGroup>();
  group->rank = env.rank;
  group->world_size = env.world_size;
  group->local_rank = env.local_rank;
  group->launcher = env.launcher;
  group->timeout = timeout;
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(env.master_port);
  options.isServer = env.rank == 0;
  options.numWorkers = static_cast<size_t>(env.world_size);
  options.waitWorkers = true;
  options.timeout = timeout;
  if (options.isServer) options.masterListenFd = listen_on_master_address(env);
  try {
    group->store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
  } catch (const std::exception& error) {
    throw std::runtime_error("rank " + std::to_string(env.rank) + ": rendezvous at " + where(env) +
                             " failed within " + std::to_string(timeout.count() / 1000) +
                             " s (are all " + std::to_string(env.world_size) +
                             " workers started?): " + error.what());
  }
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("speedbench", group->store);
  if (device == "cuda") {
    group->backend = "nccl";
    group->collectives =
        make_nccl_backend(prefixed, env.rank, env.world_size, env.local_rank, timeout);
  } else {
    group->backend = "gloo";
    group->collectives = make_gloo_backend(prefixed, env, timeout);
  }
  return group;
}

}  // namespace speedbench::distributed
