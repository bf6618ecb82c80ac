#include "harness/techniques/backend_flags.h"

#include <ATen/Context.h>

namespace speedbench {

void apply_backend_flags(const Techniques& techniques) {
  auto& context = at::globalContext();
  context.setBenchmarkCuDNN(techniques.cudnn_benchmark);
  context.setAllowTF32CuBLAS(techniques.tf32);
  context.setAllowTF32CuDNN(techniques.tf32);
}

}  // namespace speedbench
