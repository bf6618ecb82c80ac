// The IDX reader on Debian's real Fashion-MNIST files and on corrupted copies.
#include <gtest/gtest.h>

#include "harness/config/config_error.h"
#include "harness/data/datasets.h"
#include "harness/data/idx_reader.h"
#include "tests/test_support.h"

namespace speedbench::data {
namespace {

using speedbench::testing::idx_header;
using speedbench::testing::TempDir;
using speedbench::testing::write_gzip;

const std::string kFashionDir = "/usr/share/datasets/fashion-mnist";

std::string error_of(const std::string& path, int dims) {
  try {
    read_idx_file(path, dims);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(IdxReaderTest, ReadsTheRealTrainingImagesAndLabels) {
  const auto images = read_idx_file(kFashionDir + "/train-images-idx3-ubyte.gz", 3);
  EXPECT_EQ(images.dims, (std::vector<int64_t>{60000, 28, 28}));
  EXPECT_EQ(images.values.size(), 60000u * 28 * 28);
  const auto labels = read_idx_file(kFashionDir + "/train-labels-idx1-ubyte.gz", 1);
  EXPECT_EQ(labels.dims, (std::vector<int64_t>{60000}));
  // Fashion-MNIST is balanced: 6000 examples of each of the 10 classes.
  std::array<int, 10> counts{};
  for (auto label : labels.values) counts.at(label) += 1;
  for (int count : counts) EXPECT_EQ(count, 6000);
}

TEST(IdxReaderTest, LoadsBothSplitsAsTensors) {
  DataConfig config;
  config.root = kFashionDir;
  config.test_samples = 500;
  const auto splits = load_dataset(config, 0);
  EXPECT_EQ(splits.train.inputs.sizes(), (std::vector<int64_t>{60000, 1, 28, 28}));
  EXPECT_EQ(splits.test.inputs.size(0), 500);
  EXPECT_EQ(splits.num_classes, 10);
  // Published Fashion-MNIST statistics of pixel/255: mean 0.2860, std 0.3530.
  EXPECT_NEAR(splits.pixel_mean, 0.2860, 1e-3);
  EXPECT_NEAR(splits.pixel_std, 0.3530, 1e-3);
}

TEST(IdxReaderTest, BadMagicNumberIsNamed) {
  TempDir dir;
  auto bytes = idx_header(3, {1, 2, 2});
  bytes[2] = 0x0D;  // float type instead of unsigned byte
  bytes.resize(bytes.size() + 4);
  write_gzip(dir.file("bad.gz"), bytes);
  const auto message = error_of(dir.file("bad.gz"), 3);
  EXPECT_NE(message.find(dir.file("bad.gz") + ": bad IDX magic number 00 00 0d 03"),
            std::string::npos)
      << message;
}

TEST(IdxReaderTest, WrongDimensionCountIsABadMagic) {
  TempDir dir;
  auto bytes = idx_header(1, {4});
  bytes.resize(bytes.size() + 4);
  write_gzip(dir.file("labels.gz"), bytes);
  EXPECT_NE(error_of(dir.file("labels.gz"), 3).find("expected 00 00 08 03"), std::string::npos);
}

TEST(IdxReaderTest, TruncatedPayloadIsReportedWithByteCounts) {
  TempDir dir;
  auto bytes = idx_header(3, {10, 28, 28});
  bytes.resize(bytes.size() + 28 * 28 * 9);  // one image short
  write_gzip(dir.file("short.gz"), bytes);
  const auto message = error_of(dir.file("short.gz"), 3);
  EXPECT_NE(message.find("truncated: the header promises 7840 bytes of data, the file holds 7056"),
            std::string::npos)
      << message;
}

TEST(IdxReaderTest, TrailingBytesAreAnError) {
  TempDir dir;
  auto bytes = idx_header(1, {3});
  bytes.insert(bytes.end(), {1, 2, 3, 4});
  write_gzip(dir.file("long.gz"), bytes);
  EXPECT_NE(error_of(dir.file("long.gz"), 1).find("trailing bytes"), std::string::npos);
}

TEST(IdxReaderTest, HeaderCutShortIsAnError) {
  TempDir dir;
  write_gzip(dir.file("cut.gz"), {0, 0, 8, 3, 0, 0});
  EXPECT_NE(error_of(dir.file("cut.gz"), 3).find("ends inside the IDX header"), std::string::npos);
}

TEST(IdxReaderTest, MissingFileIsNamed) {
  EXPECT_NE(error_of("/nonexistent/train.gz", 3).find("/nonexistent/train.gz: cannot open"),
            std::string::npos);
}

TEST(IdxReaderTest, LabelCountDifferentFromImageCountIsAnError) {
  TempDir dir;
  auto images = idx_header(3, {3, 2, 2});
  images.resize(images.size() + 12);
  auto labels = idx_header(1, {2});
  labels.insert(labels.end(), {1, 2});
  for (const auto* split : {"train", "t10k"}) {
    write_gzip(dir.file(std::string(split) + "-images-idx3-ubyte.gz"), images);
    write_gzip(dir.file(std::string(split) + "-labels-idx1-ubyte.gz"), labels);
  }
  DataConfig config;
  config.root = dir.path().string();
  try {
    load_dataset(config, 0);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("holds 2 labels but"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace speedbench::data
