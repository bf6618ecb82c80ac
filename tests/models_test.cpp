// Model output shapes and structure.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/config/config_loader.h"
#include "harness/train/workload.h"
#include "models/flops.h"
#include "models/recurrent.h"
#include "models/resnet.h"

namespace speedbench::models {
namespace {

TEST(ResNetTest, Resnet8OnFashionShapedInputGivesTenLogits) {
  auto options = cifar_resnet_options(8, {16, 32, 64});
  ResNet net(options);
  EXPECT_EQ(net->forward(torch::randn({4, 1, 28, 28})).sizes(), (std::vector<int64_t>{4, 10}));
  // stem + 3 blocks + head
  EXPECT_EQ(net->num_segments(), 5);
}

TEST(ResNetTest, DepthSetsBlocksPerStage) {
  EXPECT_EQ(cifar_resnet_options(20, {16, 32, 64}).blocks_per_stage,
            (std::vector<int64_t>{3, 3, 3}));
  EXPECT_EQ(cifar_resnet_options(56, {16, 32, 64}).blocks_per_stage,
            (std::vector<int64_t>{9, 9, 9}));
  EXPECT_THROW(cifar_resnet_options(10, {16, 32, 64}), std::invalid_argument);
}

TEST(ResNetTest, Resnet18OnCifarShapedInput) {
  auto options = resnet18_options({8, 16, 32, 64});  // narrow, to keep the test fast
  options.in_channels = 3;
  options.num_classes = 100;
  ResNet net(options);
  EXPECT_EQ(net->forward(torch::randn({2, 3, 32, 32})).sizes(), (std::vector<int64_t>{2, 100}));
  EXPECT_EQ(net->num_segments(), 2 + 8);
}

TEST(ResNetTest, Resnet50WithTheImagenetStemOnImagenetShapedInput) {
  auto options = resnet50_options({4, 8, 16, 32});  // narrow, to keep the test fast
  options.in_channels = 3;
  options.num_classes = 1000;
  options.imagenet_stem = true;
  ResNet net(options);
  net->eval();
  auto x = torch::randn({2, 3, 64, 64});
  EXPECT_EQ(net->forward(x).sizes(), (std::vector<int64_t>{2, 1000}));
  EXPECT_EQ(net->num_segments(), 2 + 16);
  // The stem quarters the resolution (7x7 stride 2, max pool stride 2); the blocks output 4x
  // their inner width.
  EXPECT_EQ(net->forward_segment(0, x).sizes(), (std::vector<int64_t>{2, 4, 16, 16}));
  EXPECT_EQ(net->forward_segment(1, net->forward_segment(0, x)).sizes(),
            (std::vector<int64_t>{2, 16, 16, 16}));
  auto out = x;
  for (int64_t i = 0; i < net->num_segments(); ++i) out = net->forward_segment(i, out);
  EXPECT_TRUE(torch::equal(out, net->forward(x)));
}

// torchvision's resnet50 (no conv biases, 1000 classes) has 25,557,032 parameters; resnet18
// 11,689,512.
TEST(ResNetTest, ImagenetResNetsWithoutConvBiasesHaveTorchvisionsParameterCounts) {
  const auto count = [](ResNetOptions options) {
    options.in_channels = 3;
    options.num_classes = 1000;
    options.imagenet_stem = true;
    options.conv_bias = false;
    return count_parameters(*ResNet(options));
  };
  EXPECT_EQ(count(resnet50_options({64, 128, 256, 512})), 25557032);
  EXPECT_EQ(count(resnet18_options({64, 128, 256, 512})), 11689512);
}

TEST(ResNetTest, SegmentsComposeToTheFullForward) {
  ResNet net(cifar_resnet_options(8, {8, 16, 32}));
  net->eval();
  auto x = torch::randn({3, 1, 28, 28});
  auto out = x;
  for (int64_t i = 0; i < net->num_segments(); ++i) out = net->forward_segment(i, out);
  EXPECT_TRUE(torch::equal(out, net->forward(x)));
}

TEST(ResNetTest, ConvBiasOptionRemovesExactlyTheConvBiases) {
  auto with_bias = cifar_resnet_options(8, {16, 32, 64});
  auto without_bias = with_bias;
  without_bias.conv_bias = false;
  const auto count = [](const ResNetOptions& o) { return count_parameters(*ResNet(o)); };
  // Conv output channels: stem 16; blocks 2x16, 2x32 + shortcut 32, 2x64 + shortcut 64.
  const int64_t conv_biases = 16 + (16 + 16) + (32 + 32 + 32) + (64 + 64 + 64);
  EXPECT_EQ(count(with_bias) - count(without_bias), conv_biases);
}

TEST(RecurrentTest, RowClassifierReadsRowsAndGivesLogits) {
  for (const std::string cell : {"lstm", "gru"}) {
    RecurrentOptions options;
    options.cell = cell;
    options.hidden = 32;
    options.layers = 2;
    RowRnnClassifier net(options);
    EXPECT_EQ(net->forward(torch::randn({5, 1, 28, 28})).sizes(), (std::vector<int64_t>{5, 10}));
  }
}

TEST(RecurrentTest, CharModelGivesLogitsPerPosition) {
  RecurrentOptions options;
  options.input_size = 16;  // embedding
  options.hidden = 32;
  options.outputs = 90;  // vocabulary
  CharLanguageModel net(options);
  auto ids = torch::randint(0, 90, {3, 12}, torch::kInt64);
  EXPECT_EQ(net->forward(ids).sizes(), (std::vector<int64_t>{3, 12, 90}));
}

TEST(WorkloadTest, BuildModelSizesTheRowRnnToTheImageWidth) {
  auto config = train_config_from_json({{"model", {{"arch", "row_rnn"}, {"hidden", 16}}}}, "t");
  auto model = build_model(config, {3, 32, 32}, 10);
  // 3 channels x 32 pixels per row
  EXPECT_EQ(model.forward(torch::randn({2, 3, 32, 32})).sizes(), (std::vector<int64_t>{2, 10}));
}

}  // namespace
}  // namespace speedbench::models

namespace speedbench {
namespace {

// Hand-counted: stem 225,792; stage 1: 2 x 3,612,672; stage 2 (14x14): 1,806,336 + 3,612,672 +
// 200,704 (1x1 shortcut); stage 3 (7x7): the same; head 1,280.
TEST(ModelFlopsTest, ResNet8OnFashionMnistCountsEveryConvolution) {
  const auto options = models::cifar_resnet_options(8, {16, 32, 64});
  EXPECT_DOUBLE_EQ(models::resnet_forward_flops(options, 28, 28), 18691840.0);
}

// torchvision's model table gives ResNet-50 4.09 and ResNet-18 1.81 GFLOPS at 224x224: its
// figures count multiply-accumulates (ours count 2 FLOPs each) of the convolutions and the head.
TEST(ModelFlopsTest, ImagenetResNetsMatchTorchvisionsPublishedCounts) {
  auto resnet50 = models::resnet50_options({64, 128, 256, 512});
  resnet50.in_channels = 3;
  resnet50.num_classes = 1000;
  resnet50.imagenet_stem = true;
  EXPECT_NEAR(models::resnet_forward_flops(resnet50, 224, 224) / 2, 4.09e9, 0.005e9);
  auto resnet18 = models::resnet18_options({64, 128, 256, 512});
  resnet18.in_channels = 3;
  resnet18.num_classes = 1000;
  resnet18.imagenet_stem = true;
  EXPECT_NEAR(models::resnet_forward_flops(resnet18, 224, 224) / 2, 1.81e9, 0.005e9);
}

TEST(ModelFlopsTest, RecurrentCountsGatesPerStepAndTheHead) {
  models::RecurrentOptions options;  // LSTM, 28 inputs, 128 hidden, 10 outputs
  EXPECT_DOUBLE_EQ(models::recurrent_forward_flops(options, 28, false),
                   2.0 * 4 * 128 * 156 * 28 + 2560);
  options.cell = "gru";
  options.layers = 2;
  EXPECT_DOUBLE_EQ(models::recurrent_forward_flops(options, 10, true),
                   2.0 * 3 * 128 * (156 + 256) * 10 + 2560.0 * 10);
}

}  // namespace
}  // namespace speedbench
