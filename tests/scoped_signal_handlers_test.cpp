// ScopedSignalHandlers: the handler is the one in force inside the scope, and the handler it
// replaced is back after it, whether the scope ends normally or by an exception.
#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>

#include "harness/os/scoped_signal_handlers.h"

namespace speedbench {
namespace {

volatile sig_atomic_t g_scoped_handler_calls = 0;
volatile sig_atomic_t g_outer_handler_calls = 0;
void count_in_scoped_handler(int) { g_scoped_handler_calls += 1; }
void count_in_outer_handler(int) { g_outer_handler_calls += 1; }

// Runs the test body with count_in_outer_handler on SIGUSR1 and SIGUSR2, the default after.
class ScopedSignalHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_scoped_handler_calls = 0;
    g_outer_handler_calls = 0;
    std::signal(SIGUSR1, count_in_outer_handler);
    std::signal(SIGUSR2, count_in_outer_handler);
  }
  void TearDown() override {
    std::signal(SIGUSR1, SIG_DFL);
    std::signal(SIGUSR2, SIG_DFL);
  }
};

TEST_F(ScopedSignalHandlersTest, HandlesEachSignalInsideTheScopeAndRestoresTheOldHandlerAfter) {
  {
    const ScopedSignalHandlers scoped({SIGUSR1, SIGUSR2}, count_in_scoped_handler);
    std::raise(SIGUSR1);
    std::raise(SIGUSR2);
    EXPECT_EQ(g_scoped_handler_calls, 2);
    EXPECT_EQ(g_outer_handler_calls, 0);
  }
  std::raise(SIGUSR1);
  std::raise(SIGUSR2);
  EXPECT_EQ(g_scoped_handler_calls, 2);
  EXPECT_EQ(g_outer_handler_calls, 2);
}

TEST_F(ScopedSignalHandlersTest, RestoresTheOldHandlerWhenAnExceptionLeavesTheScope) {
  EXPECT_THROW(
      {
        const ScopedSignalHandlers scoped({SIGUSR1}, count_in_scoped_handler);
        throw std::runtime_error("a record could not be read");
      },
      std::runtime_error);
  std::raise(SIGUSR1);
  EXPECT_EQ(g_scoped_handler_calls, 0);
  EXPECT_EQ(g_outer_handler_calls, 1);
}

}  // namespace
}  // namespace speedbench
