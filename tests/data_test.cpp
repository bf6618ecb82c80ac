// Text corpus, synthetic images, augmentation and the batch dataset.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/data/augment.h"
#include "harness/data/batch_dataset.h"
#include "harness/data/datasets.h"

namespace speedbench::data {
namespace {

TEST(FortunesTest, WindowsAreShiftedByOneCharacter) {
  DataConfig config;
  config.dataset = "fortunes";
  config.sequence_length = 32;
  const auto splits = load_dataset(config, 0);
  EXPECT_EQ(splits.train.inputs.size(1), 32);
  EXPECT_GT(splits.train.size(), 50000);  // ~2.6 MB of text / 32
  EXPECT_GT(splits.test.size(), 5000);
  // targets[i][t] == inputs[i][t+1]
  EXPECT_TRUE(
      torch::equal(splits.train.targets.narrow(1, 0, 31), splits.train.inputs.narrow(1, 1, 31)));
  EXPECT_GT(splits.num_classes, 60);
  EXPECT_LT(splits.num_classes, 256);
  // English text: the unigram entropy is a little over 4 bits per character.
  EXPECT_GT(splits.unigram_entropy_bits, 4.0);
  EXPECT_LT(splits.unigram_entropy_bits, 5.0);
}

TEST(SyntheticTest, SameSeedSameData) {
  DataConfig config;
  config.dataset = "synthetic";
  config.synthetic_shape = {3, 32, 32};
  config.train_samples = 64;
  config.test_samples = 16;
  const auto a = load_dataset(config, 5), b = load_dataset(config, 5), c = load_dataset(config, 6);
  EXPECT_EQ(a.train.inputs.sizes(), (std::vector<int64_t>{64, 3, 32, 32}));
  EXPECT_TRUE(torch::equal(a.train.inputs, b.train.inputs));
  EXPECT_FALSE(torch::equal(a.train.inputs, c.train.inputs));
}

// input_norm's constants: the mean and sample standard deviation of pixel/255 over the training
// images, as computed from every pixel in double. The pixels are counted in shares of 2^20 by
// the LibTorch threads, four at a time: one share, several, and counts that leave a remainder.
TEST(SyntheticTest, PixelStatisticsAreThoseOfEveryTrainingPixel) {
  for (const auto& [shape, samples] : {std::pair<std::vector<int64_t>, int64_t>{{3, 8, 8}, 50},
                                       {{1, 1, 3}, 7},
                                       {{1, 7, 7}, 30001}}) {
    DataConfig config;
    config.dataset = "synthetic";
    config.synthetic_shape = shape;
    config.train_samples = samples;
    const auto splits = load_dataset(config, 3);
    const auto pixels = splits.train.inputs.to(torch::kFloat64) / 255.0;
    // Summing 1.5 M doubles rounds at about 1e-13; one pixel miscounted moves these by 1e-7.
    EXPECT_NEAR(splits.pixel_mean, pixels.mean().item<double>(), 1e-12) << samples;
    EXPECT_NEAR(splits.pixel_std, pixels.std().item<double>(), 1e-12) << samples;
    EXPECT_GT(splits.pixel_std, 0.2);  // uniform over 0..255: about 0.29
  }
}

TEST(AugmentTest, CropWithinPaddingAndFlipKeepShapeAndPixels) {
  auto images = torch::arange(2 * 1 * 6 * 6, torch::kFloat32).view({2, 1, 6, 6}) + 1;
  std::mt19937_64 rng(3);
  auto augmented = random_crop_and_flip(images, /*padding=*/0, rng);
  // With no padding a crop is the image itself, so only flips can differ.
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(torch::equal(augmented[i], images[i]) ||
                torch::equal(augmented[i], images[i].flip({2})));
  }
  std::mt19937_64 rng2(3);
  auto padded = random_crop_and_flip(images, /*padding=*/2, rng2);
  EXPECT_EQ(padded.sizes(), images.sizes());
}

TEST(BatchDatasetTest, ImagesAreScaledNormalizedAndDeterministicPerBatch) {
  ExampleSet set{torch::full({4, 1, 2, 2}, 255, torch::kUInt8), torch::arange(4, torch::kInt64)};
  BatchDataset plain(set, ImageTransform{});
  auto batch = plain.get_batch(std::vector<size_t>{3, 1});
  EXPECT_TRUE(torch::allclose(batch.data, torch::ones({2, 1, 2, 2})));
  EXPECT_TRUE(torch::equal(batch.target, torch::tensor({3, 1}, torch::kInt64)));

  ImageTransform normalize;
  normalize.normalize = true;
  normalize.mean = 0.5;
  normalize.std = 0.25;
  BatchDataset normalized(set, normalize);
  EXPECT_TRUE(torch::allclose(normalized.get_batch(std::vector<size_t>{0}).data,
                              torch::full({1, 1, 2, 2}, 2.0)));

  ExampleSet random_set{torch::randint(0, 256, {8, 1, 8, 8}, torch::kUInt8),
                        torch::zeros({8}, torch::kInt64)};
  ImageTransform augment;
  augment.augment = true;
  BatchDataset augmented(random_set, augment);
  std::vector<size_t> rows = {5, 2, 7};
  EXPECT_TRUE(torch::equal(augmented.get_batch(rows).data, augmented.get_batch(rows).data));
}

// data.on_device: the rows are gathered by index_select where the examples are (here the CPU, on
// a GPU its memory) and must be the very batches the host path builds.
TEST(BatchDatasetTest, GatheringOnTheExamplesDeviceGivesTheHostPathsBatches) {
  ExampleSet images{torch::randint(0, 256, {12, 3, 4, 4}, torch::kUInt8),
                    torch::randint(0, 10, {12}, torch::kInt64)};
  ImageTransform host;
  host.normalize = true;
  host.mean = 0.4;
  host.std = 0.3;
  auto device = host;
  device.on_device = true;
  const std::vector<size_t> rows = {11, 2, 5, 0, 7};
  const auto expected = BatchDataset(images, host).get_batch(rows);
  const auto batch = BatchDataset(images, device).get_batch(rows);
  EXPECT_TRUE(torch::equal(batch.data, expected.data));
  EXPECT_TRUE(torch::equal(batch.target, expected.target));
  const auto expected_slice = BatchDataset(images, host).slice(3, 6);
  const auto slice = BatchDataset(images, device).slice(3, 6);
  EXPECT_TRUE(torch::equal(slice.data, expected_slice.data));
  EXPECT_TRUE(torch::equal(slice.target, expected_slice.target));

  ExampleSet text{torch::randint(0, 90, {6, 9}, torch::kInt64),
                  torch::randint(0, 90, {6, 9}, torch::kInt64)};
  ImageTransform text_host;
  text_host.is_image = false;
  auto text_device = text_host;
  text_device.on_device = true;
  const std::vector<size_t> text_rows = {4, 1};
  EXPECT_TRUE(torch::equal(BatchDataset(text, text_device).get_batch(text_rows).data,
                           BatchDataset(text, text_host).get_batch(text_rows).data));
}

}  // namespace
}  // namespace speedbench::data
