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

// Each returns the process exit code.
int command_run_one(const RunOneArgs& args);
int command_run_suite(const RunSuiteArgs& args);
int command_list();

}  // namespace speedbench
