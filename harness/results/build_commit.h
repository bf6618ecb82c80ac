// The commit this binary was built from ("+dirty" when tracked files had local changes), as
// cmake/GitCommit.cmake found it at build time. Torch-free.
#pragma once

namespace speedbench {

const char* build_git_commit();

}  // namespace speedbench
