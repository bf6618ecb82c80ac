// libFuzzer target: bytes -> a file -> the IDX reader (first byte picks labels or images). A
// malformed file may only end as a ConfigError naming the file; anything else is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "harness/config/config_error.h"
#include "harness/data/idx_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const std::string path = "/tmp/speedbench-idx-fuzz-" + std::to_string(::getpid());
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) std::abort();
  std::fwrite(data + 1, 1, size - 1, file);  // zlib reads plain files as well as gzip
  std::fclose(file);
  try {
    speedbench::data::read_idx_file(path, data[0] & 1 ? 3 : 1);
  } catch (const speedbench::ConfigError&) {
  }
  return 0;
}
