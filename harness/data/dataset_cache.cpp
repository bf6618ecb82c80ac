#include "harness/data/dataset_cache.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "harness/config/config_error.h"
#include "harness/data/gz_file.h"

namespace speedbench::data {

namespace {

namespace fs = std::filesystem;

// FNV-1a, 64 bits: a name that stays the same from build to build (std::hash need not).
uint64_t fnv1a(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

// "train-images-idx3-ubyte.<16 hex digits>": the file's name without .gz, and which version of
// which file it is a copy of.
std::string copy_name(const fs::path& source, std::uintmax_t size) {
  std::error_code error;
  const auto modified = fs::last_write_time(source, error).time_since_epoch().count();
  const auto key = fs::weakly_canonical(source, error).string() + '\n' + std::to_string(size) +
                   '\n' + std::to_string(modified);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  auto stem = source.filename().string();
  if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".gz") == 0) stem.resize(stem.size() - 3);
  return stem + "." + hex;
}

// Copies of other versions of the file (the same name before the last dot), and partial copies
// that a killed process left behind (over a minute old: making a copy takes about a second).
void remove_stale_copies(const fs::path& folder, const std::string& name) {
  const auto prefix = name.substr(0, name.rfind('.') + 1);
  const auto a_minute_ago = fs::file_time_type::clock::now() - std::chrono::minutes(1);
  // Errors are codes, never thrown: a stale copy left is worth no failed run.
  std::error_code error, ignored;
  for (fs::directory_iterator entry(folder, error), end; !error && entry != end;
       entry.increment(error)) {
    const auto other = entry->path().filename().string();
    const bool other_version = other != name && other.size() == name.size() &&
                               other.compare(0, prefix.size(), prefix) == 0;
    const bool left_partial = other.compare(0, prefix.size() + 1, "." + prefix) == 0 &&
                              other.find(".partial-") != std::string::npos &&
                              fs::last_write_time(entry->path(), ignored) < a_minute_ago;
    if (other_version || left_partial) fs::remove(entry->path(), ignored);
  }
}

// Inflates `source` into `copy` through a file of this process's own, renamed into place when
// whole: a reader never sees half a copy, and processes making the same copy at once each rename
// theirs. False (and nothing left) where it cannot.
bool make_copy(const fs::path& source, const fs::path& copy) {
  std::error_code error;
  fs::create_directories(copy.parent_path(), error);
  const fs::path partial = copy.parent_path() / ("." + copy.filename().string() + ".partial-" +
                                                 std::to_string(::getpid()));
  bool whole = false;
  {
    GzFile in(gzopen(source.c_str(), "rb"));
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (in && out) {
      std::vector<char> buffer(1 << 20);
      int got = 0;
      while ((got = gzread(in.get(), buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
        out.write(buffer.data(), got);
      }
      int status = Z_OK;
      gzerror(in.get(), &status);
      out.close();
      whole = got == 0 && (status == Z_OK || status == Z_STREAM_END) && out.good();
    }
  }
  if (whole) {
    fs::rename(partial, copy, error);
    whole = !error;
  }
  if (!whole) fs::remove(partial, error);
  return whole;
}

}  // namespace

IdxArray read_idx_file_cached(const std::string& gz_path, int expected_dims,
                              const std::string& cache_folder, std::uintmax_t min_bytes) {
  std::error_code error;
  const auto size = fs::file_size(gz_path, error);
  if (!error && size >= min_bytes && !cache_folder.empty()) {
    const auto copy = fs::path(cache_folder) / copy_name(gz_path, size);
    remove_stale_copies(copy.parent_path(), copy.filename().string());
    if (fs::exists(copy, error) || make_copy(gz_path, copy)) {
      try {
        return read_idx_file(copy.string(), expected_dims);
      } catch (const ConfigError&) {
        fs::remove(copy, error);  // the source's own error, if it has one, is the one to report
      }
    }
  }
  return read_idx_file(gz_path, expected_dims);
}

}  // namespace speedbench::data
