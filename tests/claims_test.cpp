// Verdicts on published claims from synthetic records: each verdict (confirmed, refuted,
// inconclusive) against its interval, the caveats of few runs and of chance among many
// comparisons, a claim on any workload, the claims its runs could not measure (not_run or
// inconclusive with the reason), and the claims file: its errors, the shipped one and the suites
// that judge it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "build_paths.h"
#include "harness/config/config_error.h"
#include "harness/report/claims.h"
#include "harness/report/report_text.h"
#include "harness/report/report_writer.h"
#include "harness/suite/suite.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

using speedbench::testing::synthetic_claim;
using speedbench::testing::synthetic_record;
using speedbench::testing::TempDir;
using speedbench::testing::write_synthetic_results;
using speedbench::testing::write_text;

const ClaimVerdict& verdict_of(const std::vector<ClaimVerdict>& verdicts, const std::string& id) {
  for (const auto& v : verdicts) {
    if (v.claim->id == id) return v;
  }
  throw std::runtime_error("no verdict for " + id);
}

TEST(ClaimsTest, VerdictsFollowTheIntervalAgainstTheThreshold) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));
  const auto results = load_results(dir.file("runs.jsonl"));
  std::vector<Claim> claims = {synthetic_claim("faster", "throughput", ">=", 1.3),
                               synthetic_claim("much-faster", "throughput", ">=", 2.0),
                               synthetic_claim("borderline", "throughput", ">=", 1.5),
                               synthetic_claim("half-memory", "peak_bytes", "<=", 0.5),
                               synthetic_claim("less-than-half", "peak_bytes", "<=", 0.4),
                               synthetic_claim("gpu-only", "throughput", ">=", 1.0, true),
                               synthetic_claim("absent", "throughput", ">=", 1.0, true),
                               synthetic_claim("gated-in-smoke", "throughput", ">=", 1.3, true),
                               synthetic_claim("nearly", "throughput", ">=", 1.45),
                               synthetic_claim("at-most", "throughput", "<=", 1.45)};
  claims[5].device = "cuda";
  claims[6].technique = "warp_drive";
  claims[7].gate_suite = "smoke";  // these results are suite "synthetic"
  const auto verdicts = verify_claims(claims, compare(results), results);
  EXPECT_EQ(verdict_of(verdicts, "faster").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "faster").reason, "") << "5 runs a side: no caveat";
  EXPECT_EQ(verdict_of(verdicts, "much-faster").verdict, "refuted");
  EXPECT_EQ(verdict_of(verdicts, "borderline").verdict, "inconclusive");
  // An inconclusive verdict says how many repetitions would decide it. 1.498x [1.40, 1.60] from 5
  // pairs: the logs' stddev is 0.0655 (the half-width in logs) * sqrt(5) / 2.776 = 0.0528, and
  // the half-width t(n - 1) * 0.0528 / sqrt(n) drops below log(1.498 / 1.45) = 0.0328 at n = 13
  // (0.0319; 0.0335 at n = 12). Against 1.5 the estimate is too close for 100.
  EXPECT_EQ(verdict_of(verdicts, "borderline").reason,
            "more than 100 repetitions would be needed to decide it if the effect and its spread "
            "are as in these 5 pairs");
  EXPECT_EQ(verdict_of(verdicts, "nearly").verdict, "inconclusive");
  EXPECT_EQ(verdict_of(verdicts, "nearly").reason,
            "about 13 repetitions would confirm it if the effect and its spread are as in these 5 "
            "pairs");
  EXPECT_EQ(verdict_of(verdicts, "at-most").reason,
            "about 13 repetitions would refute it if the effect and its spread are as in these 5 "
            "pairs");
  EXPECT_EQ(verdict_of(verdicts, "half-memory").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "less-than-half").verdict, "refuted");
  const auto& gpu = verdict_of(verdicts, "gpu-only");
  EXPECT_EQ(gpu.verdict, "not_run");
  EXPECT_FALSE(gpu.gates) << "a CUDA claim does not gate CPU results";
  const auto& absent = verdict_of(verdicts, "absent");
  EXPECT_EQ(absent.verdict, "not_run");
  EXPECT_TRUE(absent.gates) << "a gating claim whose comparison is missing fails the gate";
  const auto& elsewhere = verdict_of(verdicts, "gated-in-smoke");
  EXPECT_EQ(elsewhere.verdict, "confirmed") << "judged on any suite's results";
  EXPECT_FALSE(elsewhere.gates) << "but it gates only its gate_suite's";
}

TEST(ClaimsTest, VerdictForAnInterval) {
  EXPECT_EQ(verdict_for({1.2, 1.1, 1.3}, ">=", 1.05), "confirmed");
  EXPECT_EQ(verdict_for({1.2, 1.1, 1.3}, ">=", 1.4), "refuted");
  EXPECT_EQ(verdict_for({1.2, 1.1, 1.3}, ">=", 1.2), "inconclusive");
  EXPECT_EQ(verdict_for({0.5, 0.45, 0.55}, "<=", 0.6), "confirmed");
  EXPECT_EQ(verdict_for({0.5, 0.45, 0.55}, "<=", 0.4), "refuted");
  EXPECT_EQ(verdict_for({0.5, 0.45, 0.55}, "<=", 0.5), "inconclusive");
}

TEST(ClaimsTest, AVerdictFromFewerThanFiveVaryingUnpairedRunsASideSaysSo) {
  TempDir dir;
  const double fast[] = {140, 150, 160};
  for (int rep = 0; rep < 3; ++rep) {
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "baseline", rep, 100 + rep, 1000));
    auto variant = synthetic_record("w", "fast", rep, fast[rep], 500);
    variant.seed = 10 + rep;  // pairs with no baseline run: the bootstrap's interval
    append_record(dir.file("runs.jsonl"), variant);
  }
  const auto results = load_results(dir.path().string());
  const std::vector<Claim> claims = {synthetic_claim("faster", "throughput", ">=", 1.3),
                                     synthetic_claim("half-memory", "peak_bytes", "<=", 0.5)};
  const auto comparisons = compare(results);
  const auto verdicts = verify_claims(claims, comparisons, results);
  const auto& faster = verdict_of(verdicts, "faster");
  EXPECT_EQ(faster.verdict, "confirmed");  // 140/102 is above 1.3: the verdict stands
  EXPECT_NE(faster.reason.find("only 3/3 runs"), std::string::npos) << faster.reason;
  EXPECT_NE(faster.reason.find("9 times in 10"), std::string::npos) << faster.reason;
  const auto& memory = verdict_of(verdicts, "half-memory");
  EXPECT_EQ(memory.verdict, "confirmed");
  EXPECT_EQ(memory.reason, "") << "every run measured the same bytes: nothing to doubt";
  // summary.json says the same per metric (the plots read it).
  const auto metrics =
      summary_json({results, comparisons, claims, verdicts})["comparisons"][0]["metrics"];
  EXPECT_EQ(metrics["throughput"]["undercovers"], true);
  EXPECT_EQ(metrics["peak_bytes"]["undercovers"], false);
}

// The same runs paired by seed: a t interval keeps its coverage with 3 pairs, so no caveat; it
// is wider than the 3-run bootstrap's (which is about the runs' range) and does not clear 1.3x.
TEST(ClaimsTest, AVerdictFromThreePairsOfRunsHasNoCaveat) {
  TempDir dir;
  const double fast[] = {140, 150, 160};
  for (int rep = 0; rep < 3; ++rep) {
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "baseline", rep, 100 + rep, 1000));
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "fast", rep, fast[rep], 500));
  }
  const auto results = load_results(dir.path().string());
  const std::vector<Claim> claims = {synthetic_claim("faster", "throughput", ">=", 1.3),
                                     synthetic_claim("a-little-faster", "throughput", ">=", 1.2)};
  const auto comparisons = compare(results);
  const auto* throughput = comparisons[0].metric("throughput");
  EXPECT_TRUE(throughput->t_interval);
  // Ratios 1.4, 150/101, 160/102: exp(mean -+ 4.303 stddev / sqrt(3)) of their logs (numpy).
  EXPECT_NEAR(throughput->interval.low, 1.28758604, 1e-8);
  EXPECT_NEAR(throughput->interval.high, 1.70805649, 1e-8);
  const auto verdicts = verify_claims(claims, comparisons, results);
  EXPECT_EQ(verdict_of(verdicts, "faster").verdict, "inconclusive");
  EXPECT_EQ(verdict_of(verdicts, "a-little-faster").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "a-little-faster").reason, "");
  const ReportInputs inputs{results, comparisons, claims, verdicts};
  EXPECT_EQ(summary_json(inputs)["comparisons"][0]["metrics"]["throughput"]["undercovers"], false);
  EXPECT_EQ(markdown_report(inputs).find("Fewer than 5 runs on a side"), std::string::npos);
}

// A claim of "no change or better" (threshold 1 on a ratio) that one interval decides, while the
// comparison's q (p adjusted over the report's comparisons of the metric) is 0.05 or more: the
// verdict keeps its word and its note says it may be chance. Alone in its family (q = p) or
// against another threshold (p does not test it) there is no such note.
TEST(ClaimsTest, AVerdictAgainstNoChangeThatTheAdjustedQDoesNotBackSaysItMayBeChance) {
  // "fast" pairs at ratios e^0.10, e^0.14, e^0.18: p about 0.03; "same" and "alike" change
  // nothing, so among three comparisons its q is about 3p.
  const double fast[] = {100 * std::exp(0.10), 100 * std::exp(0.14), 100 * std::exp(0.18)};
  const double same[] = {101, 99, 100.5};
  const std::vector<Claim> claims = {synthetic_claim("not-slower", "throughput", ">=", 1),
                                     synthetic_claim("under-double", "throughput", "<=", 2)};
  const auto note_of = [&](bool with_others) {
    TempDir dir;
    for (int rep = 0; rep < 3; ++rep) {
      append_record(dir.file("runs.jsonl"), synthetic_record("w", "baseline", rep, 100, 1000));
      append_record(dir.file("runs.jsonl"), synthetic_record("w", "fast", rep, fast[rep], 1000));
      if (!with_others) continue;
      append_record(dir.file("runs.jsonl"), synthetic_record("w", "same", rep, same[rep], 1000));
      append_record(dir.file("runs.jsonl"), synthetic_record("w", "alike", rep, same[rep], 1000));
    }
    const auto results = load_results(dir.path().string());
    const auto comparisons = compare(results);
    const MetricComparison* throughput = nullptr;
    for (const auto& c : comparisons)
      if (c.comparison.label == "fast") throughput = c.metric("throughput");
    if (throughput == nullptr) {
      ADD_FAILURE() << "no throughput comparison of \"fast\"";
      return std::make_pair(std::string(), std::string("-"));
    }
    EXPECT_LT(throughput->p_value, 0.05);
    EXPECT_EQ(throughput->q_value >= 0.05, with_others);
    const auto verdicts = verify_claims(claims, comparisons, results);
    EXPECT_EQ(verdict_of(verdicts, "not-slower").verdict, "confirmed");
    EXPECT_EQ(verdict_of(verdicts, "under-double").verdict, "confirmed");
    EXPECT_EQ(verdict_of(verdicts, "under-double").reason, "");
    return std::make_pair(verdict_of(verdicts, "not-slower").reason,
                          "p " + probability_text(throughput->p_value) + " against no change, q " +
                              probability_text(throughput->q_value));
  };
  const auto [with_others, expected_start] = note_of(true);
  EXPECT_EQ(with_others.rfind(expected_start, 0), 0u) << with_others;
  EXPECT_NE(with_others.find("may be one of the intervals that exclude no change by chance"),
            std::string::npos);
  EXPECT_EQ(note_of(false).first, "");
}

// A claim on "any" workload is judged on each: the worst verdict decides, and among equal
// verdicts the workload whose estimate is least favourable to the claim (not the first in the
// records' order); the note tallies the workloads' verdicts.
TEST(ClaimsTest, AClaimOnAnyWorkloadIsDecidedByItsLeastFavourableWorkload) {
  const auto write = [](const std::string& path, const std::vector<std::string>& workloads) {
    const std::map<std::string, double> speedup = {{"a", 2.0}, {"b", 1.5}, {"c", 1.0}};
    for (const auto& workload : workloads) {
      for (int rep = 0; rep < 5; ++rep) {
        const double baseline = 100 + rep;
        append_record(path, synthetic_record(workload, "baseline", rep, baseline, 1000));
        append_record(path,
                      synthetic_record(workload, "fast", rep,
                                       baseline * speedup.at(workload) * (1 + 0.01 * rep), 500));
      }
    }
  };
  auto at_least = synthetic_claim("at-least-1.3x", "throughput", ">=", 1.3);
  auto at_most = synthetic_claim("at-most-2.5x", "throughput", "<=", 2.5);
  const std::vector<Claim> claims = {at_least, at_most};
  TempDir two;
  write(two.file("runs.jsonl"), {"a", "b"});
  auto results = load_results(two.path().string());
  auto verdicts = verify_claims(claims, compare(results), results);
  EXPECT_EQ(verdict_of(verdicts, "at-least-1.3x").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "at-least-1.3x").workload, "b") << "1.5x is nearer 1.3x than 2x";
  EXPECT_EQ(verdict_of(verdicts, "at-least-1.3x").reason,
            "the least favourable of 2 workloads (confirmed on 2)");
  EXPECT_EQ(verdict_of(verdicts, "at-most-2.5x").workload, "a") << "2x is nearer 2.5x than 1.5x";

  TempDir three;
  write(three.file("runs.jsonl"), {"c", "a", "b"});
  results = load_results(three.path().string());
  verdicts = verify_claims(claims, compare(results), results);
  const auto& refuted = verdict_of(verdicts, "at-least-1.3x");
  EXPECT_EQ(refuted.verdict, "refuted");
  EXPECT_EQ(refuted.workload, "c");
  EXPECT_EQ(refuted.reason, "the least favourable of 3 workloads (confirmed on 2, refuted on 1)");
  EXPECT_EQ(verdict_of(verdicts, "at-most-2.5x").workload, "a");
  // The Summary and summary.json show each workload's own verdict.
  const ReportInputs inputs{results, compare(results), claims, verdicts};
  const auto markdown = markdown_report(inputs);
  EXPECT_NE(markdown.find("| c | fast | 5/5 | 1.02x"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| throughput >= 1.3x; throughput <= 2.5x | refuted; confirmed |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| throughput >= 1.3x; throughput <= 2.5x | confirmed; confirmed |"),
            std::string::npos)
      << markdown;
  const auto json = summary_json(inputs);
  EXPECT_EQ(json["claims"][0]["by_workload"],
            nlohmann::json::parse(R"([{"workload": "c", "verdict": "refuted"},
                                      {"workload": "a", "verdict": "confirmed"},
                                      {"workload": "b", "verdict": "confirmed"}])"));

  auto on_b = at_least;
  on_b.workload = "b";
  verdicts = verify_claims({on_b}, compare(results), results);
  EXPECT_EQ(verdicts[0].workload, "b");
  EXPECT_EQ(verdicts[0].reason, "") << "one workload: nothing to tally";
}

// A claim whose runs measured nothing it could judge is never confirmed (DESIGN's "never a silent
// pass"): each way a comparison can fail to give an interval, with the reason its verdict says.
TEST(ClaimsTest, AClaimItsRunsCouldNotMeasureIsNotRunOrInconclusiveWithTheReason) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  // Each workload: `repetitions` pairs of runs, each record changed by `change`.
  const auto runs = [&](const std::string& workload, int repetitions, const auto& change) {
    for (int rep = 0; rep < repetitions; ++rep) {
      for (auto record : {synthetic_record(workload, "baseline", rep, 100 + rep, 1000),
                          synthetic_record(workload, "fast", rep, 150 + rep, 500)}) {
        change(record);
        append_record(path, record);
      }
    }
  };
  runs("crash", 3, [](Record& r) {
    if (r.variant != "fast") return;
    r.status = RunStatus::kCrashed;
    r.message = "signal 11 (Segmentation fault)";
  });
  runs("elsewhere", 3, [](Record& r) {
    if (r.variant != "fast") return;
    r.status = RunStatus::kNotApplicable;
    r.message = "needs a CUDA device";
  });
  runs("once", 1, [](Record&) {});
  runs("target", 3, [](Record& r) {
    r.metrics.target_accuracy = 0.85;
    // One variant run never reached it: a median of the other two would flatter the variant.
    if (r.variant == "baseline" || r.repetition > 0) r.metrics.time_to_target_s = 2.0;
  });
  runs("no-target", 3, [](Record&) {});
  const auto results = load_results(dir.path().string());
  const auto claim_on = [](const std::string& workload, const std::string& metric) {
    auto claim = synthetic_claim(workload + "/" + metric, metric, ">=", 1.2, /*gate=*/true);
    claim.workload = workload;
    return claim;
  };
  const std::vector<Claim> claims = {
      claim_on("crash", "throughput"), claim_on("elsewhere", "throughput"),
      claim_on("once", "throughput"), claim_on("target", "time_to_target"),
      claim_on("no-target", "time_to_target")};
  const auto verdicts = verify_claims(claims, compare(results), results);
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"crash/throughput",
       {"inconclusive", "failed: no ok run of fast: crashed (signal 11 (Segmentation fault))"}},
      {"elsewhere/throughput", {"not_run", "not_applicable: needs a CUDA device"}},
      {"once/throughput", {"inconclusive", "fewer than 2 runs on a side (n 1/1)"}},
      {"target/time_to_target",
       {"inconclusive", "not measured: target reached by 3/3 baseline and 2/3 variant runs"}},
      {"no-target/time_to_target",
       {"not_run", "no run measured time_to_target (no target accuracy, or never reached)"}}};
  for (const auto& [id, verdict_and_reason] : expected) {
    const auto& v = verdict_of(verdicts, id);
    EXPECT_EQ(v.verdict, verdict_and_reason.first) << id;
    EXPECT_EQ(v.reason, verdict_and_reason.second) << id;
    EXPECT_FALSE(v.measured) << id;
    EXPECT_TRUE(v.gates) << id << ": a gating claim that is not confirmed fails the gate";
  }
}

TEST(ClaimsTest, ClaimsFileErrorsNameTheClaimAndField) {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    write_text(dir.file("claims.json"), text);
    try {
      load_claims(dir.file("claims.json"));
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "speed", "direction": ">=", "threshold": 2, "source": "x"}]})")
          .find("claims[0].metric': got \"speed\", expected one of: throughput"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">", "threshold": 2, "source": "x"}]})")
          .find("claims[0].direction'"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">=", "source": "x"}]})")
          .find("claims[0].threshold': expected a number"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">=", "threshold": 2}]})")
          .find("claims[0].source'"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">=", "threshold": 2, "source": "x", "gated": true}]})")
          .find("claims[0].gated': unknown key"),
      std::string::npos);
}

TEST(ClaimsTest, TheShippedClaimsFileLoads) {
  const auto claims = load_claims(testing::source_dir() + "/suites/claims.json");
  EXPECT_GE(claims.size(), 10u);
  EXPECT_TRUE(std::any_of(claims.begin(), claims.end(), [](const Claim& c) { return c.gate; }));
}

// A claim is judged only where a suite compares its technique on a workload of its name; one
// that no shipped suite makes would stay not_run forever.
TEST(ClaimsTest, EveryComparisonAShippedClaimNamesIsInAShippedSuite) {
  std::set<std::pair<std::string, std::string>> compared;  // (technique label, workload)
  for (const auto& entry : std::filesystem::directory_iterator(testing::source_dir() + "/suites")) {
    const auto name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name == "claims.json") continue;
    for (const auto& comparison : load_suite(entry.path().string()).comparisons) {
      compared.insert({comparison.label, comparison.workload});
      compared.insert({comparison.label, "any"});
    }
  }
  for (const auto& claim : load_claims(testing::source_dir() + "/suites/claims.json")) {
    EXPECT_EQ(compared.count({claim.technique, claim.workload}), 1u)
        << claim.id << ": no shipped suite compares " << claim.technique << " on "
        << claim.workload;
  }
}

}  // namespace
}  // namespace speedbench::report
