// TrainConfig loading: defaults, every error naming its field, round trip through JSON.
#include <gtest/gtest.h>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/config/json_reader.h"
#include "harness/techniques/registry.h"

namespace speedbench {
namespace {

using nlohmann::json;

std::string error_of(const json& config) {
  try {
    train_config_from_json(config, "cfg.json");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ConfigTest, EmptyObjectGivesTheBaselineDefaults) {
  const auto config = train_config_from_json(json::object(), "cfg.json");
  EXPECT_EQ(config.model.arch, "resnet");
  EXPECT_EQ(config.model.depth, 8);
  EXPECT_EQ(config.batch_size, 128);
  EXPECT_EQ(config.techniques.loader_workers, 0);
  EXPECT_FALSE(config.techniques.bn_no_bias);
  EXPECT_EQ(workload_name(config), "fashion_mnist/resnet");
}

TEST(ConfigTest, TheBaselineHasOnlyDebugOffOn) {
  // Every technique is off by default except debug_off: nobody trains with anomaly detection,
  // so its comparison's baseline is a run with debug_mode "anomaly" or "profiler".
  const TrainConfig defaults;
  EXPECT_EQ(enabled_techniques(defaults), std::vector<std::string>{"debug_off"});
  const auto debugging = train_config_from_json({{"techniques", {{"debug_mode", "anomaly"}}}}, "c");
  EXPECT_TRUE(enabled_techniques(debugging).empty());
  const auto some = train_config_from_json(
      {{"techniques",
        {{"input_norm", true}, {"amp", "bf16"}, {"lr_schedule", {{"kind", "cosine"}}}}}},
      "c");
  EXPECT_EQ(enabled_techniques(some),
            (std::vector<std::string>{"lr_schedule", "amp", "debug_off", "input_norm"}));
}

TEST(ConfigTest, TheStemDefaultsToImagenetsForResnet50Only) {
  const auto stem_of = [](const char* arch) {
    return train_config_from_json({{"model", {{"arch", arch}}}}, "c").model.stem;
  };
  EXPECT_EQ(stem_of("resnet"), "cifar");
  EXPECT_EQ(stem_of("resnet18"), "cifar");
  EXPECT_EQ(stem_of("resnet50"), "imagenet");
  const auto resnet18_imagenet =
      train_config_from_json({{"model", {{"arch", "resnet18"}, {"stem", "imagenet"}}}}, "c");
  EXPECT_EQ(resnet18_imagenet.model.stem, "imagenet");
  EXPECT_EQ(resnet18_imagenet.model.widths, (std::vector<int64_t>{64, 128, 256, 512}));
  EXPECT_NE(error_of({{"model", {{"stem", "7x7"}}}}).find("expected one of: cifar, imagenet"),
            std::string::npos);
  EXPECT_NE(error_of({{"model", {{"arch", "resnet50"}, {"widths", {16, 32, 64}}}}})
                .find("expected 4 stage widths for resnet50"),
            std::string::npos);
}

TEST(ConfigTest, UnknownKeyIsRejectedWithItsPath) {
  const auto message = error_of({{"optimizer", {{"lr", 0.1}, {"moementum", 0.9}}}});
  EXPECT_NE(message.find("cfg.json: field 'optimizer.moementum'"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown key"), std::string::npos) << message;
}

TEST(ConfigTest, WrongTypeNamesFieldValueAndExpectation) {
  const auto message = error_of({{"batch_size", "128"}});
  EXPECT_NE(message.find("field 'batch_size'"), std::string::npos) << message;
  EXPECT_NE(message.find("\"128\""), std::string::npos) << message;
  EXPECT_NE(message.find("expected an integer"), std::string::npos) << message;
}

TEST(ConfigTest, OutOfRangeValuesAreRejected) {
  EXPECT_NE(error_of({{"batch_size", 0}}).find("field 'batch_size'"), std::string::npos);
  EXPECT_NE(error_of({{"optimizer", {{"lr", -0.1}}}}).find("field 'optimizer.lr'"),
            std::string::npos);
  EXPECT_NE(error_of({{"model", {{"depth", 9}}}}).find("expected 6n+2"), std::string::npos);
  EXPECT_NE(error_of({{"device", "tpu"}}).find("expected one of: cpu, cuda"), std::string::npos);
  EXPECT_NE(error_of({{"data", {{"synthetic_shape", {3, 32}}}}}).find("data.synthetic_shape"),
            std::string::npos);
}

TEST(ConfigTest, ImpossibleCombinationsAreRejected) {
  EXPECT_NE(error_of({{"model", {{"arch", "char_lm"}}}}).find("char_lm needs \"fortunes\""),
            std::string::npos);
  EXPECT_NE(error_of({{"data", {{"dataset", "fortunes"}}}}).find("field 'model.arch'"),
            std::string::npos);
  EXPECT_NE(error_of({{"optimizer", {{"name", "adam"}, {"nesterov", true}}}})
                .find("field 'optimizer.nesterov'"),
            std::string::npos);
}

TEST(ConfigTest, ResolvedConfigRoundTripsThroughJson) {
  json input = {{"model", {{"arch", "row_rnn"}, {"cell", "gru"}, {"hidden", 64}}},
                {"data", {{"on_device", true}}},
                {"optimizer", {{"name", "adamw"}, {"lr", 0.003}, {"weight_decay", 0.01}}},
                {"batch_size", 32},
                {"seed", 7},
                {"target_accuracy", 0.8}};
  const auto config = train_config_from_json(input, "cfg.json");
  const auto resolved = train_config_to_json(config);
  const auto again = train_config_to_json(train_config_from_json(resolved, "resolved.json"));
  EXPECT_EQ(resolved, again);
  EXPECT_EQ(resolved["model"]["cell"], "gru");
  EXPECT_EQ(resolved["data"]["on_device"], true);
  EXPECT_EQ(resolved["optimizer"]["weight_decay"], 0.01);
  EXPECT_EQ(resolved["seed"], 7);
}

TEST(ConfigTest, InvalidJsonTextNamesLineAndColumn) {
  try {
    parse_json_text("{\n  \"batch_size\": 12,\n  oops\n}", "bad.json");
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.json: invalid JSON at line 3"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace speedbench
