// Helpers shared by the runtime tests: scratch files and report reading.
#pragma once

#include "torchalias/report.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace torchalias::test {

// Scratch directories are removed when the test process exits normally;
// the stress test alone writes 40 MB.
struct scratch_directories {
  std::vector<std::string> created;
  ~scratch_directories() {
    std::error_code ignored;
    for (const std::string &dir : created)
      std::filesystem::remove_all(dir, ignored);
  }
};
inline scratch_directories scratch_registry;

// A fresh path in a fresh directory under TMPDIR; the file does not exist.
inline std::string scratch_path(const std::string &name) {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp ? tmp : "/tmp") + "/torchalias-XXXXXX";
  const char *dir = ::mkdtemp(pattern.data());
  if (dir == nullptr)
    return "/nonexistent/" + name;
  scratch_registry.created.push_back(dir);
  return std::string(dir) + "/" + name;
}

inline std::vector<std::string> read_lines(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// Every line parsed as JSON; a line that does not parse fails the caller's
// size check by being left out and is returned in `bad`.
inline std::vector<nlohmann::json> read_records(const std::string &path,
                                                std::size_t *bad = nullptr) {
  std::vector<nlohmann::json> records;
  std::size_t unparsable = 0;
  for (const std::string &line : read_lines(path)) {
    nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object())
      ++unparsable;
    else
      records.push_back(std::move(record));
  }
  if (bad != nullptr)
    *bad = unparsable;
  return records;
}

// Points the process-wide report at a new scratch file and returns it.
inline std::string report_to_scratch(torchalias::mode mode,
                                     const std::string &name = "report.jsonl") {
  std::string path = scratch_path(name);
  torchalias::configure({mode, path});
  return path;
}

} // namespace torchalias::test
