// The paths of build_paths.h, from the compile definitions tests/CMakeLists.txt gives this file.
#include "build_paths.h"

namespace speedbench::testing {

std::string speedbench_executable() { return SPEEDBENCH_EXECUTABLE; }

std::string source_dir() { return SPEEDBENCH_SOURCE_DIR; }

}  // namespace speedbench::testing
