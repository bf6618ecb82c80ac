#include "harness/os/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace speedbench {

std::optional<PipedChild> spawn_with_pipe(const std::vector<std::string>& argv, int stream) {
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], stream);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);  // the child holds its own copy: the read end sees EOF once it is gone
  if (spawned != 0) {
    ::close(pipe_ends[0]);
    return std::nullopt;
  }
  return PipedChild{pid, pipe_ends[0]};
}

void read_until_closed(int read_fd, const std::function<void(const char*, size_t)>& consume) {
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(read_fd, buffer, sizeof buffer);
    if (got > 0) consume(buffer, static_cast<size_t>(got));
    if (got == 0 || (got < 0 && errno != EINTR)) break;
  }
  ::close(read_fd);
}

std::string wait_for_child(pid_t pid) {
  int status = 0;
  pid_t waited = -1;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  if (waited < 0) return "could not learn how it ended: " + std::string(strerror(errno));
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WEXITSTATUS(status) != 0) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "";
}

}  // namespace speedbench
