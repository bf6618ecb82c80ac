// The time budget's estimate of a run's duration and its decision to start a run, with literal
// values (the end-to-end stop and --resume are in cli_test.cpp).
#include <gtest/gtest.h>

#include "harness/suite/run_time_budget.h"

namespace speedbench {
namespace {

TEST(RunTimeBudgetTest, ARunIsExpectedToTakeWhatItsVariantTookElseItsWorkloadElseAnyRun) {
  RunDurationEstimate durations;
  EXPECT_EQ(durations.expected_s("resnet8", "baseline"), 0.0);  // nothing has run yet
  durations.add("resnet8", "baseline", 4.0);
  durations.add("resnet8", "amp", 2.0);
  durations.add("char_lstm", "baseline", 9.0);
  durations.add("resnet8", "baseline", 6.0);
  EXPECT_DOUBLE_EQ(durations.expected_s("resnet8", "baseline"), 5.0);  // its variant's mean
  EXPECT_DOUBLE_EQ(durations.expected_s("resnet8", "amp"), 2.0);
  EXPECT_DOUBLE_EQ(durations.expected_s("resnet8", "checkpointing"), 4.0);  // resnet8's: 12 / 3
  EXPECT_DOUBLE_EQ(durations.expected_s("char_lstm", "amp"), 9.0);
  EXPECT_DOUBLE_EQ(durations.expected_s("row_lstm", "baseline"), 5.25);  // every run's: 21 / 4
}

TEST(RunTimeBudgetTest, ARunStartsOnlyWhenItIsExpectedToEndWithinTheBudget) {
  EXPECT_TRUE(fits_in_budget(/*budget_s=*/60, /*elapsed_s=*/50, /*expected_s=*/10, false));
  EXPECT_FALSE(fits_in_budget(60, 50.5, 10, false));
  EXPECT_TRUE(fits_in_budget(60, 70, 10, /*first_run=*/true));  // nothing known before it
  EXPECT_TRUE(fits_in_budget(/*budget_s=*/0, 1e9, 10, false));  // no budget
}

TEST(RunTimeBudgetTest, TheEtaIsTheRunsLeftAtThePaceSoFarButNoLaterThanTheBudgetsEnd) {
  // 4 of 10 runs took 40 s: 6 more at 10 s each.
  auto left = suite_time_left(/*budget_s=*/0, /*elapsed_s=*/40, /*started=*/4, /*to_run=*/10);
  EXPECT_DOUBLE_EQ(left.seconds, 60.0);
  EXPECT_FALSE(left.until_budget_end);
  left = suite_time_left(/*budget_s=*/120, 40, 4, 10);  // the budget ends after them
  EXPECT_DOUBLE_EQ(left.seconds, 60.0);
  EXPECT_FALSE(left.until_budget_end);
  left = suite_time_left(/*budget_s=*/90, 40, 4, 10);  // the suite stops at 90 s
  EXPECT_DOUBLE_EQ(left.seconds, 50.0);
  EXPECT_TRUE(left.until_budget_end);
  EXPECT_DOUBLE_EQ(suite_time_left(90, 0, /*started=*/0, 10).seconds, 0.0);  // no pace yet
}

}  // namespace
}  // namespace speedbench
