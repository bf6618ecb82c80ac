// Reader for the IDX format of (Fashion-)MNIST, gzipped or plain: checks the magic number,
// the element type (unsigned bytes), the dimension count and that the payload is exactly as long
// as the header says (a truncated or padded file is an error, never silently short data).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace speedbench::data {

struct IdxArray {
  std::vector<int64_t> dims;    // e.g. {60000, 28, 28}
  std::vector<uint8_t> values;  // row-major, product(dims) bytes
};

// Reads `path`; `expected_dims` is 1 for labels and 3 for images. Throws ConfigError naming the
// file and what is wrong.
IdxArray read_idx_file(const std::string& path, int expected_dims);

}  // namespace speedbench::data
