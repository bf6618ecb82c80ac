// exit_skipping_static_destructors, in a forked child: the child ends with the code given and
// with what it printed to a pipe (fully buffered), and a static object's destructor does not run;
// the same child ending with std::exit runs it (so the test can see one run).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "harness/os/process_exit.h"
#include "tests/test_support.h"

namespace speedbench {
namespace {

using testing::ScopedEnvironmentVariable;
using testing::TempDir;

// Leaves a file behind when it is destroyed: the mark of static destructors having run.
class MarkOnDestruction {
 public:
  explicit MarkOnDestruction(std::string path) : path_(std::move(path)) {}
  ~MarkOnDestruction() { std::ofstream(path_) << "destructor ran\n"; }

 private:
  std::string path_;
};

struct ChildEnd {
  int exit_code = -1;
  std::string output;
};

// Forks a child whose stdout is a pipe to us; it makes a static MarkOnDestruction, prints a line
// (held in stdio's buffer: a pipe is fully buffered) and ends through `end_child` with code 3.
template <typename EndChild>
ChildEnd run_child(const std::string& mark_path, EndChild end_child) {
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  std::fflush(nullptr);  // nothing of ours printed twice, by the child too
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    static MarkOnDestruction mark(mark_path);
    std::printf("printed before the exit\n");
    end_child(3);
    std::_Exit(99);  // never reached: were it, the child must not go on to run our tests
  }
  ::close(pipe_fds[1]);
  ChildEnd end;
  char buffer[256];
  ssize_t got = 0;
  while ((got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) end.output.append(buffer, got);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return end;
}

TEST(ProcessExitTest, EndsWithTheCodeAndTheOutputButNoStaticDestructor) {
  TempDir dir;
  const auto mark = dir.file("mark");
  const auto end = run_child(mark, [](int code) { exit_skipping_static_destructors(code); });
  EXPECT_EQ(end.exit_code, 3);
  EXPECT_EQ(end.output, "printed before the exit\n");
  EXPECT_FALSE(std::filesystem::exists(mark));
}

TEST(ProcessExitTest, TheNormalExitRunsTheStaticDestructor) {
  TempDir dir;
  const auto mark = dir.file("mark");
  const auto end = run_child(mark, [](int code) { std::exit(code); });
  EXPECT_EQ(end.exit_code, 3);
  EXPECT_EQ(end.output, "printed before the exit\n");
  EXPECT_TRUE(std::filesystem::exists(mark));
}

TEST(ProcessExitTest, IsAskedForOnlyByTheValueOne) {
  {
    const ScopedEnvironmentVariable variable(kQuickExitVariable, "1");
    EXPECT_TRUE(quick_exit_asked());
  }
  for (const char* value : {"0", "", "yes"}) {
    const ScopedEnvironmentVariable variable(kQuickExitVariable, value);
    EXPECT_FALSE(quick_exit_asked()) << '"' << value << '"';
  }
  const ScopedEnvironmentVariable unset(kQuickExitVariable, std::nullopt);
  EXPECT_FALSE(quick_exit_asked());
}

}  // namespace
}  // namespace speedbench
