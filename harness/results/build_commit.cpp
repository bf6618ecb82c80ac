// A file of its own, outside the unity batches: a new commit recompiles only this one.
#include "harness/results/build_commit.h"

#include "speedbench_git_commit.h"  // generated in the build folder

namespace speedbench {

const char* build_git_commit() { return SPEEDBENCH_GIT_COMMIT; }

}  // namespace speedbench
