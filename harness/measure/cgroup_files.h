// Where this process's cgroups keep their CPU files: its cgroup's path for a controller, read from
// /proc/self/cgroup, and the folders of that cgroup and of each parent up to the mount's top,
// where a CPU quota (docker --cpus, a Kubernetes limit, a systemd slice) may be set at any level.
// Torch-free.
#pragma once

#include <string>
#include <vector>

namespace speedbench::measure {

// cgroup v2's mount, and cgroup v1's cpu controller's (where a v1 host mounts it).
inline constexpr const char* kCgroupV2Mount = "/sys/fs/cgroup";
inline constexpr const char* kCgroupV1CpuMount = "/sys/fs/cgroup/cpu";

// A whole file's text; empty where it cannot be read (a cgroup file that does not exist).
std::string file_text(const std::string& path);

// This process's cgroup path for `controller` from /proc/self/cgroup ("0::/a" for cgroup v2,
// empty `controller`; "4:cpu,cpuacct:/a" for v1's "cpu"), or "/" when it has none.
std::string own_cgroup_path(const std::string& controller);

// The cgroup and each of its parents up to the top: "/a/b", "/a", "/".
std::vector<std::string> path_and_parents(std::string path);

// The folders of this process's cgroup and its parents, cgroup v2's then v1's cpu controller's
// ("/sys/fs/cgroup/a/b", ..., "/sys/fs/cgroup/", "/sys/fs/cgroup/cpu/..."); on a host with one
// kind only, the other's files do not exist and read as empty.
std::vector<std::string> own_cpu_cgroup_folders();

}  // namespace speedbench::measure
