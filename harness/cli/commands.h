// The CLI's commands, one function each (argument parsing stays in main.cpp).
#pragma once

#include <string>

#include "harness/suite/run_one.h"

namespace speedbench {

struct RunOneArgs {
  std::string config_path;
  std::string results_root = "results";
  std::string records_path;  // "" = <results_root>/<suite>/<run-id>/runs.jsonl
  std::string data_root;
  RunIdentity identity;
  bool quiet = false;
};

struct RunSuiteArgs {
  std::string suite_path;
  std::string results_root = "results";
  std::string data_root;
  std::string executable;
};

struct LrFindArgs {
  std::string config_path;
  std::string out_path;  // "" = no file
  std::string data_root;
  double start_lr = 1e-5;
  double end_lr = 10.0;
  int64_t steps = 100;
};

// Each returns the process exit code.
int command_run_one(const RunOneArgs& args);
int command_run_suite(const RunSuiteArgs& args);
int command_list();
int command_lr_find(const LrFindArgs& args);

}  // namespace speedbench
