#include "harness/os/process_exit.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

// gcc --coverage writes its counts from a destructor too (the coverage preset defines this).
#if defined(SPEEDBENCH_COVERAGE)
extern "C" void __gcov_dump();
#endif

namespace speedbench {

bool quick_exit_asked() {
  const char* value = std::getenv(kQuickExitVariable);
  return value != nullptr && std::string(value) == "1";
}

void exit_skipping_static_destructors(int exit_code) {
  std::cout.flush();     // its own buffer, were sync_with_stdio ever turned off
  std::fflush(nullptr);  // stdout: when it is a pipe or a file, a command's whole output waits here
#if defined(SPEEDBENCH_COVERAGE)
  __gcov_dump();
#endif
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();  // what LeakSanitizer would do at exit (where detect_leaks is on)
#endif
  std::_Exit(exit_code);
}

}  // namespace speedbench
