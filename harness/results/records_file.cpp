#include "harness/results/records_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "harness/config/config_error.h"

namespace speedbench {

void append_record(const std::string& path, const Record& record) {
  const auto line = record_to_json(record).dump() + "\n";
  const auto folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot open for append: " + std::strerror(errno));
  ::flock(fd, LOCK_EX);
  const auto written = ::write(fd, line.data(), line.size());
  const int write_errno = errno;
  ::fsync(fd);
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size())) {
    throw std::runtime_error(path + ": short write of a record: " + std::strerror(write_errno));
  }
}

std::vector<Record> read_records(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "", "cannot open the records file");
  std::vector<Record> records;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    try {
      records.push_back(record_from_json(nlohmann::json::parse(line)));
    } catch (const std::exception& error) {
      throw ConfigError(path, "line " + std::to_string(line_number), error.what());
    }
  }
  return records;
}

}  // namespace speedbench
