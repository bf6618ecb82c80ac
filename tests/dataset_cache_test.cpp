// The uncompressed copies of dataset files (dataset_cache.h): made once per version of a file,
// read instead of it, replaced when it changes, never trusted when they do not read, and the same
// examples as the gzipped files give.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/config/config_error.h"
#include "harness/data/dataset_cache.h"
#include "harness/data/datasets.h"
#include "tests/test_support.h"

namespace speedbench::data {
namespace {

namespace fs = std::filesystem;
using speedbench::testing::idx_header;
using speedbench::testing::read_text;
using speedbench::testing::ScopedEnvironmentVariable;
using speedbench::testing::TempDir;
using speedbench::testing::write_gzip;
using speedbench::testing::write_text;

// Two 2x3 images: 0..5 and `second` six times.
std::vector<uint8_t> two_images(uint8_t second) {
  auto bytes = idx_header(3, {2, 2, 3});
  for (uint8_t v = 0; v < 6; ++v) bytes.push_back(v);
  bytes.insert(bytes.end(), 6, second);
  return bytes;
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct CacheFixture {
  TempDir dir;
  std::string source = dir.file("train-images-idx3-ubyte.gz");
  fs::path cache = dir.path() / "cache";

  IdxArray read() { return read_idx_file_cached(source, 3, cache.string(), /*min_bytes=*/0); }
  std::string error_of_read() {
    try {
      read();
    } catch (const ConfigError& error) {
      return error.what();
    }
    return "no error";
  }
  fs::path only_copy() {
    const auto names = names_in(cache);
    EXPECT_EQ(names.size(), 1u);
    return names.empty() ? fs::path() : cache / names.front();
  }
};

TEST(DatasetCacheTest, ACopyIsMadeOnceAndReadInsteadOfTheFile) {
  CacheFixture f;
  write_gzip(f.source, two_images(7));
  const auto first = f.read();
  EXPECT_EQ(first.dims, (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(first.values, (std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 7, 7, 7, 7, 7, 7}));

  // The copy: the file inflated, under its name without .gz and a 16-digit version.
  const auto copy = f.only_copy();
  EXPECT_EQ(copy.filename().string().substr(0, 24), "train-images-idx3-ubyte.");
  EXPECT_EQ(copy.filename().string().size(), 24u + 16u);
  const auto inflated = two_images(7);
  EXPECT_EQ(read_text(copy.string()), std::string(inflated.begin(), inflated.end()));

  // What is read next is the copy: a byte changed there (and only there) is in the result.
  auto changed = read_text(copy.string());
  changed.back() = 9;
  write_text(copy.string(), changed);
  EXPECT_EQ(f.read().values.back(), 9);
  EXPECT_EQ(f.only_copy(), copy);
}

TEST(DatasetCacheTest, ANewVersionOfTheFileReplacesItsCopy) {
  CacheFixture f;
  write_gzip(f.source, two_images(7));
  f.read();
  const auto old_copy = f.only_copy();

  write_gzip(f.source, two_images(8));
  fs::last_write_time(f.source, fs::last_write_time(f.source) + std::chrono::seconds(5));
  EXPECT_EQ(f.read().values.back(), 8);
  const auto new_copy = f.only_copy();  // the old one is gone
  EXPECT_NE(new_copy, old_copy);
}

TEST(DatasetCacheTest, APartialCopyAKilledProcessLeftGoesOnceItIsAMinuteOld) {
  CacheFixture f;
  write_gzip(f.source, two_images(7));
  f.read();
  const auto copy = f.only_copy();
  const auto partial = [&](const std::string& pid) {
    return (f.cache / ("." + copy.filename().string() + ".partial-" + pid)).string();
  };
  write_text(partial("101"), "half");  // killed a while ago
  fs::last_write_time(partial("101"), fs::file_time_type::clock::now() - std::chrono::minutes(2));
  write_text(partial("102"), "half");  // maybe still being written

  EXPECT_EQ(f.read().values.back(), 7);
  EXPECT_FALSE(fs::exists(partial("101")));
  EXPECT_TRUE(fs::exists(partial("102")));
  EXPECT_TRUE(fs::exists(copy));
}

TEST(DatasetCacheTest, ACopyThatDoesNotReadIsRemovedAndTheFileReadInstead) {
  CacheFixture f;
  write_gzip(f.source, two_images(7));
  f.read();
  const auto copy = f.only_copy();
  write_text(copy.string(), read_text(copy.string()).substr(0, 20));  // cut short

  EXPECT_EQ(f.read().values.back(), 7);
  EXPECT_FALSE(fs::exists(copy));
  EXPECT_EQ(f.read().values.back(), 7);  // and the next read makes it again
  EXPECT_EQ(f.only_copy(), copy);
}

TEST(DatasetCacheTest, AnErrorNamesTheDatasetFileAndLeavesNoCopy) {
  CacheFixture f;
  auto truncated = two_images(7);
  truncated.resize(truncated.size() - 3);
  write_gzip(f.source, truncated);
  EXPECT_EQ(f.error_of_read(), f.source +
                                   ": truncated: the header promises 12 bytes of data, the file "
                                   "holds 9");
  EXPECT_EQ(names_in(f.cache), std::vector<std::string>{});

  // A gzip stream that breaks off: no copy is made at all, and the error is the reader's.
  const auto whole = read_text(f.source);
  write_text(f.source, whole.substr(0, whole.size() - 10));
  EXPECT_EQ(f.error_of_read(), f.source +
                                   ": truncated: the header promises 12 bytes of data, the file "
                                   "holds 8");
  EXPECT_EQ(names_in(f.cache), std::vector<std::string>{});
}

TEST(DatasetCacheTest, SmallFilesAndAFolderThatCannotBeMadeAreReadAsTheyAre) {
  CacheFixture f;
  write_gzip(f.source, two_images(7));
  const auto small = read_idx_file_cached(f.source, 3, f.cache.string());  // under 1 MiB
  EXPECT_EQ(small.values.back(), 7);
  EXPECT_FALSE(fs::exists(f.cache));

  write_text(f.dir.file("a-file"), "x");
  const auto under_a_file = read_idx_file_cached(f.source, 3, f.dir.file("a-file/cache"), 0);
  EXPECT_EQ(under_a_file.values.back(), 7);
  EXPECT_EQ(read_idx_file_cached(f.source, 3, /*cache_folder=*/"", 0).values.back(), 7);
}

TEST(DatasetCacheTest, TheFolderComesFromTheEnvironment) {
  ScopedEnvironmentVariable xdg("XDG_CACHE_HOME", "/xdg");
  ScopedEnvironmentVariable home("HOME", "/home/someone");
  {
    ScopedEnvironmentVariable chosen("SPEEDBENCH_DATASET_CACHE", "/chosen");
    EXPECT_EQ(dataset_cache_folder(), "/chosen");
  }
  {
    ScopedEnvironmentVariable off("SPEEDBENCH_DATASET_CACHE", "off");
    EXPECT_EQ(dataset_cache_folder(), "");
  }
  ScopedEnvironmentVariable unset("SPEEDBENCH_DATASET_CACHE", std::nullopt);
  EXPECT_EQ(dataset_cache_folder(), "/xdg/speedbench/datasets");
  {
    ScopedEnvironmentVariable no_xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(dataset_cache_folder(), "/home/someone/.cache/speedbench/datasets");
    ScopedEnvironmentVariable no_home("HOME", std::nullopt);
    EXPECT_EQ(dataset_cache_folder(), "");
  }
}

TEST(DatasetCacheTest, FashionMnistFromItsCopiesIsTheSameAsFromItsFiles) {
  DataConfig config;  // Debian's Fashion-MNIST (or $SPEEDBENCH_FASHION_MNIST_DIR's)
  DatasetSplits from_files;
  {
    ScopedEnvironmentVariable off("SPEEDBENCH_DATASET_CACHE", "off");
    from_files = load_dataset(config, 0);
  }
  TempDir cache;
  ScopedEnvironmentVariable chosen("SPEEDBENCH_DATASET_CACHE", cache.path().string());
  for (const char* pass : {"making the copies", "reading them"}) {
    SCOPED_TRACE(pass);
    const auto splits = load_dataset(config, 0);
    EXPECT_TRUE(torch::equal(splits.train.inputs, from_files.train.inputs));
    EXPECT_TRUE(torch::equal(splits.train.targets, from_files.train.targets));
    EXPECT_TRUE(torch::equal(splits.test.inputs, from_files.test.inputs));
    EXPECT_TRUE(torch::equal(splits.test.targets, from_files.test.targets));
    EXPECT_EQ(splits.source, dataset_folder(config));
  }
  // The images are copied; the labels (under 1 MiB gzipped) are not.
  const auto names = names_in(cache.path());
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].substr(0, 23), "t10k-images-idx3-ubyte.");
  EXPECT_EQ(names[1].substr(0, 24), "train-images-idx3-ubyte.");
}

}  // namespace
}  // namespace speedbench::data
