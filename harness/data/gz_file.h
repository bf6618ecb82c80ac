// A zlib gzFile that closes itself, for the readers of gzipped (or plain) dataset files.
#pragma once

#include <zlib.h>

#include <memory>

namespace speedbench::data {

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

}  // namespace speedbench::data
