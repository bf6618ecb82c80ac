// Tip 10, DDP on c10d: the worker environment contract, the sharded sampler, two Gloo ranks that
// end with the weights of one process trained on the union of their shards (with buckets that
// overlapped backward), a killed peer, the launcher and a port already in use.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "build_paths.h"
#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/distributed/launch_environment.h"
#include "harness/distributed/local_launcher.h"
#include "harness/distributed/process_group.h"
#include "harness/distributed/sharded_sampler.h"
#include "harness/train/train_loop.h"
#include "test_support.h"

namespace speedbench {
namespace {

using distributed::LaunchEnvironment;

distributed::EnvLookup lookup_in(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    const auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

std::string error_of(std::map<std::string, std::string> values) {
  try {
    distributed::read_launch_environment(lookup_in(std::move(values)));
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(LaunchEnvironmentTest, ReadsTorchrunAndSlurmContracts) {
  EXPECT_FALSE(distributed::read_launch_environment(lookup_in({})).has_value());
  const auto torchrun = distributed::read_launch_environment(lookup_in({{"RANK", "3"},
                                                                        {"LOCAL_RANK", "1"},
                                                                        {"WORLD_SIZE", "4"},
                                                                        {"MASTER_ADDR", "10.0.0.2"},
                                                                        {"MASTER_PORT", "29400"}}));
  ASSERT_TRUE(torchrun.has_value());
  EXPECT_EQ(torchrun->rank, 3);
  EXPECT_EQ(torchrun->local_rank, 1);
  EXPECT_EQ(torchrun->world_size, 4);
  EXPECT_EQ(torchrun->master_addr, "10.0.0.2");
  EXPECT_EQ(torchrun->master_port, 29400);
  EXPECT_EQ(torchrun->launcher, "torchrun");
  const auto slurm = distributed::read_launch_environment(lookup_in({{"SLURM_PROCID", "5"},
                                                                     {"SLURM_LOCALID", "1"},
                                                                     {"SLURM_NTASKS", "8"},
                                                                     {"MASTER_ADDR", "node1"},
                                                                     {"MASTER_PORT", "1234"}}));
  ASSERT_TRUE(slurm.has_value());
  EXPECT_EQ(slurm->rank, 5);
  EXPECT_EQ(slurm->local_rank, 1);
  EXPECT_EQ(slurm->world_size, 8);
  EXPECT_EQ(slurm->launcher, "slurm");
}

TEST(LaunchEnvironmentTest, RejectsPartialOrMalformedContracts) {
  // Each environment, and what its error must say.
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"RANK", "0"}}, "'WORLD_SIZE': is not set"},
      {{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}},
       "'RANK': got \"2\", expected an integer in [0, 1]"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "0"}}, "'WORLD_SIZE': got \"0\""},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2x"}}, "'WORLD_SIZE': got \"2x\""},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "29500"}}, "'MASTER_ADDR'"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}},
       "'MASTER_PORT': got \"70000\""},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "environment: field"},
  };
  for (const auto& [values, expected] : cases) {
    const auto error = error_of(values);
    EXPECT_NE(error.find(expected), std::string::npos)
        << "expected: " << expected << "\ngot: " << error;
  }
}

TEST(ShardedSamplerTest, RanksSplitOnePermutationAndTogetherMakeTheBigBatch) {
  const size_t n = 103, batch = 8;
  distributed::ShardedRandomSampler alone(n, 7, 0, 1), rank0(n, 7, 0, 2), rank1(n, 7, 1, 2);
  for (int epoch = 0; epoch < 2; ++epoch) {
    alone.reset();
    rank0.reset();
    rank1.reset();
    EXPECT_EQ(rank0.shard_size(), 51u);  // the odd example is dropped: equal steps per rank
    std::set<size_t> seen;
    for (int step = 0; step < 6; ++step) {
      const auto big = *alone.next(2 * batch);
      auto a = *rank0.next(batch), b = *rank1.next(batch);
      std::multiset<size_t> together(a.begin(), a.end());
      together.insert(b.begin(), b.end());
      EXPECT_EQ(together, std::multiset<size_t>(big.begin(), big.end())) << "step " << step;
      for (size_t index : together)
        EXPECT_TRUE(seen.insert(index).second) << "index " << index << " twice";
    }
  }
  EXPECT_NE(rank0.shard_of_epoch(0), rank0.shard_of_epoch(1));  // reshuffled every epoch
}

// A small row-LSTM run: deterministic, one thread, SGD with momentum, no BatchNorm or augmentation.
TrainConfig row_lstm_run(int64_t batch_size, int64_t steps) {
  return train_config_from_json(
      {{"data", {{"train_samples", 512}, {"test_samples", 64}}},
       {"model", {{"arch", "row_rnn"}, {"hidden", 32}}},
       {"optimizer", {{"name", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}}},
       {"batch_size", batch_size},
       {"max_steps", steps},
       {"warmup_steps", 0},
       {"eval_batch_size", 64},
       {"progress_every_s", 0},
       {"threads", 1},
       {"deterministic", true},
       // ~10 KiB buckets: the LSTM's gradients fill several, so some launch mid-backward.
       {"techniques", {{"ddp_bucket_cap_mb", 0.01}}}},
      "test");
}

// Trains `config` as 2 DDP ranks in forked worker processes (forked before this process runs
// any tensor op) and lets `keep(rank, outcome)` save what the test compares. True when both
// workers succeeded.
bool train_two_ranks(const TrainConfig& config,
                     const std::function<void(int rank, const TrainOutcome& outcome)>& keep) {
  const int port = distributed::find_free_port("127.0.0.1");
  std::vector<pid_t> children;
  for (int rank = 0; rank < 2; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
      int code = 0;
      try {
        LaunchEnvironment env;
        env.rank = rank;
        env.local_rank = rank;
        env.world_size = 2;
        env.master_port = port;
        auto group = distributed::join_process_group(env, "cpu", std::chrono::seconds(30));
        keep(rank, train(config, {}, group));
      } catch (const std::exception& error) {
        std::fprintf(stderr, "rank %d: %s\n", rank, error.what());
        code = 1;
      }
      std::fflush(nullptr);
      _exit(code);
    }
    children.push_back(pid);
  }
  bool all_ok = true;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    all_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return all_ok;
}

TEST(DdpTest, TwoRanksEndWithTheWeightsOfOneProcessOnTheUnionOfTheirShards) {
  testing::TempDir dir;
  const int64_t steps = 8;
  const bool ok =
      train_two_ranks(row_lstm_run(16, steps), [&](int rank, const TrainOutcome& outcome) {
        torch::save(outcome.model->parameters(), dir.file("rank" + std::to_string(rank) + ".pt"));
        const auto& d = outcome.metrics.distributed;
        std::ofstream(dir.file("rank" + std::to_string(rank) + ".txt"))
            << d.world_size << " " << d.buckets << " " << d.overlapped_buckets << " "
            << outcome.metrics.samples_trained << " " << outcome.metrics.curve.size() << "\n";
      });
  ASSERT_TRUE(ok) << "a worker failed";
  const auto single = train(row_lstm_run(32, steps));  // one process, the two batches together
  std::vector<torch::Tensor> rank0, rank1;
  torch::load(rank0, dir.file("rank0.pt"));
  torch::load(rank1, dir.file("rank1.pt"));
  const auto expected = single.model->parameters();
  ASSERT_EQ(rank0.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(torch::equal(rank0[i], rank1[i])) << "parameter " << i << " differs between ranks";
    EXPECT_TRUE(torch::allclose(rank0[i], expected[i], 1e-4, 1e-6))
        << "parameter " << i << ": max difference "
        << (rank0[i] - expected[i]).abs().max().item<double>();
  }
  // The run moved the weights (the comparison is not between two untouched initialisations).
  EXPECT_GT(
      (expected[0] - train(row_lstm_run(32, 1)).model->parameters()[0]).abs().max().item<double>(),
      1e-4);

  int64_t world = 0, buckets = 0, overlapped = 0, samples = 0, evaluations0 = 0, evaluations1 = 0;
  std::ifstream(dir.file("rank0.txt")) >> world >> buckets >> overlapped >> samples >> evaluations0;
  std::ifstream(dir.file("rank1.txt")) >> world >> buckets >> overlapped >> samples >> evaluations1;
  EXPECT_EQ(world, 2);
  EXPECT_GE(buckets, 3);
  EXPECT_GE(overlapped, 1) << "no bucket was launched before backward finished";
  EXPECT_LT(overlapped, buckets);  // the last bucket fills with the last gradient
  EXPECT_EQ(samples, steps * 32);  // throughput counts both ranks' samples
  EXPECT_EQ(evaluations0, 1);
  EXPECT_EQ(evaluations1, 0);  // only rank 0 evaluates
}

TEST(DdpTest, AccumulationReducesOnlyOnTheLastMicroBatch) {
  // Two ranks with 2 micro-batches of 8 must equal one process with batch 32 as well: the
  // first micro-batch's gradients travel inside the second's all-reduce (no_sync).
  testing::TempDir dir;
  auto config = row_lstm_run(16, 4);
  config.techniques.grad_accumulation = 2;
  const bool ok = train_two_ranks(config, [&](int rank, const TrainOutcome& outcome) {
    if (rank == 0) torch::save(outcome.model->parameters(), dir.file("rank0.pt"));
  });
  ASSERT_TRUE(ok) << "a worker failed";
  std::vector<torch::Tensor> rank0;
  torch::load(rank0, dir.file("rank0.pt"));
  const auto expected = train(row_lstm_run(32, 4)).model->parameters();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(torch::allclose(rank0[i], expected[i], 1e-4, 1e-6)) << "parameter " << i;
  }
}

const std::string kExecutable = testing::speedbench_executable();

std::string write_ddp_config(const testing::TempDir& dir, int64_t max_steps, double timeout_s) {
  const auto path = dir.file("ddp.json");
  testing::write_text(path, R"({"data": {"train_samples": 2048, "test_samples": 64},
    "model": {"arch": "row_rnn", "hidden": 32}, "batch_size": 16, "epochs": 100000, "max_steps": )" +
                                std::to_string(max_steps) + R"(, "warmup_steps": 1, "threads": 1,
    "progress_every_s": 0, "techniques": {"ddp_timeout_s": )" +
                                std::to_string(timeout_s) + "}}");
  return path;
}

TEST(DdpTest, ASurvivorOfAKilledPeerFailsWithAnErrorWithinTheTimeout) {
  testing::TempDir dir;
  const auto config = write_ddp_config(dir, 100000, 20);  // would train for many minutes
  const int port = distributed::find_free_port("127.0.0.1");
  const std::string env = "WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port);
  const std::string worker = kExecutable + " run-one --quiet --config " + config + " --records " +
                             dir.file("runs.jsonl") + " --run-id killed";
  const auto result =
      testing::run_command("RANK=1 " + env + " " + worker + " > " + dir.file("rank1.log") +
                           " 2>&1 & victim=$!; "
                           "RANK=0 " +
                           env + " " + worker +
                           " & survivor=$!; "
                           "sleep 6; kill -9 $victim; start=$(date +%s); wait $survivor; code=$?; "
                           "echo \"survivor exit $code after $(( $(date +%s) - start )) s\"");
  const auto at = result.output.find("survivor exit ");
  ASSERT_NE(at, std::string::npos) << result.output;
  int code = -1, seconds = -1;
  std::sscanf(result.output.c_str() + at, "survivor exit %d after %d s", &code, &seconds);
  EXPECT_EQ(code, 1) << result.output;
  EXPECT_LE(seconds, 20 + 5) << result.output;
  const auto records = read_records(dir.file("runs.jsonl"));
  ASSERT_EQ(records.size(), 1u);  // rank 0's, saying what happened
  EXPECT_EQ(records[0].status, RunStatus::kCrashed);
  EXPECT_FALSE(records[0].message.empty());
}

TEST(DdpTest, LauncherRunsWorkersWithRankPrefixesAndRankZeroRecords) {
  testing::TempDir dir;
  const auto config = write_ddp_config(dir, 6, 30);
  const auto result = testing::run_command(kExecutable + " run --config " + config +
                                           " --nproc 2 --out " + dir.file("results"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("[rank 0] "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("DDP: 2 ranks (gloo)"), std::string::npos) << result.output;
  const auto suite_dir = std::filesystem::path(dir.file("results")) / "adhoc";
  ASSERT_TRUE(std::filesystem::is_directory(suite_dir));
  const auto run_dir = std::filesystem::directory_iterator(suite_dir)->path();
  const auto records = read_records((run_dir / "runs.jsonl").string());
  ASSERT_EQ(records.size(), 1u);  // rank 1 writes none
  EXPECT_EQ(records[0].status, RunStatus::kOk);
  EXPECT_EQ(records[0].metrics.distributed.world_size, 2);
  EXPECT_EQ(records[0].metrics.distributed.rank_step_ms_median.size(), 2u);
  // Each rank's CPU time in training is the run's own, not other load: both ranks trained.
  const auto& rank_cpu_s = records[0].metrics.distributed.rank_cpu_s;
  ASSERT_EQ(rank_cpu_s.size(), 2u);
  EXPECT_GT(rank_cpu_s[0], 0.0);
  EXPECT_GT(rank_cpu_s[1], 0.0);
  EXPECT_TRUE(records[0].metrics.other_processes_busy_cores.has_value());
  EXPECT_TRUE(records[0].metrics.stolen_cores.has_value());
  EXPECT_EQ(records[0].metrics.cpu_wait_threads.has_value(),  // every rank's threads
            std::filesystem::exists("/proc/self/schedstat"));
  EXPECT_EQ(records[0].techniques_on.front(), "ddp");
}

// The launcher learns how each worker ended from waitpid, which an ignored SIGCHLD breaks (the
// kernel reaps the worker first): it waited for ever.
TEST(DdpTest, ALauncherStartedWithSigchldIgnoredRunsToTheEnd) {
  testing::TempDir dir;
  const auto config = write_ddp_config(dir, 6, 30);
  const auto exit_code = testing::run_with_sigchld_ignored(
      kExecutable, {"run", "--config", config, "--nproc", "2", "--out", dir.file("results")});
  ASSERT_TRUE(exit_code.has_value()) << "the launcher did not end within 2 minutes";
  EXPECT_EQ(*exit_code, 0);
}

TEST(DdpTest, APortInUseIsAClearErrorOnRankZero) {
  testing::TempDir dir;
  const auto config = write_ddp_config(dir, 2, 5);
  const int holder = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(holder, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(holder, 1), 0);
  socklen_t length = sizeof addr;
  ::getsockname(holder, reinterpret_cast<sockaddr*>(&addr), &length);
  const auto result =
      testing::run_command("RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" +
                           std::to_string(ntohs(addr.sin_port)) + " " + kExecutable +
                           " run-one --config " + config + " --records " + dir.file("runs.jsonl"));
  ::close(holder);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("MASTER_PORT"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("already in use"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("runs.jsonl")));
}

}  // namespace
}  // namespace speedbench
