// The speedbench executables a suite run starts its runs with: this one, and with
// `run --suite S --against BINARY` a second build. The second is checked once, before anything
// runs, so that a wrong path or a build too old for the runner is one clear error rather than a
// crashed record for every run of it.
// A run folder notes its builds in builds.json. With --against, --resume refuses to go on with
// another build on either side: the two folders' runs are compared pair by pair, and a pair from
// a third build would measure neither change.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace speedbench {

// The `run-one` options the suite runner passes to every run it starts: a --against build must
// take them all (a build older than one of them would fail every run).
inline const std::vector<std::string> kRunOneOptionsTheRunnerPasses = {
    "--config",    "--records",    "--run-id", "--suite",    "--variant",
    "--run-index", "--repetition", "--brief",  "--data-root"};

struct SpeedbenchBinary {
  std::string path;     // absolute, links resolved (the child is started by path, not PATH)
  std::string version;  // its `--version` line: "speedbench 0.1.0 (commit ..., ...)"
  // Its bytes, as "crc32 1a2b3c4d, 2760992 bytes": two builds of one dirty tree share the
  // version line, not the bytes.
  std::string fingerprint;
};

// This executable (/proc/self/exe) with this build's version line.
SpeedbenchBinary this_binary();

// The binary at `path` if it runs, says it is speedbench, and its `run-one --help` lists every
// option in kRunOneOptionsTheRunnerPasses; ConfigError on the command line's --against
// otherwise. Any such build will do, this one included (an A/A run measures how far two sets of
// the same build's runs differ).
SpeedbenchBinary check_against_binary(const std::string& path);

// The run folder's builds.json: written when a suite run starts a folder (the second build too
// with --against). On --resume with --against, a ConfigError naming the side whose build is not
// the one noted; without --against, a line on stderr (the report flags two builds only where the
// records' commits or build types differ, not two dirty builds of one commit).
// A folder without the file (made before speedbench noted its builds) passes with a line saying
// it was not checked.
inline constexpr const char* kBuildsFile = "builds.json";
void note_builds(const std::filesystem::path& run_folder, const SpeedbenchBinary& self,
                 const std::optional<SpeedbenchBinary>& against);
void check_same_builds(const std::filesystem::path& run_folder, const SpeedbenchBinary& self,
                       const std::optional<SpeedbenchBinary>& against);

}  // namespace speedbench
