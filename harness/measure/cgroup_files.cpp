#include "harness/measure/cgroup_files.h"

#include <fstream>
#include <sstream>

namespace speedbench::measure {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string own_cgroup_path(const std::string& controller) {
  std::istringstream lines(file_text("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::istringstream names(line.substr(first + 1, second - first - 1));
    bool match = controller.empty() && names.str().empty();
    for (std::string name; !match && std::getline(names, name, ',');) match = name == controller;
    if (match) return line.substr(second + 1);
  }
  return "/";
}

std::vector<std::string> path_and_parents(std::string path) {
  std::vector<std::string> paths;
  while (!path.empty() && path.back() == '/') path.pop_back();
  for (;;) {
    paths.push_back(path.empty() ? "/" : path);
    const auto slash = path.rfind('/');
    if (slash == std::string::npos || path.empty()) break;
    path.resize(slash);
  }
  return paths;
}

std::vector<std::string> own_cpu_cgroup_folders() {
  std::vector<std::string> folders;
  for (const auto& path : path_and_parents(own_cgroup_path("")))
    folders.push_back(kCgroupV2Mount + path);
  for (const auto& path : path_and_parents(own_cgroup_path("cpu")))
    folders.push_back(kCgroupV1CpuMount + path);
  return folders;
}

}  // namespace speedbench::measure
