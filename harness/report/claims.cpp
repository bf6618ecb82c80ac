#include "harness/report/claims.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "harness/config/config_error.h"
#include "harness/config/json_file_kind.h"
#include "harness/config/json_reader.h"
#include "harness/report/report_text.h"

namespace speedbench::report {

namespace {

bool claim_applies(const Claim& claim, const std::string& device) {
  return claim.device == "any" || claim.device == device;
}

// The comparison a claim speaks of (its device is checked by claim_applies).
bool claim_matches(const Claim& claim, const Comparison& comparison) {
  return claim.technique == comparison.label &&
         (claim.workload == "any" || claim.workload == comparison.workload);
}

int severity(const std::string& verdict) {
  if (verdict == "refuted") return 3;
  if (verdict == "inconclusive") return 2;
  if (verdict == "confirmed") return 1;
  return 0;  // not_run
}

// Whether `candidate` should decide a claim instead of `deciding`: a more severe verdict; at the
// same severity one that measured nothing (a crash says more than an interval that straddles);
// then, both measured, the estimate less favourable to the claim (the smaller where it says
// ">=", the larger where "<="). So a claim on "any" workload names its weakest workload, not
// the first in plan order.
bool decides_instead(const ClaimVerdict& candidate, const ClaimVerdict& deciding) {
  if (deciding.workload.empty()) return true;  // nothing matched yet
  const int a = severity(candidate.verdict), b = severity(deciding.verdict);
  if (a != b) return a > b;
  if (candidate.measured != deciding.measured) return !candidate.measured;
  if (!candidate.measured) return false;
  const double c = candidate.measurement.interval.estimate,
               d = deciding.measurement.interval.estimate;
  return candidate.claim->direction == ">=" ? c < d : c > d;
}

// For a claim matched on more than one workload: "the least favourable of 3 workloads
// (confirmed on 2, inconclusive on 1)".
std::string tally_note(const std::vector<std::pair<std::string, std::string>>& by_workload) {
  std::map<std::string, int> workloads_by_verdict;
  for (const auto& [workload, verdict] : by_workload) workloads_by_verdict[verdict] += 1;
  std::string note =
      "the least favourable of " + std::to_string(by_workload.size()) + " workloads (";
  const char* separator = "";
  for (const char* verdict : {"confirmed", "inconclusive", "refuted", "not_run"}) {
    const auto found = workloads_by_verdict.find(verdict);
    if (found == workloads_by_verdict.end()) continue;
    note += separator + std::string(verdict) + " on " + std::to_string(found->second);
    separator = ", ";
  }
  return note + ")";
}

// A caveat for a verdict drawn from an interval that undercovers (a bootstrap's from fewer than
// kMinRunsPerSide runs a side that vary; a paired t interval keeps its coverage).
std::string few_runs_note(const MetricComparison& m) {
  if (!interval_undercovers(m)) return "";
  return "only " + std::to_string(m.n_baseline) + "/" + std::to_string(m.n_variant) +
         " runs: under " + std::to_string(kMinRunsPerSide) +
         " a side, a bootstrap 95% interval holds the true value about 9 times in 10, not 19 in 20";
}

// Beyond this many repetitions a suggestion stops: the effect sits too close to the claim to
// tell apart at this noise.
constexpr int kMostRepetitionsSuggested = 100;

// For a verdict a paired t interval left inconclusive: how many repetitions would decide it if
// the effect and the pairs' spread were as measured (the interval's half-width in logs is
// t(n - 1) * stddev / sqrt(n), so the spread follows from it). A plan, not a promise: a new run
// measures its own effect and spread.
std::string repetitions_to_decide_note(const MetricComparison& m, const Claim& claim) {
  if (!m.t_interval || m.pairs < 2 || claim.threshold <= 0 || m.interval.low <= 0) return "";
  const double mean = std::log(m.interval.estimate);
  const double distance = std::abs(mean - std::log(claim.threshold));
  const double stddev = (std::log(m.interval.high) - std::log(m.interval.low)) / 2 *
                        std::sqrt(static_cast<double>(m.pairs)) /
                        measure::student_t_quantile(0.95, m.pairs - 1);
  const bool above = mean > std::log(claim.threshold);
  const std::string outcome = above == (claim.direction == ">=") ? "confirm" : "refute";
  const std::string measured =
      " if the effect and its spread are as in these " + std::to_string(m.pairs) + " pairs";
  for (int n = m.pairs + 1; n <= kMostRepetitionsSuggested; ++n) {
    if (measure::student_t_quantile(0.95, n - 1) * stddev / std::sqrt(static_cast<double>(n)) <
        distance) {
      return "about " + std::to_string(n) + " repetitions would " + outcome + " it" + measured;
    }
  }
  return "more than " + std::to_string(kMostRepetitionsSuggested) +
         " repetitions would be needed to decide it" + measured;
}

// For a verdict the interval decided on a claim of "no change or better" (threshold 1 for a
// ratio, 0 for a difference): p tests exactly that, and q is p adjusted over the report's
// comparisons of the metric. Where q is 0.05 or more, the interval does not stand out from the
// one in 20 of those comparisons that excludes no change by chance: a rerun with more
// repetitions tells.
std::string chance_note(const MetricComparison& m, const Claim& claim, const std::string& verdict) {
  const auto* info = find_metric(claim.metric);
  const double no_change = info != nullptr && info->ratio ? 1 : 0;
  if (verdict == "inconclusive" || claim.threshold != no_change || m.q_value < 0.05) return "";
  return "p " + probability_text(m.p_value) + " against no change, q " +
         probability_text(m.q_value) +
         " adjusted over the report's comparisons of this metric: it may be one of the intervals "
         "that exclude no change by chance (a rerun with more repetitions tells)";
}

}  // namespace

std::vector<Claim> load_claims(const std::string& path) {
  const auto json = read_json_file_of_kind(path, JsonFileKind::kClaims);
  JsonObjectReader root(json, path, "");
  const auto* list = root.raw("claims");
  if (list == nullptr || !list->is_array()) root.fail("claims", "expected a list of claims");
  root.reject_unknown_keys();
  std::vector<Claim> claims;
  std::set<std::string> ids;
  for (size_t i = 0; i < list->size(); ++i) {
    JsonObjectReader in(list->at(i), path, "claims[" + std::to_string(i) + "]");
    Claim c;
    c.id = in.get_string("id", "");
    if (c.id.empty()) in.fail("id", "expected a non-empty claim id");
    in.require_unique("id", c.id, ids);
    c.technique = in.get_string("technique", "");
    if (c.technique.empty())
      in.fail("technique", "expected a technique id, \"all\" or a variant name");
    c.workload = in.get_string("workload", c.workload);
    c.device = in.get_choice("device", c.device, {"cpu", "cuda", "any"});
    c.gate_suite = in.get_string("gate_suite", c.gate_suite);
    c.metric = in.get_string("metric", "");
    if (find_metric(c.metric) == nullptr) {
      std::string known;
      for (const auto& m : report_metrics()) known += (known.empty() ? "" : ", ") + m.id;
      in.fail("metric", "got \"" + c.metric + "\", expected one of: " + known);
    }
    c.direction = in.get_choice("direction", "", {">=", "<="});
    c.threshold = in.get_double("threshold", 0, -1e18, 1e18);
    if (in.raw("threshold") == nullptr) in.fail("threshold", "expected a number");
    c.gate = in.get_bool("gate", false);
    c.source = in.get_string("source", "");
    if (c.source.empty()) in.fail("source", "expected where the claim comes from (a citation)");
    c.statement = in.get_string("statement", "");
    in.reject_unknown_keys();
    claims.push_back(std::move(c));
  }
  return claims;
}

std::string verdict_for(const measure::Interval& interval, const std::string& direction,
                        double threshold) {
  const bool at_least = direction == ">=";
  if (at_least ? interval.low >= threshold : interval.high <= threshold) return "confirmed";
  if (at_least ? interval.high < threshold : interval.low > threshold) return "refuted";
  return "inconclusive";
}

std::vector<ClaimVerdict> verify_claims(const std::vector<Claim>& claims,
                                        const std::vector<ComparisonResult>& comparisons,
                                        const Results& results) {
  const auto& device = results.device;
  std::vector<ClaimVerdict> verdicts;
  for (const auto& claim : claims) {
    ClaimVerdict best;  // the deciding (worst) verdict so far
    best.claim = &claim;
    best.verdict = "not_run";
    const bool applies = claim_applies(claim, device);
    best.gates =
        claim.gate && applies && (claim.gate_suite.empty() || claim.gate_suite == results.suite);
    if (!applies) {
      best.reason = "claim is for " + claim.device + "; these results are from " + device;
    } else {
      best.reason = "no comparison of " + claim.technique +
                    (claim.workload == "any" ? "" : " on " + claim.workload) + " in these results";
    }
    std::vector<std::pair<std::string, std::string>> by_workload;
    for (const auto& result : comparisons) {
      if (!applies || !claim_matches(claim, result.comparison)) continue;
      ClaimVerdict v = best;
      v.workload = result.comparison.workload;
      const auto* m = result.metric(claim.metric);
      if (result.status != "ok") {
        v.verdict = "inconclusive";
        v.reason = result.status + ": " + result.reason;
        if (result.status == "not_applicable" || result.status == "missing") v.verdict = "not_run";
      } else if (m == nullptr || (m->n_baseline == 0 && m->n_variant == 0)) {
        v.verdict = "not_run";
        v.reason =
            "no run measured " + claim.metric +
            (claim.metric == "time_to_target" ? " (no target accuracy, or never reached)" : "");
      } else if (!m->defined) {
        v.verdict = "inconclusive";
        v.reason = "not measured" + (m && !m->note.empty() ? ": " + m->note : std::string());
      } else if (lacks_interval(*m)) {
        v.verdict = "inconclusive";  // one sample says nothing about the spread
        v.reason = "fewer than 2 runs on a side (n " + std::to_string(m->n_baseline) + "/" +
                   std::to_string(m->n_variant) + ")";
      } else {
        v.measured = true;
        v.measurement = *m;
        v.verdict = verdict_for(m->interval, claim.direction, claim.threshold);
        v.reason = few_runs_note(*m);
        if (v.verdict == "inconclusive") v.reason += repetitions_to_decide_note(*m, claim);
        const auto chance = chance_note(*m, claim, v.verdict);
        if (!chance.empty()) v.reason += (v.reason.empty() ? "" : "; ") + chance;
      }
      by_workload.emplace_back(v.workload, v.verdict);
      if (decides_instead(v, best)) best = v;
    }
    if (by_workload.size() > 1) {
      best.reason = tally_note(by_workload) + (best.reason.empty() ? "" : "; " + best.reason);
    }
    best.by_workload = std::move(by_workload);
    verdicts.push_back(best);
  }
  return verdicts;
}

std::vector<const Claim*> claims_for(const std::vector<Claim>& claims, const Comparison& comparison,
                                     const Results& results) {
  std::vector<const Claim*> found;
  for (const auto& claim : claims) {
    if (claim_applies(claim, results.device) && claim_matches(claim, comparison)) {
      found.push_back(&claim);
    }
  }
  return found;
}

}  // namespace speedbench::report
