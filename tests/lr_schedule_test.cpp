// Tip 1: schedule values at chosen steps equal the closed forms PyTorch documents, and a run
// trains every step at its schedule's value.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/config/config_loader.h"
#include "harness/techniques/lr_schedule.h"
#include "harness/train/train_loop.h"

namespace speedbench {
namespace {

constexpr double kPi = 3.14159265358979323846;

LrScheduleConfig kind(const std::string& name) {
  LrScheduleConfig c;
  c.kind = name;
  return c;
}

TEST(LrScheduleTest, ConstantIsTheBaseLr) {
  LrSchedule s(kind("constant"), 0.1, 100, 10);
  EXPECT_DOUBLE_EQ(s.lr_at(0), 0.1);
  EXPECT_DOUBLE_EQ(s.lr_at(99), 0.1);
  EXPECT_FALSE(s.momentum_at(5).has_value());
}

TEST(LrScheduleTest, StepDecaysByGammaEveryStepSize) {
  auto c = kind("step");
  c.step_size = 30;
  c.gamma = 0.1;
  LrSchedule s(c, 0.5, 100, 10);
  EXPECT_DOUBLE_EQ(s.lr_at(29), 0.5);
  EXPECT_NEAR(s.lr_at(30), 0.05, 1e-15);
  EXPECT_NEAR(s.lr_at(65), 0.005, 1e-15);
}

TEST(LrScheduleTest, CosineFollowsCosineAnnealingLr) {
  auto c = kind("cosine");
  c.min_lr = 0.001;
  LrSchedule s(c, 0.1, 200, 10);
  // eta_min + (base - eta_min) * (1 + cos(pi t / T)) / 2
  EXPECT_DOUBLE_EQ(s.lr_at(0), 0.1);
  EXPECT_NEAR(s.lr_at(50), 0.001 + 0.099 * (1 + std::cos(kPi / 4)) / 2, 1e-15);
  EXPECT_NEAR(s.lr_at(100), 0.0505, 1e-15);
  EXPECT_NEAR(s.lr_at(200), 0.001, 1e-15);
}

TEST(LrScheduleTest, CyclicTriangularModes) {
  auto c = kind("cyclic");
  c.max_lr = 0.1;
  c.step_size_up = 10;
  LrSchedule triangular(c, 0.01, 1000, 100);
  EXPECT_DOUBLE_EQ(triangular.lr_at(0), 0.01);
  EXPECT_NEAR(triangular.lr_at(5), 0.055, 1e-12);  // halfway up
  EXPECT_NEAR(triangular.lr_at(10), 0.1, 1e-12);   // peak
  EXPECT_NEAR(triangular.lr_at(15), 0.055, 1e-12);
  EXPECT_NEAR(triangular.lr_at(20), 0.01, 1e-12);  // next cycle starts
  EXPECT_NEAR(triangular.lr_at(30), 0.1, 1e-12);

  c.cyclic_mode = "triangular2";  // amplitude halves each cycle
  LrSchedule halving(c, 0.01, 1000, 100);
  EXPECT_NEAR(halving.lr_at(30), 0.01 + 0.09 / 2, 1e-12);
  EXPECT_NEAR(halving.lr_at(50), 0.01 + 0.09 / 4, 1e-12);

  c.cyclic_mode = "exp_range";  // amplitude gamma^step
  c.gamma = 0.99;
  LrSchedule exp_range(c, 0.01, 1000, 100);
  EXPECT_NEAR(exp_range.lr_at(10), 0.01 + 0.09 * std::pow(0.99, 10), 1e-12);
}

TEST(LrScheduleTest, CyclicHalfPeriodDefaultsToHalfAnEpoch) {
  auto c = kind("cyclic");
  c.max_lr = 1.0;
  LrSchedule s(c, 0.0, 1000, 40);  // step_size_up = 20
  EXPECT_NEAR(s.lr_at(20), 1.0, 1e-12);
  EXPECT_NEAR(s.lr_at(40), 0.0, 1e-12);
}

TEST(LrScheduleTest, OneCycleMatchesOneCycleLr) {
  auto c = kind("one_cycle");
  c.max_lr = 0.4;  // defaults: pct_start 0.3, div 25, final_div 1e4, cos, momentum 0.85..0.95
  LrSchedule s(c, 0.05, 1000, 100);
  const double initial = 0.4 / 25, final = initial / 1e4;
  EXPECT_NEAR(s.lr_at(0), initial, 1e-15);
  EXPECT_NEAR(*s.momentum_at(0), 0.95, 1e-15);
  // Phase 1 ends at step pct_start * total - 1 = 299 with the peak.
  EXPECT_NEAR(s.lr_at(299), 0.4, 1e-15);
  EXPECT_NEAR(*s.momentum_at(299), 0.85, 1e-15);
  // Inside phase 1: cos annealing from initial to the peak.
  EXPECT_NEAR(s.lr_at(149), 0.4 + (initial - 0.4) / 2 * (std::cos(kPi * (149 / 299.0)) + 1), 1e-15);
  // Last step reaches initial / final_div_factor.
  EXPECT_NEAR(s.lr_at(999), final, 1e-15);
  EXPECT_NEAR(*s.momentum_at(999), 0.95, 1e-15);
  // Phase 2 midpoint: (step - 299) / (999 - 299) = 0.5
  EXPECT_NEAR(s.lr_at(649), final + (0.4 - final) / 2, 1e-12);
}

TEST(LrScheduleTest, OneCycleLinearAnnealing) {
  auto c = kind("one_cycle");
  c.max_lr = 1.0;
  c.anneal = "linear";
  c.div_factor = 10;
  c.final_div_factor = 100;
  c.pct_start = 0.5;
  c.cycle_momentum = false;
  LrSchedule s(c, 0.1, 101, 10);  // phase 1 ends at 49.5
  EXPECT_NEAR(s.lr_at(0), 0.1, 1e-15);
  EXPECT_NEAR(s.lr_at(33), 0.1 + 0.9 * (33 / 49.5), 1e-12);
  EXPECT_NEAR(s.lr_at(100), 0.001, 1e-12);
  EXPECT_FALSE(s.momentum_at(10).has_value());
}

}  // namespace
}  // namespace speedbench

// The LR range test that picks a schedule's peak.
#include "harness/config/config_loader.h"
#include "harness/techniques/lr_finder.h"

namespace speedbench {
namespace {

TEST(LrFinderTest, SweepIsExponentialAndTheSuggestionComesFromTheCurve) {
  LrFinderOptions options;
  options.start_lr = 1e-4;
  options.end_lr = 10.0;
  options.steps = 30;
  EXPECT_DOUBLE_EQ(lr_finder_lr(options, 0), 1e-4);
  EXPECT_NEAR(lr_finder_lr(options, 29), 10.0, 1e-12);
  EXPECT_NEAR(lr_finder_lr(options, 1) / lr_finder_lr(options, 0),
              lr_finder_lr(options, 29) / lr_finder_lr(options, 28), 1e-12);

  auto config = train_config_from_json(
      {{"data", {{"train_samples", 1024}, {"test_samples", 10}}}, {"batch_size", 32}, {"seed", 1}},
      "t");
  const auto result = find_learning_rate(config, options);
  ASSERT_FALSE(result.lrs.empty());
  for (size_t i = 0; i < result.lrs.size(); ++i)
    EXPECT_DOUBLE_EQ(result.lrs[i], lr_finder_lr(options, i));
  EXPECT_EQ(result.losses.size(), result.lrs.size());
  // The suggestion is a tenth of where the smoothed loss bottomed out.
  const auto lowest =
      std::min_element(result.smoothed_losses.begin(), result.smoothed_losses.end());
  EXPECT_DOUBLE_EQ(result.lr_at_min_loss, result.lrs[lowest - result.smoothed_losses.begin()]);
  EXPECT_DOUBLE_EQ(result.suggested_lr, result.lr_at_min_loss / 10);
  // Training at small LRs lowers the loss below its start (ln 10 ~ 2.30).
  EXPECT_LT(*lowest, result.smoothed_losses.front());
}

// Past the LRs it can train at, the sweep stops (as fastai's does) instead of spending its steps
// on a loss that only grows, and every loss it kept is finite.
TEST(LrFinderTest, TheSweepStopsOnceTheLossBlowsUp) {
  LrFinderOptions options;
  options.start_lr = 1e-3;
  options.end_lr = 1e6;
  options.steps = 60;
  auto config = train_config_from_json(
      {{"data", {{"train_samples", 1024}, {"test_samples", 10}}}, {"batch_size", 32}, {"seed", 1}},
      "t");
  const auto result = find_learning_rate(config, options);
  EXPECT_TRUE(result.stopped_early);
  ASSERT_FALSE(result.lrs.empty());
  EXPECT_LT(result.lrs.size(), static_cast<size_t>(options.steps));
  for (double loss : result.losses) EXPECT_TRUE(std::isfinite(loss));
  // Nothing before the last kept step exceeded 4x the best so far: it stopped at the first.
  double best = result.smoothed_losses.front();
  for (size_t i = 0; i + 1 < result.smoothed_losses.size(); ++i) {
    best = std::min(best, result.smoothed_losses[i]);
    EXPECT_LE(result.smoothed_losses[i], options.stop_factor * best) << "step " << i;
  }
  EXPECT_LT(result.suggested_lr, result.lrs.back());
}

// Through train(): every step's LR is the schedule's, and it reaches the optimizer (the run
// trains differently from a constant-LR run from its second step on).
TEST(LrScheduleTest, ARunTrainsEachStepAtItsScheduledLr) {
  auto config = [](const nlohmann::json& schedule) {
    return train_config_from_json({{"data", {{"train_samples", 256}, {"test_samples", 100}}},
                                   {"batch_size", 32},
                                   {"eval_batch_size", 100},
                                   {"progress_every_s", 0},
                                   {"deterministic", true},
                                   {"techniques", {{"lr_schedule", schedule}}}},
                                  "test");
  };
  const auto one_cycle = config({{"kind", "one_cycle"}, {"max_lr", 0.4}});
  const auto scheduled = train(one_cycle);
  const auto constant = train(config({{"kind", "constant"}}));
  ASSERT_EQ(scheduled.status, RunStatus::kOk) << scheduled.message;
  ASSERT_EQ(constant.status, RunStatus::kOk) << constant.message;
  const int64_t steps = scheduled.metrics.steps;  // one epoch of 256 / 32
  ASSERT_EQ(steps, 8);
  const LrSchedule expected(one_cycle.techniques.lr_schedule, one_cycle.optimizer.lr, steps, 8);
  const auto& lrs = scheduled.metrics.step_lrs;
  ASSERT_EQ(lrs.size(), static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) EXPECT_DOUBLE_EQ(lrs[k], expected.lr_at(k)) << k;
  EXPECT_EQ(constant.metrics.step_lrs, std::vector<double>(steps, one_cycle.optimizer.lr));
  EXPECT_EQ(scheduled.metrics.step_losses[0], constant.metrics.step_losses[0]);  // same weights
  EXPECT_NE(scheduled.metrics.step_losses[1], constant.metrics.step_losses[1]);
}

}  // namespace
}  // namespace speedbench
