// Uncompressed copies of gzipped dataset files, kept between runs. Every run is a process of its
// own (DESIGN.md), and each one inflated Fashion-MNIST's 26 MB of gzipped training images again:
// a one-step run-one took 1.52 s on the development VM with that, 1.26 s with the copies. A copy is
// made once per version of a file (its path, size and modification time) and read as the file
// itself would be: the bytes are the same, so runs are too.
#pragma once

#include <cstdint>
#include <string>

#include "harness/data/idx_reader.h"

namespace speedbench::data {

// Files smaller than this inflate in a few milliseconds: they are read as they are.
inline constexpr std::uintmax_t kSmallestCachedFileBytes = std::uintmax_t{1} << 20;

// read_idx_file(gz_path, expected_dims), from the copy in `cache_folder` (datasets.h's
// dataset_cache_folder()), made first where this version of the file has none. Copies of other
// versions of a file of that name go, and so do partial copies over a minute old (a process
// killed while making one). Reads `gz_path` itself where the file is under `min_bytes`,
// `cache_folder` is "", or no copy can be made there. A copy that does not read is removed and
// `gz_path` is read instead, so that an error names the dataset's file, never the copy.
IdxArray read_idx_file_cached(const std::string& gz_path, int expected_dims,
                              const std::string& cache_folder,
                              std::uintmax_t min_bytes = kSmallestCachedFileBytes);

}  // namespace speedbench::data
