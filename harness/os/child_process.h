// Starting a child process with one of its output streams on a pipe to us, and learning how it
// ended. The suite runner starts every run this way (the child's stderr teed through us, to keep
// a failed run's error line) and checks a second binary's `--version` (its stdout read).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace speedbench {

struct PipedChild {
  pid_t pid = 0;
  int read_fd = -1;  // the child's stream: the caller reads it to the end, then closes it
};

// Starts `argv` (argv[0] is a path, not looked up in PATH) with its `stream` (STDOUT_FILENO or
// STDERR_FILENO) on a pipe; the other streams are ours. Nothing when it could not be started.
std::optional<PipedChild> spawn_with_pipe(const std::vector<std::string>& argv, int stream);

// Reads the pipe until every writer has closed it (the child and any processes it started),
// through EINTR, handing each chunk to `consume`; then closes it.
void read_until_closed(int read_fd, const std::function<void(const char*, size_t)>& consume);

// Waits for `pid` (through EINTR) and says how it ended: "" for exit code 0, else "exited with
// code N", "killed by signal N (name)", or why waiting failed.
std::string wait_for_child(pid_t pid);

}  // namespace speedbench
