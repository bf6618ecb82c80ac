// `run --suite S --against BINARY`: the second speedbench build an A/B suite run interleaves with
// this one. Checked once, before anything runs, so that a wrong path is one clear error rather
// than a crashed record for every run of the second binary.
#pragma once

#include <string>

namespace speedbench {

struct AgainstBinary {
  std::string path;     // absolute, links resolved (the child is started by path, not PATH)
  std::string version;  // its `--version` line: "speedbench 0.1.0 (commit ..., ...)"
};

// The binary at `path` if it runs and says it is speedbench; ConfigError on the command line's
// --against otherwise. Any speedbench build whose `run-one` takes the runner's options will do,
// this one included (an A/A run measures how far two sets of the same build's runs differ).
AgainstBinary check_against_binary(const std::string& path);

}  // namespace speedbench
