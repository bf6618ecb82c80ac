#include "harness/config/config_loader.h"

#include <limits>

#include "harness/config/json_file_kind.h"
#include "harness/config/json_reader.h"
#include "harness/techniques/registry.h"

namespace speedbench {

namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
constexpr double kHuge = 1e12;

DataConfig read_data(JsonObjectReader in) {
  DataConfig d;
  d.dataset = in.get_choice("dataset", d.dataset, {"fashion_mnist", "fortunes", "synthetic"});
  d.root = in.get_string("root", d.root);
  d.train_samples = in.get_int("train_samples", d.train_samples, 0, kMaxInt);
  d.test_samples = in.get_int("test_samples", d.test_samples, 0, kMaxInt);
  d.augment = in.get_bool("augment", d.augment);
  d.synthetic_shape = in.get_int_list("synthetic_shape", d.synthetic_shape, 1, 4096);
  if (d.synthetic_shape.size() != 3) in.fail("synthetic_shape", "expected 3 integers: C, H, W");
  d.synthetic_classes = in.get_int("synthetic_classes", d.synthetic_classes, 2, 100000);
  d.sequence_length = in.get_int("sequence_length", d.sequence_length, 2, 100000);
  d.on_device = in.get_bool("on_device", d.on_device);
  in.reject_unknown_keys();
  return d;
}

ModelConfig read_model(JsonObjectReader in) {
  ModelConfig m;
  m.arch = in.get_choice("arch", m.arch, {"resnet", "resnet18", "resnet50", "row_rnn", "char_lm"});
  m.depth = in.get_int("depth", m.depth, 8, 1000);
  if (m.arch == "resnet" && (m.depth - 2) % 6 != 0) {
    in.fail("depth", "got " + std::to_string(m.depth) + ", expected 6n+2 (8, 14, 20, 32, 44, 56)");
  }
  const bool imagenet_family = m.arch == "resnet18" || m.arch == "resnet50";
  const std::vector<int64_t> default_widths =
      imagenet_family ? std::vector<int64_t>{64, 128, 256, 512} : m.widths;
  m.widths = in.get_int_list("widths", default_widths, 1, 65536);
  const size_t stages = imagenet_family ? 4 : 3;
  if (is_resnet_arch(m) && m.widths.size() != stages) {
    in.fail("widths", "expected " + std::to_string(stages) + " stage widths for " + m.arch);
  }
  m.stem = in.get_choice("stem", m.arch == "resnet50" ? "imagenet" : m.stem, {"cifar", "imagenet"});
  m.cell = in.get_choice("cell", m.cell, {"lstm", "gru"});
  m.hidden = in.get_int("hidden", m.hidden, 1, 65536);
  m.layers = in.get_int("layers", m.layers, 1, 64);
  m.embedding = in.get_int("embedding", m.embedding, 1, 65536);
  in.reject_unknown_keys();
  return m;
}

OptimizerConfig read_optimizer(JsonObjectReader in) {
  OptimizerConfig o;
  o.name = in.get_choice("name", o.name, {"sgd", "adam", "adamw"});
  o.lr = in.get_double("lr", o.lr, 1e-12, 1e4);
  o.momentum = in.get_double("momentum", o.momentum, 0.0, 1.0);
  o.nesterov = in.get_bool("nesterov", o.nesterov);
  o.weight_decay = in.get_double("weight_decay", o.weight_decay, 0.0, 10.0);
  o.beta1 = in.get_double("beta1", o.beta1, 0.0, 0.999999);
  o.beta2 = in.get_double("beta2", o.beta2, 0.0, 0.999999999);
  o.eps = in.get_double("eps", o.eps, 1e-16, 1.0);
  if (o.nesterov && (o.name != "sgd" || o.momentum == 0.0)) {
    in.fail("nesterov", "needs name \"sgd\" and momentum > 0");
  }
  in.reject_unknown_keys();
  return o;
}

LrScheduleConfig read_lr_schedule(JsonObjectReader in) {
  LrScheduleConfig l;
  l.kind = in.get_choice("kind", l.kind, {"constant", "step", "cosine", "cyclic", "one_cycle"});
  l.max_lr = in.get_double("max_lr", l.max_lr, 0.0, 1e4);
  l.step_size = in.get_int("step_size", l.step_size, 1, kMaxInt);
  l.gamma = in.get_double("gamma", l.gamma, 1e-9, 1.0);
  l.min_lr = in.get_double("min_lr", l.min_lr, 0.0, 1e4);
  l.step_size_up = in.get_int("step_size_up", l.step_size_up, 0, kMaxInt);
  l.cyclic_mode =
      in.get_choice("cyclic_mode", l.cyclic_mode, {"triangular", "triangular2", "exp_range"});
  l.pct_start = in.get_double("pct_start", l.pct_start, 0.001, 0.999);
  l.anneal = in.get_choice("anneal", l.anneal, {"cos", "linear"});
  l.div_factor = in.get_double("div_factor", l.div_factor, 1.0, 1e9);
  l.final_div_factor = in.get_double("final_div_factor", l.final_div_factor, 1.0, 1e12);
  l.cycle_momentum = in.get_bool("cycle_momentum", l.cycle_momentum);
  l.base_momentum = in.get_double("base_momentum", l.base_momentum, 0.0, 0.999999);
  l.max_momentum = in.get_double("max_momentum", l.max_momentum, 0.0, 0.999999);
  if ((l.kind == "cyclic" || l.kind == "one_cycle") && l.max_lr <= 0.0) {
    in.fail("max_lr", "kind \"" + l.kind +
                          "\" needs max_lr > 0 (the peak; `speedbench lr-find` suggests one)");
  }
  if (l.base_momentum > l.max_momentum) in.fail("base_momentum", "must not exceed max_momentum");
  in.reject_unknown_keys();
  return l;
}

MaxBatchConfig read_max_batch(JsonObjectReader in) {
  MaxBatchConfig b;
  b.enabled = in.get_bool("enabled", b.enabled);
  b.budget_bytes =
      in.get_int("budget_bytes", b.budget_bytes, 0, std::numeric_limits<int64_t>::max());
  b.limit = in.get_int("limit", b.limit, 1, kMaxInt);
  b.warmup_steps = in.get_int("warmup_steps", b.warmup_steps, 0, kMaxInt);
  in.reject_unknown_keys();
  return b;
}

Techniques read_techniques(JsonObjectReader in) {
  Techniques t;
  t.lr_schedule = read_lr_schedule(in.child("lr_schedule"));
  t.loader_workers = in.get_int("loader_workers", t.loader_workers, 0, 64);
  t.pin_memory = in.get_bool("pin_memory", t.pin_memory);
  t.max_batch = read_max_batch(in.child("max_batch"));
  t.amp = in.get_choice("amp", t.amp, {"off", "bf16", "fp16"});
  t.optimizer_impl =
      in.get_choice("optimizer_impl", t.optimizer_impl, {"loop", "foreach", "fused"});
  t.cudnn_benchmark = in.get_bool("cudnn_benchmark", t.cudnn_benchmark);
  t.sync_avoidance = in.get_bool("sync_avoidance", t.sync_avoidance);
  t.sync_every_steps = in.get_int("sync_every_steps", t.sync_every_steps, 1, kMaxInt);
  t.checkpointing = in.get_bool("checkpointing", t.checkpointing);
  t.checkpoint_segments = in.get_int("checkpoint_segments", t.checkpoint_segments, 1, 1000);
  t.grad_accumulation = in.get_int("grad_accumulation", t.grad_accumulation, 1, 4096);
  t.ddp_world_size = in.get_int("ddp_world_size", t.ddp_world_size, 1, 4096);
  t.ddp_bucket_cap_mb = in.get_double("ddp_bucket_cap_mb", t.ddp_bucket_cap_mb, 1e-6, 1e6);
  t.ddp_timeout_s = in.get_double("ddp_timeout_s", t.ddp_timeout_s, 1.0, 86400.0);
  t.zero_grad_none = in.get_bool("zero_grad_none", t.zero_grad_none);
  t.host_to_tensor = in.get_bool("host_to_tensor", t.host_to_tensor);
  t.debug_mode = in.get_choice("debug_mode", t.debug_mode, {"off", "anomaly", "profiler"});
  t.grad_clipping = in.get_double("grad_clipping", t.grad_clipping, 0.0, kHuge);
  t.bn_no_bias = in.get_bool("bn_no_bias", t.bn_no_bias);
  t.eval_no_grad = in.get_bool("eval_no_grad", t.eval_no_grad);
  t.input_norm = in.get_bool("input_norm", t.input_norm);
  t.channels_last = in.get_bool("channels_last", t.channels_last);
  t.tf32 = in.get_bool("tf32", t.tf32);
  t.cuda_graphs = in.get_bool("cuda_graphs", t.cuda_graphs);
  t.host_memory_reuse = in.get_bool("host_memory_reuse", t.host_memory_reuse);
  in.reject_unknown_keys();
  return t;
}

nlohmann::json lr_schedule_to_json(const LrScheduleConfig& l) {
  return {{"kind", l.kind},
          {"max_lr", l.max_lr},
          {"step_size", l.step_size},
          {"gamma", l.gamma},
          {"min_lr", l.min_lr},
          {"step_size_up", l.step_size_up},
          {"cyclic_mode", l.cyclic_mode},
          {"pct_start", l.pct_start},
          {"anneal", l.anneal},
          {"div_factor", l.div_factor},
          {"final_div_factor", l.final_div_factor},
          {"cycle_momentum", l.cycle_momentum},
          {"base_momentum", l.base_momentum},
          {"max_momentum", l.max_momentum}};
}

// A captured CUDA graph replays fixed work: no host decisions, host-side state or changing LR.
void check_cuda_graphs(const TrainConfig& c, const std::string& file) {
  const auto& t = c.techniques;
  const std::vector<std::pair<bool, std::string>> conflicts = {
      {t.lr_schedule.kind != "constant", "lr_schedule (the LR is baked into the graph)"},
      {t.max_batch.enabled, "max_batch (its LR warmup changes the LR)"},
      {t.amp == "fp16", "amp fp16 (the scaler decides on the host whether to step)"},
      {t.grad_clipping > 0, "grad_clipping (clip_grad_norm_ reads the norm on the host)"},
      {t.grad_accumulation > 1, "grad_accumulation"},
      {t.checkpointing, "checkpointing"},
      {t.ddp_world_size > 1, "ddp (its all-reduces are launched from autograd hooks)"},
      {t.debug_mode != "off", "debug_mode"},
      {c.optimizer.name != "sgd" && t.optimizer_impl != "fused",
       "Adam/AdamW without optimizer_impl \"fused\" (their step count lives on the host)"},
  };
  for (const auto& [conflict, what] : conflicts) {
    if (conflict)
      throw ConfigError(file, "techniques.cuda_graphs", "cannot be combined with " + what);
  }
}

// Checks that need more than one field.
void check_combinations(const TrainConfig& c, const std::string& file) {
  const bool text_model = c.model.arch == "char_lm";
  const bool text_data = c.data.dataset == "fortunes";
  if (text_model != text_data) {
    throw ConfigError(file, "model.arch",
                      "\"" + c.model.arch + "\" cannot train on dataset \"" + c.data.dataset +
                          "\": char_lm needs \"fortunes\"; image models need \"fashion_mnist\" or "
                          "\"synthetic\"");
  }
  if (c.data.augment && text_data) {
    throw ConfigError(file, "data.augment", "augmentation applies to images only");
  }
  const bool resnet = is_resnet_arch(c.model);
  const auto& t = c.techniques;
  if (t.amp == "fp16" && c.device == "cpu") {
    throw ConfigError(
        file, "techniques.amp",
        "\"fp16\" (autocast + gradient scaler) needs device \"cuda\"; on the CPU use \"bf16\"");
  }
  if (t.checkpointing && !resnet) {
    throw ConfigError(
        file, "techniques.checkpointing",
        "checkpointing works on the segments of a ResNet (model.arch resnet, resnet18 or "
        "resnet50), not on " +
            c.model.arch);
  }
  if (t.channels_last && !resnet) {
    throw ConfigError(file, "techniques.channels_last",
                      "channels_last needs a convolutional model (resnet, resnet18, resnet50)");
  }
  if (c.batch_size % t.grad_accumulation != 0) {
    throw ConfigError(file, "techniques.grad_accumulation",
                      "batch_size " + std::to_string(c.batch_size) + " is not divisible into " +
                          std::to_string(t.grad_accumulation) + " equal micro-batches");
  }
  if (t.max_batch.enabled && c.device == "cpu" && t.max_batch.budget_bytes <= 0) {
    throw ConfigError(file, "techniques.max_batch.budget_bytes",
                      "on the CPU max_batch needs a budget in tracked tensor bytes (> 0)");
  }
  if (t.cuda_graphs) check_cuda_graphs(c, file);
  for (const auto& info : technique_registry()) {
    if (info.is_on(c) && !info.implemented) {
      throw ConfigError(
          file, info.config_field,
          "technique '" + info.id +
              "' is registered but its mechanism is not implemented yet (see the open "
              "issues); leave it at its default (off)");
    }
  }
}

}  // namespace

TrainConfig train_config_from_json(const nlohmann::json& json, const std::string& file) {
  JsonObjectReader in(json, file, "");
  TrainConfig c;
  c.workload = in.get_string("workload", c.workload);
  c.data = read_data(in.child("data"));
  c.model = read_model(in.child("model"));
  c.optimizer = read_optimizer(in.child("optimizer"));
  c.techniques = read_techniques(in.child("techniques"));
  c.batch_size = in.get_int("batch_size", c.batch_size, 1, kMaxInt);
  c.epochs = in.get_int("epochs", c.epochs, 1, 100000);
  c.max_steps = in.get_int("max_steps", c.max_steps, 0, std::numeric_limits<int64_t>::max());
  c.warmup_steps = in.get_int("warmup_steps", c.warmup_steps, 0, kMaxInt);
  c.eval_every_steps = in.get_int("eval_every_steps", c.eval_every_steps, 0, kMaxInt);
  c.eval_batch_size = in.get_int("eval_batch_size", c.eval_batch_size, 1, kMaxInt);
  c.target_accuracy = in.get_double("target_accuracy", c.target_accuracy, 0.0, 1.0);
  c.divergence_loss = in.get_double("divergence_loss", c.divergence_loss, 0.0, kHuge);
  c.seed = in.get_int("seed", c.seed, 0, std::numeric_limits<int64_t>::max());
  c.device = in.get_choice("device", c.device, {"cpu", "cuda"});
  c.threads = in.get_int("threads", c.threads, 1, 1024);
  c.deterministic = in.get_bool("deterministic", c.deterministic);
  c.progress_every_s = in.get_int("progress_every_s", c.progress_every_s, 0, 86400);
  in.reject_unknown_keys();
  check_combinations(c, file);
  return c;
}

TrainConfig load_train_config(const std::string& path) {
  const auto json = read_json_file_of_kind(path, JsonFileKind::kTrainConfig);
  return train_config_from_json(json, path);
}

nlohmann::json train_config_to_json(const TrainConfig& c) {
  const auto& d = c.data;
  const auto& m = c.model;
  const auto& o = c.optimizer;
  const auto& t = c.techniques;
  return {
      {"workload", workload_name(c)},
      {"data",
       {{"dataset", d.dataset},
        {"root", d.root},
        {"train_samples", d.train_samples},
        {"test_samples", d.test_samples},
        {"augment", d.augment},
        {"synthetic_shape", d.synthetic_shape},
        {"synthetic_classes", d.synthetic_classes},
        {"sequence_length", d.sequence_length},
        {"on_device", d.on_device}}},
      {"model",
       {{"arch", m.arch},
        {"depth", m.depth},
        {"widths", m.widths},
        {"stem", m.stem},
        {"cell", m.cell},
        {"hidden", m.hidden},
        {"layers", m.layers},
        {"embedding", m.embedding}}},
      {"optimizer",
       {{"name", o.name},
        {"lr", o.lr},
        {"momentum", o.momentum},
        {"nesterov", o.nesterov},
        {"weight_decay", o.weight_decay},
        {"beta1", o.beta1},
        {"beta2", o.beta2},
        {"eps", o.eps}}},
      {"techniques",
       {{"lr_schedule", lr_schedule_to_json(t.lr_schedule)},
        {"loader_workers", t.loader_workers},
        {"pin_memory", t.pin_memory},
        {"max_batch",
         {{"enabled", t.max_batch.enabled},
          {"budget_bytes", t.max_batch.budget_bytes},
          {"limit", t.max_batch.limit},
          {"warmup_steps", t.max_batch.warmup_steps}}},
        {"amp", t.amp},
        {"optimizer_impl", t.optimizer_impl},
        {"cudnn_benchmark", t.cudnn_benchmark},
        {"sync_avoidance", t.sync_avoidance},
        {"sync_every_steps", t.sync_every_steps},
        {"checkpointing", t.checkpointing},
        {"checkpoint_segments", t.checkpoint_segments},
        {"grad_accumulation", t.grad_accumulation},
        {"ddp_world_size", t.ddp_world_size},
        {"ddp_bucket_cap_mb", t.ddp_bucket_cap_mb},
        {"ddp_timeout_s", t.ddp_timeout_s},
        {"zero_grad_none", t.zero_grad_none},
        {"host_to_tensor", t.host_to_tensor},
        {"debug_mode", t.debug_mode},
        {"grad_clipping", t.grad_clipping},
        {"bn_no_bias", t.bn_no_bias},
        {"eval_no_grad", t.eval_no_grad},
        {"input_norm", t.input_norm},
        {"channels_last", t.channels_last},
        {"tf32", t.tf32},
        {"cuda_graphs", t.cuda_graphs},
        {"host_memory_reuse", t.host_memory_reuse}}},
      {"batch_size", c.batch_size},
      {"epochs", c.epochs},
      {"max_steps", c.max_steps},
      {"warmup_steps", c.warmup_steps},
      {"eval_every_steps", c.eval_every_steps},
      {"eval_batch_size", c.eval_batch_size},
      {"target_accuracy", c.target_accuracy},
      {"divergence_loss", c.divergence_loss},
      {"seed", c.seed},
      {"device", c.device},
      {"threads", c.threads},
      {"deterministic", c.deterministic},
      {"progress_every_s", c.progress_every_s},
  };
}

std::string workload_name(const TrainConfig& config) {
  return config.workload.empty() ? config.data.dataset + "/" + config.model.arch : config.workload;
}

}  // namespace speedbench
