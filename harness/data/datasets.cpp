#include "harness/data/datasets.h"

#include <torch/torch.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "harness/config/config_error.h"
#include "harness/data/dataset_cache.h"

namespace speedbench::data {

namespace {

namespace fs = std::filesystem;

constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
constexpr const char* kFortunesDir = "/usr/share/games/fortunes";
constexpr double kTextTestFraction = 0.1;

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

ExampleSet take_first(ExampleSet set, int64_t limit) {
  if (limit <= 0 || limit >= set.size()) return set;
  return {set.inputs.narrow(0, 0, limit).clone(), set.targets.narrow(0, 0, limit).clone()};
}

// -- Fashion-MNIST -----------------------------------------------------------------------------

ExampleSet read_fashion_split(const std::string& folder, const std::string& prefix) {
  const auto image_path = folder + "/" + prefix + "-images-idx3-ubyte.gz";
  const auto label_path = folder + "/" + prefix + "-labels-idx1-ubyte.gz";
  const auto cache = dataset_cache_folder();
  auto images = read_idx_file_cached(image_path, 3, cache);
  auto labels = read_idx_file_cached(label_path, 1, cache);
  if (images.dims[0] != labels.dims[0]) {
    throw ConfigError(label_path, "",
                      "holds " + std::to_string(labels.dims[0]) + " labels but " + image_path +
                          " holds " + std::to_string(images.dims[0]) + " images");
  }
  for (auto label : labels.values) {
    if (label > 9)
      throw ConfigError(label_path, "", "label " + std::to_string(label) + " is not in 0..9");
  }
  const auto n = images.dims[0];
  auto inputs =
      torch::from_blob(images.values.data(), {n, 1, images.dims[1], images.dims[2]}, torch::kUInt8)
          .clone();
  auto targets = torch::from_blob(labels.values.data(), {n}, torch::kUInt8).to(torch::kInt64);
  return {inputs, targets};
}

DatasetSplits load_fashion_mnist(const DataConfig& config) {
  const auto folder = dataset_folder(config);
  if (!fs::is_directory(folder)) {
    throw ConfigError(
        folder, "",
        "no such folder: install Debian's dataset-fashion-mnist, or point "
        "SPEEDBENCH_FASHION_MNIST_DIR, data.root or --data-root at its IDX .gz files");
  }
  DatasetSplits splits;
  splits.train = take_first(read_fashion_split(folder, "train"), config.train_samples);
  splits.test = take_first(read_fashion_split(folder, "t10k"), config.test_samples);
  splits.num_classes = 10;
  splits.source = folder;
  return splits;
}

// -- synthetic images --------------------------------------------------------------------------

int64_t synthetic_training_examples(const DataConfig& config) {
  return config.train_samples > 0 ? config.train_samples : 4096;
}

DatasetSplits make_synthetic(const DataConfig& config, int64_t seed) {
  const auto& shape = config.synthetic_shape;
  const int64_t train_n = synthetic_training_examples(config);
  const int64_t test_n = config.test_samples > 0 ? config.test_samples : 1024;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
  auto make = [&](int64_t n) {
    ExampleSet set;
    set.inputs =
        torch::randint(0, 256, {n, shape[0], shape[1], shape[2]}, generator, torch::kUInt8);
    set.targets = torch::randint(0, config.synthetic_classes, {n}, generator, torch::kInt64);
    return set;
  };
  DatasetSplits splits;
  splits.train = make(train_n);
  splits.test = make(test_n);
  splits.num_classes = config.synthetic_classes;
  splits.source = "synthetic (seed " + std::to_string(seed) + ")";
  return splits;
}

// -- fortunes text -----------------------------------------------------------------------------

std::string read_fortunes_text(const std::string& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const auto extension = entry.path().extension().string();
    // .dat are strfile indexes and .u8 links to UTF-8 copies: text files have no extension.
    if (entry.is_regular_file() && !entry.is_symlink() && extension.empty()) {
      files.push_back(entry.path());
    }
  }
  if (error) {
    throw ConfigError(
        folder, "",
        "cannot list the fortunes folder (" + error.message() +
            "): install Debian's fortunes package, or point "
            "SPEEDBENCH_FORTUNES_DIR, data.root or --data-root at a folder of fortune files");
  }
  std::sort(files.begin(), files.end());  // a fixed order: the same corpus every run
  std::string text;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    text += buffer.str();
  }
  if (text.size() < 10000) {
    throw ConfigError(folder, "",
                      "holds only " + std::to_string(text.size()) +
                          " bytes of fortune text; install the 'fortunes' package");
  }
  return text;
}

// Non-overlapping windows of T+1 characters: inputs are the first T, targets the last T.
ExampleSet make_windows(const torch::Tensor& ids, int64_t length) {
  const int64_t count = (ids.size(0) - 1) / length;
  auto inputs = ids.narrow(0, 0, count * length).view({count, length});
  auto targets = ids.narrow(0, 1, count * length).view({count, length});
  return {inputs.clone(), targets.clone()};
}

DatasetSplits load_fortunes(const DataConfig& config) {
  const auto folder = dataset_folder(config);
  const auto text = read_fortunes_text(folder);

  std::array<int64_t, 256> id_of{};
  id_of.fill(-1);
  int64_t vocabulary = 0;
  std::array<bool, 256> present{};
  for (unsigned char c : text) present[c] = true;
  for (int c = 0; c < 256; ++c) {
    if (present[c]) id_of[c] = vocabulary++;
  }
  auto ids = torch::empty({static_cast<int64_t>(text.size())}, torch::kInt64);
  auto* out = ids.data_ptr<int64_t>();
  for (size_t i = 0; i < text.size(); ++i) out[i] = id_of[static_cast<unsigned char>(text[i])];

  const auto train_chars = static_cast<int64_t>(text.size() * (1.0 - kTextTestFraction));
  auto train_ids = ids.narrow(0, 0, train_chars);
  auto test_ids = ids.narrow(0, train_chars, ids.size(0) - train_chars);

  DatasetSplits splits;
  splits.train = take_first(make_windows(train_ids, config.sequence_length), config.train_samples);
  splits.test = take_first(make_windows(test_ids, config.sequence_length), config.test_samples);
  splits.num_classes = vocabulary;
  splits.source = folder;
  // Unigram entropy: the loss of a model that knows only character frequencies.
  auto counts = torch::bincount(train_ids, {}, vocabulary).to(torch::kDouble);
  auto p = counts / counts.sum();
  p = p.masked_select(p > 0);
  splits.unigram_entropy_bits = -(p * torch::log2(p)).sum().item<double>();
  return splits;
}

// How many pixels have each of the 256 values, each LibTorch thread over its own share. Every
// run counts Fashion-MNIST's 47 M training pixels; torch::bincount takes one thread for it, and
// a single array of counts makes each increment wait on the last where values repeat (half the
// pixels are 0): four arrays over neighbouring pixels let four go at once.
std::array<int64_t, 256> count_pixel_values(const torch::Tensor& pixels) {
  const auto flat = pixels.contiguous().view(-1);
  const uint8_t* values = flat.data_ptr<uint8_t>();
  std::array<int64_t, 256> total{};
  std::mutex total_mutex;
  at::parallel_for(0, flat.numel(), int64_t{1} << 20, [&](int64_t begin, int64_t end) {
    std::array<std::array<int64_t, 256>, 4> counts{};
    int64_t i = begin;
    for (; i + 4 <= end; i += 4) {
      counts[0][values[i]] += 1;
      counts[1][values[i + 1]] += 1;
      counts[2][values[i + 2]] += 1;
      counts[3][values[i + 3]] += 1;
    }
    for (; i < end; ++i) counts[0][values[i]] += 1;
    std::lock_guard<std::mutex> lock(total_mutex);
    for (const auto& part : counts) {
      for (int value = 0; value < 256; ++value) total[value] += part[value];
    }
  });
  return total;
}

// Mean and (sample) standard deviation of pixel/255 from the counts of the 256 pixel values, in
// double: exact, and without a float copy of every pixel (188 MB for Fashion-MNIST's training
// images) at each run's start.
void set_pixel_statistics(DatasetSplits& splits) {
  const auto counts = count_pixel_values(splits.train.inputs);
  double n = 0, sum = 0;
  for (int value = 0; value < 256; ++value) {
    n += static_cast<double>(counts[value]);
    sum += static_cast<double>(counts[value]) * (value / 255.0);
  }
  const double mean = sum / n;
  double squares = 0;
  for (int value = 0; value < 256; ++value) {
    squares += static_cast<double>(counts[value]) * std::pow(value / 255.0 - mean, 2);
  }
  splits.pixel_mean = mean;
  splits.pixel_std = std::sqrt(squares / (n - 1));
}

}  // namespace

std::string dataset_folder(const DataConfig& config) {
  if (!config.root.empty()) return config.root;
  if (config.dataset == "fortunes") return env_or("SPEEDBENCH_FORTUNES_DIR", kFortunesDir);
  return env_or("SPEEDBENCH_FASHION_MNIST_DIR", kFashionMnistDir);
}

std::string dataset_cache_folder() {
  const auto chosen = env_or("SPEEDBENCH_DATASET_CACHE", "");
  if (chosen == "off") return "";
  if (!chosen.empty()) return chosen;
  const auto xdg = env_or("XDG_CACHE_HOME", ""), home = env_or("HOME", "");
  if (!xdg.empty()) return xdg + "/speedbench/datasets";
  return home.empty() ? "" : home + "/.cache/speedbench/datasets";
}

DatasetSplits load_dataset(const DataConfig& config, int64_t seed) {
  if (config.dataset == "fortunes") return load_fortunes(config);
  auto splits =
      config.dataset == "synthetic" ? make_synthetic(config, seed) : load_fashion_mnist(config);
  set_pixel_statistics(splits);
  return splits;
}

int64_t count_training_examples(const DataConfig& config, int64_t seed) {
  if (config.dataset == "synthetic") return synthetic_training_examples(config);
  return load_dataset(config, seed).train.size();
}

void move_examples_to(DatasetSplits& splits, torch::Device device) {
  for (auto* set : {&splits.train, &splits.test}) {
    set->inputs = set->inputs.to(device);
    set->targets = set->targets.to(device);
  }
}

}  // namespace speedbench::data
