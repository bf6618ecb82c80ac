// One handler for some signals for the length of a scope: the handlers it replaced are put back
// when the scope ends, also when an exception ends it. The suite runner and the DDP launcher use
// it to turn SIGINT and SIGTERM into "stop" while their child processes run, and to set SIGCHLD
// back to its default: an ignored SIGCHLD survives exec, so whoever starts speedbench may leave
// it ignored, and then the kernel reaps each child itself and waitpid cannot say how it ended
// (the suite runner spun on waitpid at 100% CPU forever, the launcher waited for ever).
#pragma once

#include <csignal>
#include <initializer_list>
#include <utility>
#include <vector>

namespace speedbench {

class ScopedSignalHandlers {
 public:
  ScopedSignalHandlers(std::initializer_list<int> signals, void (*handler)(int)) {
    struct sigaction action {};
    action.sa_handler = handler;
    for (const int signal : signals) {
      struct sigaction previous {};
      sigaction(signal, &action, &previous);
      replaced_.emplace_back(signal, previous);
    }
  }
  ~ScopedSignalHandlers() {
    for (const auto& [signal, previous] : replaced_) sigaction(signal, &previous, nullptr);
  }
  ScopedSignalHandlers(const ScopedSignalHandlers&) = delete;
  ScopedSignalHandlers& operator=(const ScopedSignalHandlers&) = delete;

 private:
  std::vector<std::pair<int, struct sigaction>> replaced_;
};

}  // namespace speedbench
