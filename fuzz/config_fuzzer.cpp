// libFuzzer target: bytes -> JSON -> TrainConfig (first byte even) or Suite (odd), through the
// same file-kind check as load_train_config and load_suite. Bad input may only end as a
// ConfigError (one clear message); any other exception, a crash or a sanitizer report is a
// finding. Half the mutations change one value of the JSON (json_mutation.h).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/config/json_file_kind.h"
#include "harness/suite/suite.h"
#include "json_mutation.h"

// Half the time libFuzzer's byte mutations; else one value of the JSON after the first byte.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (size < 2 || rng() % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  const auto text = speedbench::fuzz::mutate_json_text(
      std::string(reinterpret_cast<const char*>(data) + 1, size - 1), rng);
  if (!text || text->size() + 1 > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data + 1, text->data(), text->size());
  return text->size() + 1;
}

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
