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

}  // namespace
}  // namespace speedbench
