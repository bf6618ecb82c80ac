#include "harness/results/records_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "harness/config/config_error.h"
#include "harness/config/json_file_kind.h"
#include "harness/config/json_reader.h"

namespace speedbench {

namespace {

// The bytes after the last newline of the open file `fd` of `size` bytes: a line whose writer
// died before its end (every writer writes whole lines under the lock, so no live one is
// mid-line while the lock is held).
off_t unfinished_last_line_bytes(int fd, off_t size) {
  char chunk[4096];
  for (off_t end = size; end > 0;) {
    const off_t begin = std::max<off_t>(0, end - static_cast<off_t>(sizeof chunk));
    const auto got = ::pread(fd, chunk, static_cast<size_t>(end - begin), begin);
    if (got != end - begin) return 0;  // unreadable: leave the file as it is
    for (off_t i = got - 1; i >= 0; --i) {
      if (chunk[i] == '\n') return size - (begin + i + 1);
    }
    end = begin;
  }
  return size;  // no newline at all: the whole file is one unfinished line
}

// Cuts an unfinished last line off the file open (read and write) and locked as `fd`; returns
// the bytes cut.
off_t cut_unfinished_last_line(int fd) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size <= 0) return 0;
  const off_t unfinished = unfinished_last_line_bytes(fd, size);
  if (unfinished > 0 && ::ftruncate(fd, size - unfinished) != 0) return 0;
  return unfinished;
}

}  // namespace

void append_record(const std::string& path, const Record& record) {
  const auto line = record_to_json(record).dump() + "\n";
  const auto folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot open for append: " + std::strerror(errno));
  ::flock(fd, LOCK_EX);
  // Appended to a line that a dead writer left unfinished, this record would be unreadable too.
  if (const off_t cut = cut_unfinished_last_line(fd)) {
    std::fprintf(stderr, "%s: dropped an unfinished last line (%lld bytes) before appending\n",
                 path.c_str(), static_cast<long long>(cut));
  }
  const auto written = ::write(fd, line.data(), line.size());
  const int write_errno = errno;
  ::fsync(fd);
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size())) {
    throw std::runtime_error(path + ": short write of a record: " + std::strerror(write_errno));
  }
}

namespace {

// Calls `take` with each non-empty line's record; a line that does not parse names its number.
template <typename Take>
void for_each_record(const std::string& path, bool parse_last_only, Take take) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "", "cannot open the records file");
  std::string line, last;
  int line_number = 0, last_number = 0;
  bool first = true;
  auto parse = [&](const std::string& text, int number) {
    try {
      take(record_from_json(nlohmann::json::parse(text)));
    } catch (const std::exception& error) {
      // A suite or a config given for records is named as such, not by its line 1.
      if (first) check_json_file_kind(read_text_file(path), JsonFileKind::kRecords, path);
      throw ConfigError(path, "line " + std::to_string(number), error.what());
    }
    first = false;
  };
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    if (parse_last_only) {
      last.swap(line);
      last_number = line_number;
    } else {
      parse(line, line_number);
    }
  }
  if (parse_last_only && last_number > 0) parse(last, last_number);
}

}  // namespace

std::vector<Record> read_records(const std::string& path) {
  std::vector<Record> records;
  for_each_record(path, false, [&](Record record) { records.push_back(std::move(record)); });
  return records;
}

void write_file_whole(const std::filesystem::path& path, const std::string& content) {
  // The folder that check_output_file_folder found could be made, made now the file is ready.
  std::error_code error;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  auto partial = path;
  partial += ".partial";
  std::ofstream out(partial, std::ios::binary);
  out << content;
  out.close();
  if (!out) {  // a full disk: no file rather than a truncated one
    std::filesystem::remove(partial);
    throw std::runtime_error(path.string() + ": could not be written");
  }
  std::filesystem::rename(partial, path);
}

void write_json_file_whole(const std::filesystem::path& path, const nlohmann::json& content) {
  write_file_whole(path, content.dump(1) + "\n");
}

namespace {

// Why `folder` cannot take a new file, or nothing when it can. What is missing is made and then
// removed again (a command that fails later on bad input leaves nothing behind), and a file is
// made in it: access(W_OK) says yes to root where no file can be made (/proc).
std::optional<std::string> folder_problem(const std::string& folder) {
  std::vector<std::filesystem::path> missing;
  for (auto p = std::filesystem::absolute(folder);
       !std::filesystem::exists(p) && p != p.parent_path(); p = p.parent_path()) {
    missing.push_back(p);
  }
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  std::optional<std::string> problem;
  if (error) {
    problem = error.message();
  } else if (!std::filesystem::is_directory(folder)) {
    problem = "not a folder";
  } else {
    const auto probe =
        std::filesystem::path(folder) / (".speedbench-write-check-" + std::to_string(::getpid()));
    if (!std::ofstream(probe)) problem = "no file can be made in it";
    std::filesystem::remove(probe, error);
  }
  for (const auto& created : missing) std::filesystem::remove(created, error);  // deepest first
  return problem;
}

}  // namespace

void check_output_folder(const std::string& folder, const std::string& flag) {
  if (folder.empty()) return;
  if (const auto problem = folder_problem(folder)) {
    throw ConfigError("command line", flag,
                      "cannot create or write the results folder \"" + folder + "\" (" + *problem +
                          "); expected a writable folder");
  }
}

void check_output_file_folder(const std::string& file, const std::string& flag) {
  if (file.empty()) return;  // no such output asked for
  if (std::filesystem::is_directory(file)) {
    throw ConfigError("command line", flag, "\"" + file + "\" is a folder; expected a file path");
  }
  const auto parent = std::filesystem::path(file).parent_path().string();
  const auto folder = parent.empty() ? "." : parent;  // a bare name: the working folder
  if (const auto problem = folder_problem(folder)) {
    throw ConfigError("command line", flag,
                      "cannot write \"" + file + "\": its folder \"" + folder +
                          "\" cannot be created or written (" + *problem +
                          "); expected a path in a writable folder");
  }
}

namespace {

// Whether `path` begins with records, or why its first line is not one; nothing for a new or
// empty file. (A record is appended by one write under a lock: no reader meets half a line.)
struct FirstLine {
  int number = 0;
  std::optional<std::string> not_a_record;
};
std::optional<FirstLine> read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  FirstLine first;
  while (line.empty() && std::getline(in, line)) ++first.number;
  if (line.empty()) return std::nullopt;
  try {
    record_from_json(nlohmann::json::parse(line));
  } catch (const std::exception& error) {
    first.not_a_record = error.what();
  }
  return first;
}

}  // namespace

void check_records_file_to_append(const std::string& path, const std::string& flag) {
  check_output_file_folder(path, flag);
  const auto first = read_first_line(path);
  if (first && first->not_a_record) {
    throw ConfigError("command line", flag,
                      "\"" + path + "\" is not a runs.jsonl: its line " +
                          std::to_string(first->number) + " is not a record (" +
                          *first->not_a_record +
                          "); expected a runs.jsonl to append the record to, or a new file");
  }
}

void check_file_to_overwrite(const std::string& path, const std::string& flag) {
  check_output_file_folder(path, flag);
  const auto first = read_first_line(path);
  if (first && !first->not_a_record) {
    throw ConfigError("command line", flag,
                      "\"" + path +
                          "\" holds records (a runs.jsonl), which this would "
                          "overwrite; expected another path");
  }
}

bool drop_partial_last_line(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  ::flock(fd, LOCK_EX);
  const bool dropped = cut_unfinished_last_line(fd) > 0;
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return dropped;
}

Record read_last_record(const std::string& path) {
  std::optional<Record> last;
  for_each_record(path, true, [&](Record record) { last = std::move(record); });
  if (!last) throw ConfigError(path, "", "the file has no records");
  return *last;
}

}  // namespace speedbench
