#include "harness/distributed/local_launcher.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>

#include "harness/os/scoped_signal_handlers.h"

extern char** environ;

namespace speedbench::distributed {

namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop_signal = 0;
void remember_stop(int signal) { g_stop_signal = signal; }

struct Worker {
  int rank = 0;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;  // read ends of its stdout/stderr pipes
  std::string out_partial, err_partial;
  bool running = true;
  int status = 0;
};

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

bool failed(int status) { return WIFSIGNALED(status) || WEXITSTATUS(status) != 0; }

// Writes complete lines of `chunk` with the rank prefix; keeps a partial last line.
void forward_lines(int rank, std::string& partial, const char* chunk, size_t size, FILE* sink) {
  partial.append(chunk, size);
  size_t start = 0, newline;
  while ((newline = partial.find('\n', start)) != std::string::npos) {
    std::fprintf(sink, "[rank %d] %.*s\n", rank, static_cast<int>(newline - start),
                 partial.data() + start);
    start = newline + 1;
  }
  partial.erase(0, start);
  std::fflush(sink);
}

void drain(Worker& w, int& fd, std::string& partial, FILE* sink) {
  if (fd < 0) return;
  char buffer[4096];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    forward_lines(w.rank, partial, buffer, static_cast<size_t>(n), sink);
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    if (!partial.empty()) forward_lines(w.rank, partial, "\n", 1, sink);
    ::close(fd);
    fd = -1;
  }
}

Worker spawn_worker(const LocalLaunch& launch, int rank, int port) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("launcher: pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);

  std::vector<std::string> env_strings;
  static const char* kContract[] = {"RANK=",        "LOCAL_RANK=",  "WORLD_SIZE=",
                                    "MASTER_ADDR=", "MASTER_PORT=", "SPEEDBENCH_PARENT_PID="};
  for (char** e = environ; *e != nullptr; ++e) {
    bool replaced = false;
    for (const char* key : kContract) replaced |= std::strncmp(*e, key, std::strlen(key)) == 0;
    if (!replaced) env_strings.emplace_back(*e);
  }
  env_strings.push_back("RANK=" + std::to_string(rank));
  env_strings.push_back("LOCAL_RANK=" + std::to_string(rank));
  env_strings.push_back("WORLD_SIZE=" + std::to_string(launch.nproc));
  env_strings.push_back("MASTER_ADDR=" + launch.master_addr);
  env_strings.push_back("MASTER_PORT=" + std::to_string(port));
  env_strings.push_back("SPEEDBENCH_PARENT_PID=" +
                        std::to_string(::getpid()));  // die with the launcher
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv = launch.argv;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);

  Worker w;
  w.rank = rank;
  const int rc = posix_spawn(&w.pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    throw std::runtime_error("launcher: cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  w.out_fd = out_pipe[0];
  w.err_fd = err_pipe[0];
  return w;
}

void signal_running(std::vector<Worker>& workers, int signal) {
  for (auto& w : workers) {
    if (w.running) ::kill(w.pid, signal);
  }
}

// Waits up to 100 ms for output from any worker and forwards what came, line by line.
void forward_output(std::vector<Worker>& workers) {
  std::vector<pollfd> fds;
  std::vector<std::pair<Worker*, bool>> owners;  // (worker, is stdout)
  for (auto& w : workers) {
    if (w.out_fd >= 0) {
      fds.push_back({w.out_fd, POLLIN, 0});
      owners.push_back({&w, true});
    }
    if (w.err_fd >= 0) {
      fds.push_back({w.err_fd, POLLIN, 0});
      owners.push_back({&w, false});
    }
  }
  if (!fds.empty())
    ::poll(fds.data(), fds.size(), 100);
  else
    ::usleep(100 * 1000);
  for (size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    auto& [w, is_out] = owners[i];
    if (is_out)
      drain(*w, w->out_fd, w->out_partial, stdout);
    else
      drain(*w, w->err_fd, w->err_partial, stderr);
  }
}

// Reaps the workers that ended. The first failure (before any stop was sent) is the run's: it
// is kept in `failure`, and the other workers are asked to stop.
void reap_ended(std::vector<Worker>& workers, std::string& failure,
                std::optional<Clock::time_point>& stop_sent) {
  for (auto& w : workers) {
    if (!w.running || ::waitpid(w.pid, &w.status, WNOHANG) != w.pid) continue;
    w.running = false;
    if (failed(w.status) && failure.empty() && !stop_sent) {
      failure = "rank " + std::to_string(w.rank) + " " + describe_exit(w.status);
      std::fprintf(stderr, "[launcher] %s: stopping the other workers\n", failure.c_str());
      signal_running(workers, SIGTERM);
      stop_sent = Clock::now();
    }
  }
}

}  // namespace

int find_free_port(const std::string& address) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (fd < 0 || ::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("launcher: cannot find a free port on " + address);
  }
  socklen_t length = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  size_t start = 0, end;
  while ((end = raw.find('\0', start)) != std::string::npos) {
    argv.push_back(raw.substr(start, end - start));
    start = end + 1;
  }
  if (argv.empty()) throw std::runtime_error("launcher: cannot read /proc/self/cmdline");
  argv[0] = std::filesystem::canonical("/proc/self/exe").string();
  return argv;
}

int launch_local_workers(const LocalLaunch& launch) {
  const int port = launch.master_port > 0 ? launch.master_port : find_free_port(launch.master_addr);
  std::fprintf(stderr, "[launcher] %d workers, rendezvous at %s:%d\n", launch.nproc,
               launch.master_addr.c_str(), port);
  g_stop_signal = 0;
  const ScopedSignalHandlers stop_signals({SIGINT, SIGTERM}, remember_stop);
  const ScopedSignalHandlers child_exits_kept({SIGCHLD}, SIG_DFL);

  std::vector<Worker> workers;
  for (int rank = 0; rank < launch.nproc; ++rank)
    workers.push_back(spawn_worker(launch, rank, port));

  std::string failure;  // the first failure, which stops the others
  std::optional<Clock::time_point> stop_sent;
  bool forwarded_signal = false;
  auto alive = [&] {
    for (const auto& w : workers) {
      if (w.running || w.out_fd >= 0 || w.err_fd >= 0) return true;
    }
    return false;
  };
  while (alive()) {
    forward_output(workers);
    reap_ended(workers, failure, stop_sent);
    if (g_stop_signal != 0 && !forwarded_signal) {
      signal_running(workers, g_stop_signal);
      forwarded_signal = true;
      stop_sent = Clock::now();
    }
    if (stop_sent &&
        std::chrono::duration<double>(Clock::now() - *stop_sent).count() > launch.stop_grace_s) {
      signal_running(workers, SIGKILL);
    }
  }
  if (g_stop_signal != 0) return 130;
  if (!failure.empty()) {
    std::fprintf(stderr, "[launcher] the run failed: %s\n", failure.c_str());
    return 1;
  }
  return 0;
}

}  // namespace speedbench::distributed
