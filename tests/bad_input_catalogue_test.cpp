// The bad-input catalogue (reliability contract, DESIGN.md): every entry is a real command on
// bad input - configs, suites, claims, datasets, result files, flags, the environment - and must
// end with exit code 2 and ONE error line that names where (file, or "command line" /
// "environment"), what (field or line) and what was expected, leaving no output behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>

#include "build_paths.h"
#include "tests/test_support.h"

namespace speedbench {
namespace {

using testing::TempDir;

struct BadInput {
  std::string name;
  std::map<std::string, std::string> files;  // relative path -> content (see write_case_file)
  std::string command;                       // {dir} = the case's folder, {out} = its results root
  std::vector<std::string> expected;         // substrings of the error line; {dir} expanded
};

const char* kGoodConfig =
    R"({"data": {"train_samples": 128, "test_samples": 64}, "model": {"widths": [4, 8, 8]},
  "batch_size": 32, "max_steps": 2, "warmup_steps": 0, "progress_every_s": 0})";

std::string with(const std::string& json_fields) {
  return std::string(
             R"({"data": {"train_samples": 128, "test_samples": 64}, "progress_every_s": 0, )") +
         json_fields + "}";
}

std::string suite_with(const std::string& fields) {
  return std::string(
             R"({"name": "bad", "device": "cpu", "design": "one_at_a_time", "repetitions": 1,
    "base": {"max_steps": 1, "warmup_steps": 0, "data": {"train_samples": 64, "test_samples": 32}, "batch_size": 32},
    "workloads": [{"name": "w", "config": {}}], )") +
         fields + "}";
}

const char* kGoodSuiteTail =
    R"("techniques": [{"id": "zero_grad_none", "config": {"techniques": {"zero_grad_none": true}}}])";

// One claim object; `override_fields` replaces fields (JSON keeps the last duplicate key).
std::string claim(const std::string& override_fields = "") {
  return std::string(R"({"id": "c1", "technique": "amp", "workload": "w", "device": "cpu",
    "metric": "throughput", "direction": ">=", "threshold": 1.1, "source": "s", "statement": "t")") +
         override_fields + "}";
}

std::string claims_with(const std::string& override_fields) {
  return R"({"claims": [)" + claim(override_fields) + "]}";
}

std::vector<BadInput> catalogue() {
  const std::string exe = testing::speedbench_executable();
  const std::string run = exe + " run-one --out {out} --config {dir}/c.json";
  const std::string suite = exe + " run --out {out} --suite {dir}/s.json";
  // One case per line, so that the catalogue reads as a table.
  // clang-format off
  return {
      // ---- configs -----------------------------------------------------------------------------
      {"config: malformed JSON", {{"c.json", "{\"batch_size\": 32,"}}, run, {"{dir}/c.json", "JSON"}},
      {"config: a number too large", {{"c.json", "{\"batch_size\": 77e12470}"}}, run, {"{dir}/c.json", "invalid JSON"}},
      {"config: not an object", {{"c.json", "[1, 2]"}}, run, {"{dir}/c.json", "object"}},
      {"config: empty file", {{"c.json", ""}}, run, {"{dir}/c.json"}},
      {"config: missing file", {}, run, {"{dir}/c.json", "cannot open"}},
      {"config: unknown key", {{"c.json", with(R"("batchsize": 32)")}}, run, {"{dir}/c.json", "'batchsize'"}},
      {"config: wrong type", {{"c.json", with(R"("batch_size": "32")")}}, run, {"{dir}/c.json", "'batch_size'"}},
      {"config: zero batch", {{"c.json", with(R"("batch_size": 0)")}}, run, {"{dir}/c.json", "'batch_size'", "got 0"}},
      {"config: negative epochs", {{"c.json", with(R"("epochs": -1)")}}, run, {"{dir}/c.json", "'epochs'"}},
      {"config: negative lr", {{"c.json", with(R"("optimizer": {"lr": -0.1})")}}, run, {"{dir}/c.json", "'optimizer.lr'"}},
      {"config: unknown arch", {{"c.json", with(R"("model": {"arch": "vgg"})")}}, run, {"{dir}/c.json", "'model.arch'", "vgg"}},
      {"config: resnet depth", {{"c.json", with(R"("model": {"depth": 9})")}}, run, {"{dir}/c.json", "'model.depth'", "6n+2"}},
      {"config: zero threads", {{"c.json", with(R"("threads": 0)")}}, run, {"{dir}/c.json", "'threads'"}},
      {"config: unknown dataset", {{"c.json", with(R"("data": {"dataset": "imagenet"})")}}, run, {"{dir}/c.json", "'data.dataset'"}},
      {"config: unknown technique", {{"c.json", with(R"("techniques": {"turbo": true})")}}, run, {"{dir}/c.json", "'techniques.turbo'"}},
      {"config: fp16 on the CPU", {{"c.json", with(R"("techniques": {"amp": "fp16"})")}}, run, {"{dir}/c.json", "'techniques.amp'", "cuda"}},
      {"config: DDP world size 0", {{"c.json", with(R"("techniques": {"ddp_world_size": 0})")}}, run, {"{dir}/c.json", "'techniques.ddp_world_size'", "got 0"}},
      {"config: uneven accumulation", {{"c.json", with(R"("batch_size": 100, "techniques": {"grad_accumulation": 3})")}}, run, {"{dir}/c.json", "'techniques.grad_accumulation'", "not divisible"}},
      {"config: checkpointing an RNN", {{"c.json", with(R"("model": {"arch": "row_rnn"}, "techniques": {"checkpointing": true})")}}, run, {"{dir}/c.json", "'techniques.checkpointing'"}},
      {"config: augmenting text", {{"c.json", with(R"("model": {"arch": "char_lm"}, "data": {"dataset": "fortunes", "augment": true})")}}, run, {"{dir}/c.json", "'data.augment'", "images only"}},
      {"config: channels_last on an RNN", {{"c.json", with(R"("model": {"arch": "row_rnn"}, "techniques": {"channels_last": true})")}}, run, {"{dir}/c.json", "'techniques.channels_last'", "resnet"}},
      {"config: char LM on images", {{"c.json", with(R"("model": {"arch": "char_lm"})")}}, run, {"{dir}/c.json", "'model.arch'", "fortunes"}},
      {"config: cuda graphs with a schedule", {{"c.json", with(R"("device": "cuda", "techniques": {"cuda_graphs": true, "lr_schedule": {"kind": "cosine"}})")}}, run, {"{dir}/c.json", "'techniques.cuda_graphs'"}},
      {"config: batch larger than the data", {{"c.json", with(R"("batch_size": 4096)")}}, run, {"{dir}/c.json", "'batch_size'", "got 4096", "more than the 128 training examples"}},
      {"config: a warmup as long as the run (it reported 0 samples/s)", {{"c.json", with(R"("batch_size": 32, "max_steps": 3, "warmup_steps": 3)")}}, run, {"{dir}/c.json", "'warmup_steps'", "got 3, but the run trains 3 steps", "no step would be timed"}},
      {"config: lr-find with a batch larger than the data (it swept forever)", {{"c.json", with(R"("batch_size": 4096)")}}, "timeout 60 " + exe + " lr-find --config {dir}/c.json --steps 3", {"{dir}/c.json", "'batch_size'", "got 4096"}},
      {"config: a suite given to run-one", {{"c.json", suite_with(kGoodSuiteTail)}}, run, {"{dir}/c.json", "expected a TrainConfig, got a suite", "speedbench run --suite {dir}/c.json"}},
      {"config: unknown optimizer", {{"c.json", with(R"("optimizer": {"name": "lion"})")}}, run, {"{dir}/c.json", "'optimizer.name'", "lion"}},
      // ---- datasets ----------------------------------------------------------------------------
      {"dataset: missing folder", {{"c.json", with(R"("data": {"root": "/nonexistent/fashion"})")}}, run, {"/nonexistent/fashion", "dataset-fashion-mnist"}},
      {"dataset: truncated IDX", {{"c.json", with(R"("data": {"root": "{dir}/fm"})")}, {"fm/train-images-idx3-ubyte.gz", "<gzip:idx-truncated>"}}, run, {"{dir}/fm/train-images-idx3-ubyte.gz"}},
      {"dataset: bad IDX magic", {{"c.json", with(R"("data": {"root": "{dir}/fm"})")}, {"fm/train-images-idx3-ubyte.gz", "<gzip:idx-bad-magic>"}}, run, {"{dir}/fm/train-images-idx3-ubyte.gz", "magic"}},
      {"dataset: too little fortune text", {{"c.json", with(R"("model": {"arch": "char_lm"}, "data": {"dataset": "fortunes", "root": "{dir}/fortunes"})")}, {"fortunes/tiny", "Only a fortune.\n"}}, run, {"{dir}/fortunes", "fortunes"}},
      // ---- suites ------------------------------------------------------------------------------
      {"suite: malformed JSON", {{"s.json", "{\"name\": \"x\""}}, suite, {"{dir}/s.json", "JSON"}},
      {"suite: unknown key", {{"s.json", suite_with(std::string(kGoodSuiteTail) + R"(, "colour": "red")")}}, suite, {"{dir}/s.json", "'colour'"}},
      {"suite: no workloads", {{"s.json", R"({"name": "bad", "workloads": []})"}}, suite, {"{dir}/s.json", "'workloads'"}},
      {"suite: duplicate workloads", {{"s.json", R"({"name": "bad", "workloads": [{"name": "w"}, {"name": "w"}], "techniques": []})"}}, suite, {"{dir}/s.json", "name", "w"}},
      {"suite: unknown technique id", {{"s.json", suite_with(R"("techniques": [{"id": "turbo", "config": {}}])")}}, suite, {"{dir}/s.json", "turbo"}},
      {"suite: a toggle that does not switch", {{"s.json", suite_with(R"("techniques": [{"id": "amp", "config": {"techniques": {"amp": "off"}}}])")}}, suite, {"{dir}/s.json", "amp"}},
      {"suite: zero repetitions", {{"s.json", suite_with(std::string(kGoodSuiteTail) + R"(, "repetitions": 0)")}}, suite, {"{dir}/s.json", "'repetitions'"}},
      {"suite: unknown design", {{"s.json", R"({"name": "bad", "design": "zigzag"})"}}, suite, {"{dir}/s.json", "'design'", "zigzag"}},
      {"suite: a name that leaves the results folder", {{"s.json", R"({"name": "..", "workloads": []})"}}, suite, {"{dir}/s.json", "'name'", "\"..\""}},
      {"suite: CUDA on a CPU machine", {{"s.json", R"({"name": "g", "device": "cuda", "design": "one_at_a_time", "workloads": [{"name": "w"}], "techniques": [{"id": "tf32", "config": {"techniques": {"tf32": true}}}]})"}}, suite, {"{dir}/s.json", "'device'", "no CUDA device"}},
      {"suite: a sweep of one value", {{"s.json", R"({"name": "s", "design": "scaling", "workloads": [{"name": "w"}], "sweep": {"field": "batch_size", "values": [64]}})"}}, suite, {"{dir}/s.json", "values"}},
      {"suite: a workload config that is not an object", {{"s.json", R"({"name": "s", "design": "one_at_a_time", "workloads": [{"name": "w", "config": 3}], )" + std::string(kGoodSuiteTail) + "}"}}, suite, {"{dir}/s.json", "'workloads[0].config'", "JSON object"}},
      {"suite: a grid whose first variant leaves out a workload", {{"s.json", R"({"name": "g", "design": "grid", "workloads": [{"name": "a"}, {"name": "b"}], "variants": [{"name": "base", "workloads": ["a"]}, {"name": "v", "config": {"batch_size": 16}}]})"}}, suite, {"{dir}/s.json", "'variants[0].workloads'", "every workload's baseline"}},
      {"suite: a variant restricted to no workload", {{"s.json", R"({"name": "g", "design": "grid", "workloads": [{"name": "a"}], "variants": [{"name": "base"}, {"name": "v", "workloads": []}]})"}}, suite, {"{dir}/s.json", "'variants[1].workloads'", "non-empty list of workload names"}},
      {"suite: a sweep of a field that is no field path", {{"s.json", R"({"name": "s", "design": "scaling", "workloads": [{"name": "w"}], "sweep": {"field": "Batch Size", "values": [32, 64]}})"}}, suite, {"{dir}/s.json", "'sweep.field'", "\"Batch Size\"", "config field path"}},
      {"suite: a variant on another device than its suite", {{"s.json", suite_with(R"("techniques": [{"id": "tf32", "config": {"device": "cuda", "techniques": {"tf32": true}}}])")}}, suite, {"{dir}/s.json", "techniques[0] (tf32) on workload w: device", "set the suite's \"device\" instead"}},
      {"suite: a bad variant config", {{"s.json", suite_with(R"("techniques": [{"id": "zero_grad_none", "config": {"techniques": {"zero_grad_none": true}, "batch_size": -4}}])")}}, suite, {"{dir}/s.json", "batch_size"}},
      {"suite: a warmup longer than a variant's epochs, found before any run", {{"s.json", suite_with(R"("techniques": [{"id": "zero_grad_none", "config": {"max_steps": 0, "epochs": 1, "warmup_steps": 5, "techniques": {"zero_grad_none": true}}}])")}}, suite, {"{dir}/s.json", "'zero_grad_none on workload w: warmup_steps'", "got 5, but the run trains 2 steps (1 epoch of 2 steps)"}},
      {"suite: a dataset that is not installed", {{"s.json", R"({"name": "d", "design": "one_at_a_time", "workloads": [{"name": "w", "config": {"data": {"root": "/nonexistent/fashion"}}}], )" + std::string(kGoodSuiteTail) + "}"}}, suite, {"/nonexistent/fashion", "dataset-fashion-mnist"}},
      {"suite: a seed whose repetitions' seeds overflow", {{"s.json", R"({"name": "s", "design": "one_at_a_time", "repetitions": 2, "workloads": [{"name": "w"}], "techniques": [{"id": "zero_grad_none", "config": {"seed": 9223372036854775807, "techniques": {"zero_grad_none": true}}}]})"}}, suite, {"{dir}/s.json", "(zero_grad_none) on workload w: seed'", "got 9223372036854775807", "with 2 repetitions expected at most 9223372036854775806"}},
      {"suite: a variant's batch larger than the data, found before any run", {{"s.json", suite_with(R"("techniques": [{"id": "zero_grad_none", "config": {"batch_size": 128, "techniques": {"zero_grad_none": true}}}])")}}, suite, {"{dir}/s.json", "'zero_grad_none on workload w: batch_size'", "got 128", "more than the 64 training examples"}},
      {"suite: SPEEDBENCH_FORTUNES_DIR names no folder", {{"s.json", R"({"name": "f", "design": "one_at_a_time", "workloads": [{"name": "w", "config": {"model": {"arch": "char_lm"}, "data": {"dataset": "fortunes"}}}], )" + std::string(kGoodSuiteTail) + "}"}}, "SPEEDBENCH_FORTUNES_DIR=/nonexistent/fortunes " + suite, {"/nonexistent/fortunes", "SPEEDBENCH_FORTUNES_DIR"}},
      {"suite: a TrainConfig given to run --suite", {{"s.json", kGoodConfig}}, suite, {"{dir}/s.json", "expected a suite, got a TrainConfig", "speedbench run-one --config {dir}/s.json"}},
      {"suite: records given to run --suite", {{"s.json", "<record>\n<record>"}}, suite, {"{dir}/s.json", "expected a suite, got records (a runs.jsonl)", "speedbench report {dir}/s.json"}},
      {"suite: --only an unknown technique", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --only turbo", {"--only", "turbo"}},
      {"suite: --exclude every technique", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --only zero_grad_none --exclude zero_grad_none", {"command line", "'--exclude'", "of zero_grad_none none is left", "baselines alone"}},
      {"suite: --base that is not JSON", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --base '{techniques'", {"command line", "'--base'", "'{techniques'", "not JSON", "expected a JSON object"}},
      {"suite: --base that sets the device", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + R"( --base '{"device": "cuda"}')", {"command line", "'--base'", "sets device", "\"cpu\""}},
      {"suite: --base with an unknown key", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + R"( --base '{"techniques": {"turbo": true}}')", {"{dir}/s.json", "techniques.turbo", "unknown key", "--base {\"techniques\":{\"turbo\":true}} changed it"}},
      {"suite: --base turns on what a toggle turns on", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + R"( --base '{"techniques": {"zero_grad_none": true}}')", {"{dir}/s.json", "leaves zero_grad_none on", "leave this toggle out with --exclude zero_grad_none (in the suite as --base {\"techniques\":{\"zero_grad_none\":true}} changed it)"}},
      {"suite: --base with --config", {{"c.json", kGoodConfig}}, exe + R"( run --config {dir}/c.json --base '{"max_steps": 1}')", {"command line", "--base requires --suite"}},
      {"suite: --repetitions 0", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --repetitions 0", {"command line", "--repetitions", "1 to 1000"}},
      {"suite: --repetitions with --config", {{"c.json", kGoodConfig}}, exe + " run --config {dir}/c.json --repetitions 3", {"command line", "--repetitions requires --suite"}},
      {"suite: --time-budget 0", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --time-budget 0", {"command line", "--time-budget: expected a number of seconds above 0, got '0'"}},
      {"suite: --time-budget with --config", {{"c.json", kGoodConfig}}, exe + " run --config {dir}/c.json --time-budget 60", {"command line", "--time-budget requires --suite"}},
      {"suite: --against a file that does not exist", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --against {dir}/old-build", {"command line", "'--against'", "{dir}/old-build", "expected a speedbench executable"}},
      {"suite: --against a program that is not speedbench", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --against /bin/true", {"command line", "'--against'", "/bin/true", "not a line starting with \"speedbench \""}},
      {"suite: --against a build whose run-one lacks an option the runner passes", {{"s.json", suite_with(kGoodSuiteTail)}, {"old-build", "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'speedbench 0.1.0 (commit 1234567, Release build)'; exit 0; }\nprintf 'Options:\\n  -h,--help  Print this help\\n  --config TEXT REQUIRED\\n  --records TEXT\\n  --run-id TEXT\\n  --suite TEXT\\n  --variant TEXT\\n  --run-index INT\\n  --repetition INT\\n  --data-root TEXT\\n'\n"}}, suite + " --against {dir}/old-build", {"command line", "'--against'", "{dir}/old-build", "speedbench 0.1.0 (commit 1234567, Release build) has a `run-one` without --brief, which the suite runner passes to every run"}},
      {"flag: run-one --records with --out (--out was ignored)", {{"c.json", kGoodConfig}}, run + " --records {dir}/r/runs.jsonl", {"command line", "--out excludes --records"}},
      {"suite: --only with --config (it was ignored)", {{"c.json", kGoodConfig}}, exe + " run --config {dir}/c.json --only amp", {"command line", "--only requires --suite"}},
      {"suite: --nproc with --suite (it was ignored)", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --nproc 2", {"command line", "--nproc requires --config"}},
      {"suite: --against with --config", {{"c.json", kGoodConfig}}, exe + " run --config {dir}/c.json --against " + exe, {"command line", "--against requires --suite"}},
      {"suite: --resume without an earlier run", {{"s.json", suite_with(kGoodSuiteTail)}}, suite + " --resume", {"--resume", "no earlier run"}},
      // ---- claims ------------------------------------------------------------------------------
      {"claims: malformed JSON", {{"r/runs.jsonl", "<record>"}, {"claims.json", "{\"claims\": ["}}, exe + " verify {dir}/r --claims {dir}/claims.json", {"{dir}/claims.json", "JSON"}},
      {"claims: unknown metric", {{"r/runs.jsonl", "<record>"}, {"claims.json", claims_with(R"(, "metric": "speed")")}}, exe + " verify {dir}/r --claims {dir}/claims.json", {"{dir}/claims.json", "metric"}},
      {"claims: bad direction", {{"r/runs.jsonl", "<record>"}, {"claims.json", claims_with(R"(, "direction": "=>")")}}, exe + " verify {dir}/r --claims {dir}/claims.json", {"{dir}/claims.json", "direction"}},
      {"claims: duplicate ids", {{"r/runs.jsonl", "<record>"}, {"claims.json", R"({"claims": [)" + claim() + "," + claim() + "]}"}}, exe + " verify {dir}/r --claims {dir}/claims.json", {"{dir}/claims.json", "c1"}},
      {"claims: a suite given as the claims", {{"r/runs.jsonl", "<record>"}, {"claims.json", suite_with(kGoodSuiteTail)}}, exe + " verify {dir}/r --claims {dir}/claims.json", {"{dir}/claims.json", "expected a claims registry, got a suite"}},
      {"claims: a --claims file that is not there", {{"r/runs.jsonl", "<record>"}}, exe + " report {dir}/r --claims {dir}/claims.json", {"{dir}/claims.json", "cannot open"}},
      // ---- result files ------------------------------------------------------------------------
      {"results: missing folder", {}, exe + " report {dir}/nothing", {"{dir}/nothing", "no such file or folder"}},
      {"results: a suite's folder of runs", {{"smoke/20261201-101010-1/runs.jsonl", "<record>"}, {"smoke/20261203-090000-7/runs.jsonl", "<record>"}}, exe + " report {dir}/smoke", {"{dir}/smoke", "not one run", "the newest here: {dir}/smoke/20261203-090000-7"}},
      {"results: a folder without records", {{"r/notes.txt", "x"}}, exe + " compare {dir}/r {dir}/r", {"{dir}/r/runs.jsonl", "no records here"}},
      {"results: a corrupt line", {{"r/runs.jsonl", "<record>\n{\"schema_version\": 1, \"run_id\": \n<record>"}}, exe + " report {dir}/r", {"{dir}/r/runs.jsonl", "line 2"}},
      {"results: a suite given as records", {{"s.json", suite_with(kGoodSuiteTail)}}, exe + " report {dir}/s.json", {"{dir}/s.json", "expected records (a runs.jsonl), got a suite", "speedbench run --suite {dir}/s.json"}},
      {"results: a TrainConfig given to reproduce", {{"c.json", kGoodConfig}}, exe + " reproduce {dir}/c.json", {"{dir}/c.json", "expected records (a runs.jsonl), got a TrainConfig", "speedbench run-one --config {dir}/c.json"}},
      {"results: a negative measurement", {{"r/runs.jsonl", "<record>\n<record with a negative rate>"}}, exe + " report {dir}/r", {"{dir}/r/runs.jsonl", "line 2", "'samples_per_s' is -100.0 (expected a number >= 0)"}},
      {"results: a plan.json that is a list", {{"r/runs.jsonl", "<record>"}, {"r/plan.json", "[]"}}, exe + " report {dir}/r", {"{dir}/r/plan.json", "expected a JSON object"}},
      {"results: a plan.json without comparisons", {{"r/runs.jsonl", "<record>"}, {"r/plan.json", "{\"runs\": []}"}}, exe + " report {dir}/r", {"{dir}/r/plan.json", "'comparisons'", "expected a list of comparisons"}},
      {"results: a plan.json comparison with a number for a name", {{"r/runs.jsonl", "<record>"}, {"r/plan.json", "{\"comparisons\": [{\"workload\": 1, \"label\": \"a\", \"baseline\": \"b\", \"variant\": \"a\"}]}"}}, exe + " compare {dir}/r {dir}/r", {"{dir}/r/plan.json", "comparisons[0].workload"}},
      {"results: a plan.json whose design is a number", {{"r/runs.jsonl", "<record>"}, {"r/plan.json", "{\"design\": 3, \"comparisons\": []}"}}, exe + " verify {dir}/r", {"{dir}/r/plan.json", "'design'"}},
      {"results: a plan.json whose suite file is a number", {{"r/runs.jsonl", "<record>"}, {"r/plan.json", "{\"file\": 5, \"comparisons\": []}"}}, exe + " report {dir}/r", {"{dir}/r/plan.json", "'file'"}},
      {"results: empty records file", {{"r/runs.jsonl", ""}}, exe + " report {dir}/r", {"{dir}/r/runs.jsonl", "no records"}},
      {"results: a micro-benchmark file of another kind", {{"r/runs.jsonl", "<record>"}, {"m.json", "{\"records\": []}"}}, exe + " report {dir}/r --micro {dir}/m.json", {"{dir}/m.json", "'benchmarks'"}},
      {"compare: an unknown metric", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/r --metric speed", {"command line", "'--metric'", "expected a ratio metric", "'speed'"}},
      {"compare: a difference metric", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/r --metric accuracy", {"command line", "'--metric'", "'accuracy'", "no relative tolerance"}},
      {"compare: a tolerance out of range", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/r --tolerance 5", {"command line", "--tolerance", "5"}},
      {"compare: a missing folder", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/nothing", {"{dir}/nothing", "no such file or folder"}},
      {"compare: one folder that is no run --against folder", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r", {"command line", "'after'", "missing", "{dir}/r has none; give BEFORE and AFTER"}},
      {"compare: one path for --markdown and --json", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/r --markdown {dir}/c.txt --json {dir}/./c.txt", {"command line", "'--json'", "the --markdown file too"}},
      {"compare: a json path that is a folder", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/r --json {dir}/r", {"command line", "'--json'", "{dir}/r\" is a folder"}},
      {"compare: an unwritable markdown path", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/r --json {dir}/c.json --markdown /proc/c.md", {"command line", "'--markdown'", "/proc/c.md"}},
      {"results: reproduce a DDP run alone", {{"r/runs.jsonl", "<record of a DDP run>"}}, exe + " reproduce {dir}/r/runs.jsonl", {"{dir}/r/runs.jsonl (record of run_index 0)", "'metrics.distributed.world_size'", "--nproc 2"}},
      {"results: reproduce a record that is not there", {{"r/runs.jsonl", "<record>"}}, exe + " reproduce {dir}/r/runs.jsonl --line 9", {"--line", "got 9"}},
      // ---- flags and environment -----------------------------------------------------------------
      {"flag: an unknown option", {{"c.json", kGoodConfig}}, run + " --bogus", {"command line", "--bogus", "not expected"}},
      {"flag: a missing required option", {}, exe + " run-one", {"command line", "--config is required"}},
      {"flag: a mistyped required option", {{"c.json", kGoodConfig}}, exe + " run-one --confg {dir}/c.json", {"command line", "not expected: --confg"}},
      {"flag: a number that is not one", {{"c.json", kGoodConfig}}, run + " --nproc two", {"command line", "--nproc", "two"}},
      {"flag: no subcommand", {}, exe, {"command line", "expected a command (run-one, run,"}},
      {"flag: a mistyped command", {{"c.json", kGoodConfig}}, exe + " run-on --config {dir}/c.json", {"command line", "expected a command", "run-one", "got 'run-on'"}},
      {"flag: an option before the command", {}, exe + " --bogus", {"command line", "got '--bogus'"}},
      {"flag: --nproc -1", {{"c.json", kGoodConfig}}, run + " --nproc -1", {"command line", "--nproc"}},
      {"flag: --nproc 0 (it was taken as unset)", {{"c.json", kGoodConfig}}, run + " --nproc 0", {"command line", "--nproc", "Value 0 not in range 1 to 4096"}},
      {"flag: run --config --nproc 0", {{"c.json", kGoodConfig}}, exe + " run --config {dir}/c.json --nproc 0", {"command line", "--nproc", "Value 0 not in range 1 to 4096"}},
      {"flag: a negative --run-index", {{"c.json", kGoodConfig}}, run + " --run-index -1", {"command line", "--run-index", "expected a whole number from 0 to 999999999, got '-1'"}},
      {"flag: a negative --repetition", {{"c.json", kGoodConfig}}, run + " --repetition -3", {"command line", "--repetition", "got '-3'"}},
      {"flag: a --variant name with a slash", {{"c.json", kGoodConfig}}, run + " --variant a/b", {"command line", "--variant", "\"a/b\"", "expected a non-empty name"}},
      {"flag: a --suite name that leaves the results folder", {{"c.json", kGoodConfig}}, run + " --suite ../evil", {"command line", "--suite", "../evil"}},
      {"flag: an unwritable results folder", {{"c.json", kGoodConfig}}, exe + " run-one --out /proc/speedbench-results --config {dir}/c.json", {"command line", "--out", "/proc/speedbench-results"}},
      {"flag: an unwritable lr-find curve folder", {{"c.json", kGoodConfig}}, exe + " lr-find --config {dir}/c.json --out /proc/speedbench-lr/curve.json", {"command line", "--out", "/proc/speedbench-lr"}},
      {"flag: run-one --records a config (a record was appended to it)", {{"c.json", kGoodConfig}}, exe + " run-one --config {dir}/c.json --records {dir}/c.json", {"command line", "'--records'", "\"{dir}/c.json\" is not a runs.jsonl: its line 1 is not a record", "or a new file"}},
      {"flag: reproduce --out a suite", {{"r/runs.jsonl", "<record>"}, {"s.json", suite_with(kGoodSuiteTail)}}, exe + " reproduce {dir}/r --out {dir}/s.json", {"command line", "'--out'", "\"{dir}/s.json\" is not a runs.jsonl"}},
      {"flag: compare --json over records", {{"r/runs.jsonl", "<record>"}}, exe + " compare {dir}/r {dir}/r --json {dir}/r/runs.jsonl", {"command line", "'--json'", "\"{dir}/r/runs.jsonl\" holds records (a runs.jsonl), which this would overwrite"}},
      {"flag: lr-find --out over records", {{"c.json", kGoodConfig}, {"r/runs.jsonl", "<record>"}}, exe + " lr-find --config {dir}/c.json --out {dir}/r/runs.jsonl", {"command line", "'--out'", "holds records (a runs.jsonl)"}},
      {"flag: an unwritable reproduce records folder", {{"r/runs.jsonl", "<record>"}}, exe + " reproduce {dir}/r/runs.jsonl --out /proc/speedbench-rerun/runs.jsonl", {"command line", "--out", "/proc/speedbench-rerun"}},
      {"flag: lr-find start above end", {{"c.json", kGoodConfig}}, exe + " lr-find --config {dir}/c.json --start-lr 1 --end-lr 0.1", {"command line", "--start-lr", "got --start-lr 1 --end-lr 0.1 --steps 100"}},
      {"environment: WORLD_SIZE 0", {{"c.json", kGoodConfig}}, "RANK=0 WORLD_SIZE=0 " + run, {"environment", "'WORLD_SIZE'", "got \"0\""}},
      {"environment: RANK without WORLD_SIZE", {{"c.json", kGoodConfig}}, "RANK=0 " + run, {"environment", "'WORLD_SIZE'", "not set"}},
  };
  // clang-format on
}

std::string expand(std::string text, const std::string& dir) {
  text = std::regex_replace(text, std::regex("\\{dir\\}"), dir);
  return std::regex_replace(text, std::regex("\\{out\\}"), dir + "/out");
}

std::vector<uint8_t> idx_header(uint32_t magic, std::vector<uint32_t> dims) {
  std::vector<uint8_t> bytes;
  auto put = [&](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(v >> shift));
  };
  put(magic);
  for (auto d : dims) put(d);
  return bytes;
}

void write_case_file(const std::string& path, const std::string& content,
                     const std::string& record_line) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  if (content == "<gzip:idx-truncated>") {
    auto bytes = idx_header(0x00000803, {100, 28, 28});
    bytes.resize(bytes.size() + 1000, 7);  // 1000 of 78400 pixels
    testing::write_gzip(path, bytes);
  } else if (content == "<gzip:idx-bad-magic>") {
    auto bytes = idx_header(0x12345678, {1, 28, 28});
    bytes.resize(bytes.size() + 784, 0);
    testing::write_gzip(path, bytes);
  } else if (content.rfind("#!", 0) == 0) {  // a script that stands in for a program
    testing::write_executable(path, content);
  } else {
    // A record whose throughput (100 samples/s) was made negative: a corrupt measurement.
    const auto negative_rate = std::regex_replace(
        record_line, std::regex("\"samples_per_s\":100\\.0"), "\"samples_per_s\":-100.0");
    // A record of a 2-rank DDP run, with a config of its own (the synthetic one is not a config).
    const auto ddp_run = std::regex_replace(
        std::regex_replace(record_line, std::regex("\"world_size\":1"), "\"world_size\":2"),
        std::regex("\"config\":\\{[^}]*\\}"),
        "\"config\":" + nlohmann::json::parse(kGoodConfig).dump());
    auto text = std::regex_replace(content, std::regex("<record>"), record_line);
    text = std::regex_replace(text, std::regex("<record of a DDP run>"), ddp_run);
    testing::write_text(
        path, std::regex_replace(text, std::regex("<record with a negative rate>"), negative_rate));
  }
}

// A genuine record line to stand next to the bad input (claims and report cases need one).
std::string one_record_line() {
  auto record = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  return record_to_json(record).dump();
}

std::set<std::string> files_under(const std::filesystem::path& root) {
  std::set<std::string> files;
  if (!std::filesystem::exists(root)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.insert(entry.path().string());
  }
  return files;
}

TEST(BadInputCatalogueTest, EveryBadInputGetsOneClearErrorAndExitCode2AndLeavesNothing) {
  const auto cases = catalogue();
  ASSERT_GE(cases.size(), 40u);
  const auto record_line = one_record_line();
  int passed = 0;
  for (const auto& c : cases) {
    TempDir dir;
    const auto root = dir.path().string();
    for (const auto& [relative, content] : c.files) {
      write_case_file(expand(root + "/" + relative, root), expand(content, root), record_line);
    }
    const auto before = files_under(dir.path());
    const auto result = testing::run_command(expand(c.command, root));
    SCOPED_TRACE(c.name + "\n$ " + expand(c.command, root) + "\n" + result.output);
    EXPECT_EQ(result.exit_code, 2);
    const auto error_lines = std::count(result.output.begin(), result.output.end(), '\n');
    EXPECT_EQ(error_lines, 1) << "expected one error line";
    EXPECT_NE(result.output.find("speedbench: error: "), std::string::npos);
    bool all_found = true;
    for (const auto& expected : c.expected) {
      const auto text = expand(expected, root);
      const bool found = result.output.find(text) != std::string::npos;
      EXPECT_TRUE(found) << "missing: " << text;
      all_found &= found;
    }
    EXPECT_EQ(files_under(dir.path()), before) << "the command left files behind";
    passed +=
        result.exit_code == 2 && error_lines == 1 && all_found && files_under(dir.path()) == before;
  }
  std::printf("bad inputs tried: %zu, answered with one clear error and nothing left behind: %d\n",
              cases.size(), passed);
}

}  // namespace
}  // namespace speedbench
