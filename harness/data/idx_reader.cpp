#include "harness/data/idx_reader.h"

#include <algorithm>
#include <cstdio>

#include "harness/config/config_error.h"
#include "harness/data/gz_file.h"

namespace speedbench::data {

namespace {

constexpr int kUnsignedByteType = 0x08;  // IDX type code for uint8
constexpr int64_t kMaxElements = int64_t{1} << 34;

// Reads exactly `size` bytes; returns how many were read (fewer means the file ended).
int64_t read_bytes(gzFile file, uint8_t* out, int64_t size) {
  int64_t total = 0;
  while (total < size) {
    const auto chunk = static_cast<unsigned>(std::min<int64_t>(size - total, 1 << 30));
    const int got = gzread(file, out + total, chunk);
    if (got <= 0) break;
    total += got;
  }
  return total;
}

uint32_t big_endian_u32(const uint8_t* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

}  // namespace

IdxArray read_idx_file(const std::string& path, int expected_dims) {
  // gzopen reads plain files too, so an uncompressed copy works the same.
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) throw ConfigError(path, "", "cannot open the IDX file (missing or unreadable)");

  uint8_t magic[4];
  if (read_bytes(file.get(), magic, 4) != 4) {
    throw ConfigError(path, "", "file ends inside the 4-byte IDX magic number");
  }
  if (magic[0] != 0 || magic[1] != 0 || magic[2] != kUnsignedByteType ||
      magic[3] != expected_dims) {
    char got[32];
    snprintf(got, sizeof got, "%02x %02x %02x %02x", magic[0], magic[1], magic[2], magic[3]);
    throw ConfigError(path, "",
                      std::string("bad IDX magic number ") + got + ", expected 00 00 08 0" +
                          std::to_string(expected_dims) + " (unsigned bytes, " +
                          std::to_string(expected_dims) + " dimensions)");
  }

  IdxArray array;
  int64_t elements = 1;
  for (int i = 0; i < expected_dims; ++i) {
    uint8_t size_bytes[4];
    if (read_bytes(file.get(), size_bytes, 4) != 4) {
      throw ConfigError(path, "",
                        "file ends inside the IDX header (dimension " + std::to_string(i) + ")");
    }
    const int64_t size = big_endian_u32(size_bytes);
    if (size == 0) throw ConfigError(path, "", "IDX dimension " + std::to_string(i) + " is 0");
    array.dims.push_back(size);
    // Checked before multiplying: two dimensions of up to 2^32 - 1 overflow an int64_t (found by
    // the fuzzer once UBSan stopped at its first report).
    if (size > kMaxElements / elements) {
      throw ConfigError(path, "", "IDX header claims an absurd size");
    }
    elements *= size;
  }

  // Grow with the data that is really there: a header that lies about the size (found by the
  // fuzzer: dims of 2^32-1) must cost an error, not gigabytes allocated up front.
  constexpr int64_t kChunkBytes = int64_t{16} << 20;
  int64_t got = 0;
  while (got < elements) {
    const int64_t want = std::min(kChunkBytes, elements - got);
    array.values.resize(static_cast<size_t>(got + want));
    const int64_t read = read_bytes(file.get(), array.values.data() + got, want);
    got += read;
    if (read < want) break;
  }
  if (got != elements) {
    throw ConfigError(path, "",
                      "truncated: the header promises " + std::to_string(elements) +
                          " bytes of data, the file holds " + std::to_string(got));
  }
  uint8_t extra = 0;
  if (read_bytes(file.get(), &extra, 1) != 0) {
    throw ConfigError(
        path, "",
        "trailing bytes after the " + std::to_string(elements) + " bytes the header promises");
  }
  int error_code = Z_OK;
  gzerror(file.get(), &error_code);
  if (error_code != Z_OK && error_code != Z_STREAM_END) {
    throw ConfigError(path, "", "corrupt gzip stream");
  }
  return array;
}

}  // namespace speedbench::data
