// libFuzzer target: bytes -> JSON -> TrainConfig (first byte even) or Suite (odd), through the
// same file-kind check as load_train_config and load_suite. Bad input may only end as a
// ConfigError (one clear message); any other exception, a crash or a sanitizer report is a
// finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/config/json_file_kind.h"
#include "harness/suite/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool suite = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const auto json = speedbench::parse_json_text_of_kind(
        text, suite ? speedbench::JsonFileKind::kSuite : speedbench::JsonFileKind::kTrainConfig,
        "fuzz.json");
    if (suite) {
      speedbench::suite_from_json(json, "fuzz.json");
    } else {
      speedbench::train_config_from_json(json, "fuzz.json");
    }
  } catch (const speedbench::ConfigError&) {
    // the expected answer to bad input
  }
  return 0;  // anything else escapes and libFuzzer reports it
}
