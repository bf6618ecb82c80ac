// results/<suite>/<run-id>/runs.jsonl: one record per line. Appends are atomic per record
// (one write(2) of the whole line under an exclusive lock, then fsync), so concurrent writers
// and a crash mid-run never leave a half line behind; a write that a full disk or a power cut
// cut short leaves one, which the next append (or --resume) drops.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results/record.h"

namespace speedbench {

// Appends one line; creates the folders it needs. A last line that a writer left unfinished (it
// died mid-write, or the disk filled) is cut first, with a note on stderr: the record would
// otherwise be glued to it and be unreadable too. Throws std::runtime_error on I/O failure.
void append_record(const std::string& path, const Record& record);

// Checks that `folder` can be created (or is there) and written, without leaving anything behind;
// otherwise bad input: ConfigError("command line", flag, ...) naming it.
void check_output_folder(const std::string& folder, const std::string& flag);
// check_output_folder for the folder that `file` is to be written in (the working folder for a
// bare name; nothing to check for ""), and that `file` is no folder. Called before the work whose
// result the file holds, not after it.
void check_output_file_folder(const std::string& file, const std::string& flag);
// check_output_file_folder for a runs.jsonl a record is to be appended to ("": none), and that what
// is already there is records: a config, a suite or a README given as --records would otherwise get
// a record line appended. Its first line is checked, not its last (another process may be
// appending to it, and append_record cuts a line that a dead writer left unfinished).
void check_records_file_to_append(const std::string& path, const std::string& flag);
// check_output_file_folder for a file to be written over (lr-find's curve, compare's markdown
// and JSON), and that it does not hold records: measurements are never overwritten.
void check_file_to_overwrite(const std::string& path, const std::string& flag);

// A file beside the records (plan.json, builds.json, report.md), written whole or not at all: a
// kill or a full disk mid-write leaves no file that --resume would read as half a plan, nor half
// a report. Creates the folders it needs. Throws std::runtime_error naming the file when it
// cannot be written.
void write_file_whole(const std::filesystem::path& path, const std::string& content);
// The same for a JSON document, one space of indent per level.
void write_json_file_whole(const std::filesystem::path& path, const nlohmann::json& content);

// Reads every record; a line that does not parse is an error naming the file and line.
std::vector<Record> read_records(const std::string& path);
// A runs.jsonl whose writer died mid-line (a full disk, a power cut) ends without a newline:
// drops that partial last line (under the writers' lock) so the file parses again. Returns
// whether it dropped one.
bool drop_partial_last_line(const std::string& path);

// The last record only (the others are not parsed): what a suite runner checks after each run.
Record read_last_record(const std::string& path);

}  // namespace speedbench
