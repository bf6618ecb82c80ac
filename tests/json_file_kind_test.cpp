// Which kind of speedbench JSON file a document plainly is, with literal documents (the CLI's
// answers to a wrong file are rows of bad_input_catalogue_test.cpp).
#include <gtest/gtest.h>

#include "harness/config/config_error.h"
#include "harness/config/json_file_kind.h"

namespace speedbench {
namespace {

// A runs.jsonl: one JSON record a line, so the whole text is no one JSON document.
constexpr const char* kTwoRecords =
    "{\"schema_version\": 3, \"run_id\": \"a\"}\n{\"schema_version\": 3, \"run_id\": \"a\"}\n";

// The error check_json_file_kind gives, or "" when it lets the document through.
std::string kind_error(const char* text, JsonFileKind expected) {
  try {
    check_json_file_kind(text, expected, "f.json");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(JsonFileKindTest, EachKindPassesWhereItIsExpected) {
  EXPECT_EQ(kind_error(R"({"name": "s", "workloads": []})", JsonFileKind::kSuite), "");
  EXPECT_EQ(kind_error(R"({"claims": []})", JsonFileKind::kClaims), "");
  EXPECT_EQ(kind_error(R"({"model": {"arch": "resnet"}})", JsonFileKind::kTrainConfig), "");
  EXPECT_EQ(kind_error(kTwoRecords, JsonFileKind::kRecords), "");
}

TEST(JsonFileKindTest, AFileOfAnotherKindIsNamedWithTheCommandThatTakesIt) {
  EXPECT_EQ(kind_error(R"({"name": "s", "workloads": []})", JsonFileKind::kTrainConfig),
            "f.json: expected a TrainConfig, got a suite (it has \"workloads\"): run it with "
            "`speedbench run --suite f.json`");
  EXPECT_EQ(kind_error(R"({"batch_size": 8, "techniques": {}})", JsonFileKind::kSuite),
            "f.json: expected a suite, got a TrainConfig (it has no \"workloads\"): run it with "
            "`speedbench run-one --config f.json`");
  EXPECT_EQ(kind_error(R"({"claims": []})", JsonFileKind::kSuite),
            "f.json: expected a suite, got a claims registry (it has \"claims\"): pass it to "
            "`speedbench verify RUN_FOLDER --claims f.json`");
  EXPECT_EQ(kind_error(R"({"workloads": [{"name": "w"}]})", JsonFileKind::kClaims),
            "f.json: expected a claims registry, got a suite (it has \"workloads\"): run it with "
            "`speedbench run --suite f.json`");
}

TEST(JsonFileKindTest, RecordsAndOtherKindsAreToldApartBothWays) {
  const std::string records_use =
      "(it has \"schema_version\"): report them with `speedbench report f.json`, or rerun one "
      "with `speedbench reproduce f.json`";
  EXPECT_EQ(kind_error(kTwoRecords, JsonFileKind::kTrainConfig),
            "f.json: expected a TrainConfig, got records (a runs.jsonl) " + records_use);
  // One record is one JSON document.
  EXPECT_EQ(kind_error(R"({"schema_version": 3, "config": {}})", JsonFileKind::kSuite),
            "f.json: expected a suite, got records (a runs.jsonl) " + records_use);
  EXPECT_EQ(kind_error("{\n  \"name\": \"s\",\n  \"workloads\": []\n}\n", JsonFileKind::kRecords),
            "f.json: expected records (a runs.jsonl), got a suite (it has \"workloads\"): run it "
            "with `speedbench run --suite f.json`");
  EXPECT_EQ(kind_error(R"({"batch_size": 8})", JsonFileKind::kRecords), "");  // no section
  EXPECT_EQ(kind_error(R"({"data": {}})", JsonFileKind::kRecords),
            "f.json: expected records (a runs.jsonl), got a TrainConfig (it has no \"workloads\"): "
            "run it with `speedbench run-one --config f.json`");
}

TEST(JsonFileKindTest, ADocumentThatIsNoKindPlainlyIsLeftToItsLoader) {
  // A suite that lost its workloads is a broken suite, not a TrainConfig: its loader says why.
  EXPECT_EQ(kind_error(R"({"name": "s", "techniques": []})", JsonFileKind::kSuite), "");
  EXPECT_EQ(kind_error(R"({"design": "grid", "claims": []})", JsonFileKind::kClaims), "");
  EXPECT_EQ(kind_error(R"({"batchsize": 8})", JsonFileKind::kSuite), "");  // a config's typo?
  EXPECT_EQ(kind_error("{}", JsonFileKind::kSuite), "");
  EXPECT_EQ(kind_error("[1, 2]", JsonFileKind::kTrainConfig), "");
  // Not JSON at all: the loader names the line and column.
  EXPECT_EQ(kind_error("# a README\n", JsonFileKind::kRecords), "");
  EXPECT_EQ(kind_error("{\"workloads\": [\n", JsonFileKind::kTrainConfig), "");
}

}  // namespace
}  // namespace speedbench
