// Which machine and build measured a record (environment_identity.h): the identity keeps the
// machine and the build and drops the readings of the moment; `reproduce` warns on a different
// identity only; differing keys across records are counted per value.
#include <gtest/gtest.h>

#include "harness/results/environment_identity.h"
#include "harness/results/reproduction.h"
#include "test_support.h"

namespace speedbench {
namespace {

// An H200 machine's environment block, as a CUDA build writes it, with the readings of one moment.
nlohmann::json gpu_machine(int sm_clock_now_mhz, int temperature_c) {
  return {{"host", "gpu-1"},
          {"cpu_model", "AMD EPYC 9654"},
          {"cpu_cores", 16},
          {"cpu_cores_usable", 16},
          {"cpu_isa", {{"avx2", true}, {"avx512_bf16", true}, {"amx_bf16", false}}},
          {"torch_threads", 16},
          {"os", "Linux 6.8.0 x86_64"},
          {"libtorch_version", "2.11.0"},
          {"build_type", "Release"},
          {"git_commit", "abc"},
          {"machine_at_start", {{"busy_cores", 0.1}, {"load_average_1m", 0.5}}},
          {"gpu",
           {{"name", "NVIDIA H200"},
            {"memory_bytes", 150000000000},
            {"driver", "580.65"},
            {"pci_bus_id", "0000:18:00.0"},
            {"sm_clock_mhz_max", 1980},
            {"sm_clock_mhz_now", sm_clock_now_mhz},
            {"memory_clock_mhz_now", 2619},
            {"temperature_c", temperature_c}}}};
}

TEST(EnvironmentIdentityTest, KeepsTheMachineAndTheBuildNotTheReadingsOfTheMoment) {
  const auto identity = environment_identity(gpu_machine(1980, 41));
  for (const auto* key :
       {"host", "cpu_model", "cpu_cores", "cpu_cores_usable", "cpu_isa.avx512_bf16",
        "cpu_isa.amx_bf16", "libtorch_version", "build_type", "git_commit", "gpu.name",
        "gpu.memory_bytes", "gpu.driver", "gpu.sm_clock_mhz_max"}) {
    EXPECT_EQ(identity.count(key), 1u) << key;
  }
  EXPECT_EQ(identity.at("cpu_isa.amx_bf16"), false);
  for (const auto* key :
       {"torch_threads", "os", "machine_at_start", "gpu.pci_bus_id", "gpu.sm_clock_mhz_now",
        "gpu.memory_clock_mhz_now", "gpu.temperature_c", "gpu", "cpu_isa"}) {
    EXPECT_EQ(identity.count(key), 0u) << key;
  }
  EXPECT_TRUE(environment_identity(nlohmann::json()).empty());
}

TEST(EnvironmentIdentityTest, ChangesNameEachKeyBothBlocksHaveAndThatDiffers) {
  EXPECT_TRUE(identity_changes(gpu_machine(1980, 41), gpu_machine(1755, 63)).empty())
      << "the same GPU, warmer and clocked down, is the same machine";
  auto other = gpu_machine(1980, 41);
  other["gpu"]["name"] = "NVIDIA H100";
  other["cpu_isa"]["amx_bf16"] = true;
  other["git_commit"] = "def";
  EXPECT_EQ(identity_changes(gpu_machine(1980, 41), other),
            (std::vector<std::string>{"cpu_isa.amx_bf16: false then, true now",
                                      "git_commit: \"abc\" then, \"def\" now",
                                      "gpu.name: \"NVIDIA H200\" then, \"NVIDIA H100\" now"}));
  auto older = gpu_machine(1980, 41);
  older.erase("cpu_isa");  // a record written before the instruction sets were recorded
  EXPECT_TRUE(identity_changes(older, gpu_machine(1980, 41)).empty());
}

TEST(EnvironmentIdentityTest, TheSameMachineUnderACpuQuotaIsAnotherMachine) {
  auto limited = gpu_machine(1980, 41);
  limited["cpu_cores_usable"] = 4;  // taskset -c 0-3, or docker --cpus 4
  EXPECT_EQ(identity_changes(gpu_machine(1980, 41), limited),
            (std::vector<std::string>{"cpu_cores_usable: 16 then, 4 now"}));
  const auto differing = differing_identity_keys({gpu_machine(1980, 41), limited});
  ASSERT_EQ(differing.size(), 1u);
  EXPECT_EQ(differing[0].key, "cpu_cores_usable");
  auto older = gpu_machine(1980, 41);
  older.erase("cpu_cores_usable");  // a record written before the usable cores were recorded
  EXPECT_TRUE(differing_identity_keys({older, limited}).empty());
}

TEST(EnvironmentIdentityTest, ReproduceWarnsOfAnotherMachineOrThreadCountOnly) {
  auto recorded = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  auto rerun = recorded;
  recorded.environment = gpu_machine(1980, 41);
  rerun.environment = gpu_machine(1410, 70);
  EXPECT_TRUE(compare_reproduction(recorded, rerun).environment_warnings.empty());
  rerun.environment["cpu_model"] = "Intel Xeon";
  rerun.environment["torch_threads"] = 8;
  EXPECT_EQ(compare_reproduction(recorded, rerun).environment_warnings,
            (std::vector<std::string>{"cpu_model: \"AMD EPYC 9654\" then, \"Intel Xeon\" now",
                                      "torch_threads: 16 then, 8 now"}));
}

TEST(EnvironmentIdentityTest, DifferingKeysCountTheEnvironmentsOfEachValue) {
  auto resumed = gpu_machine(1755, 50);  // one more environment, after a rebuild
  resumed["git_commit"] = "def";
  const auto differing =
      differing_identity_keys({gpu_machine(1980, 41), gpu_machine(1410, 70), resumed});
  ASSERT_EQ(differing.size(), 1u);
  EXPECT_EQ(differing[0].key, "git_commit");
  EXPECT_EQ(differing[0].count_per_value, (std::map<std::string, int>{{"abc", 2}, {"def", 1}}));
  EXPECT_TRUE(differing_identity_keys({gpu_machine(1980, 41), gpu_machine(1410, 70)}).empty());
  EXPECT_TRUE(differing_identity_keys({}).empty());
}

// A record the runner writes for another build (run --against) keeps the machine as read now and
// takes the build from that build's own record, or leaves it out: it then takes no side when a
// folder's builds are counted.
TEST(EnvironmentIdentityTest, WithBuildOfTakesTheBuildFromItsSourceAndTheMachineFromNow) {
  auto now = gpu_machine(1410, 70);
  now["gpu"]["runtime_version"] = "13.0";
  now["gpu"]["nccl_version"] = "2.27.3";
  auto other_build = gpu_machine(1980, 41);
  other_build["git_commit"] = "def";
  other_build["libtorch_version"] = "2.10.0";
  other_build["gpu"]["runtime_version"] = "12.8";
  const auto mixed = with_build_of(now, other_build);
  EXPECT_EQ(mixed["git_commit"], "def");
  EXPECT_EQ(mixed["libtorch_version"], "2.10.0");
  EXPECT_EQ(mixed["gpu"]["runtime_version"], "12.8");
  EXPECT_FALSE(mixed["gpu"].contains("nccl_version"));  // the source does not say
  EXPECT_EQ(mixed["gpu"]["sm_clock_mhz_now"], 1410);    // the machine as read now
  EXPECT_EQ(mixed["host"], "gpu-1");
  EXPECT_TRUE(differing_identity_keys({other_build, mixed}).empty());

  const auto unknown = with_build_of(now, nlohmann::json::object());
  for (const auto* key : {"libtorch_version", "build_type", "git_commit"})
    EXPECT_FALSE(unknown.contains(key)) << key;
  EXPECT_FALSE(unknown["gpu"].contains("runtime_version"));
  EXPECT_EQ(unknown["gpu"]["name"], "NVIDIA H200");
  EXPECT_EQ(unknown["cpu_isa"], now["cpu_isa"]);
  EXPECT_TRUE(differing_identity_keys({other_build, unknown}).empty());
  EXPECT_TRUE(differing_identity_keys({now, unknown}).empty());
}

}  // namespace
}  // namespace speedbench
