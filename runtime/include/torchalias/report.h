// torchalias/report.h: verdicts, sites and the JSON Lines report.
//
//   torchalias::mode         off | log | warn | abort (TORCHALIAS_MODE)
//   torchalias::verdict      confirmed | clean | not-applicable
//   torchalias::record_policy  first | all (TORCHALIAS_RECORDS)
//   torchalias::site_location / TORCHALIAS_SITE(check)
//                            a static descriptor of one validation site
//   torchalias::facts        the JSON object of facts behind a verdict
//   torchalias::count_validation(site, verdict) / write_record(...)
//                            the two halves of report(): count, and say
//                            whether the facts are worth rendering
//   torchalias::report(...)  both at once, for facts already rendered
//   torchalias::report_writer  owns an O_APPEND file; one write(2) per line
//
// The process-wide configuration comes from TORCHALIAS_MODE,
// TORCHALIAS_REPORT and TORCHALIAS_RECORDS the first time it is needed, or
// from configure(). docs/runtime.md gives the record schema.
#pragma once

#include "torchalias/error.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace torchalias {

enum class mode { off, log, warn, abort };
enum class verdict { confirmed, clean, not_applicable };
// Which validations of a site become records; see Note [One record per
// verdict] in report.cpp.
enum class record_policy {
  first, // the first validation reaching each verdict, per site
  all,   // every validation
};

const char *to_string(mode value);
const char *to_string(verdict value);
const char *to_string(record_policy value);

// Throw config_error naming the variable (TORCHALIAS_MODE,
// TORCHALIAS_RECORDS) and the accepted values.
mode parse_mode(std::string_view value);
record_policy parse_record_policy(std::string_view value);

struct report_config {
  torchalias::mode mode = mode::log;
  std::string report_path; // empty: records are counted, not written
  record_policy records = record_policy::first;
};

// Reads TORCHALIAS_MODE (default log), TORCHALIAS_REPORT (default unset)
// and TORCHALIAS_RECORDS (default first). Throws config_error for a bad
// value of any of them.
report_config config_from_environment();

// Replaces the process-wide configuration; opens the report file first, so
// a bad path throws config_error and leaves the old configuration in place.
void configure(const report_config &config);
report_config current_config();

// False in mode off. Validation macros test it before doing any work.
bool reporting_enabled();

// One validation site; non-owning: `file`, `check` and `finding` are string
// literals. The TORCHALIAS_SITE macro (and instrument.h's macros) make it a
// function-local static, so `seen` counts distinct sites and `written`
// remembers which verdicts it already recorded, without any lookup.
struct site_location {
  const char *file;
  int line;
  const char *check;
  // The identity of the static finding this site was instrumented for (16
  // lowercase hex digits), or null for a hand-written validation.
  const char *finding = nullptr;
  std::atomic<bool> seen{false};
  // See Note [One record per verdict] in report.cpp.
  std::atomic<std::uint32_t> written{0};
};

#define TORCHALIAS_SITE(check_name)                                            \
  ([]() -> ::torchalias::site_location & {                                     \
    static ::torchalias::site_location torchalias_site_{__FILE__, __LINE__,   \
                                                        check_name};           \
    return torchalias_site_;                                                   \
  }())

// Quotes and escapes `text` as a JSON string.
std::string json_quote(std::string_view text);

// The members of one JSON object, rendered as they are added.
class facts {
public:
  facts &add(std::string_view key, bool value);
  facts &add(std::string_view key, std::string_view value);
  facts &add(std::string_view key, const char *value) {
    return add(key, std::string_view(value));
  }
  template <class Int, std::enable_if_t<std::is_integral_v<Int> &&
                                            !std::is_same_v<Int, bool>,
                                        int> = 0>
  facts &add(std::string_view key, Int value) {
    return add_json(key, std::to_string(value));
  }
  // `json` must already be valid JSON (an array or object, say).
  facts &add_json(std::string_view key, std::string_view json);

  std::string to_json() const { return "{" + members_ + "}"; }

private:
  void add_key(std::string_view key);
  std::string members_;
};

struct report_stats {
  std::uint64_t checks = 0;    // validations reported
  std::uint64_t sites = 0;     // distinct sites among them
  std::uint64_t confirmed = 0; // validations whose verdict was confirmed
};
report_stats current_stats();

// Counts one validation at `site` that reached `outcome` and says whether
// its record is wanted: false in mode off, when there is neither a report
// file nor (for a confirmed verdict in warn or abort mode) stderr to write
// to, and, under record_policy::first, when the site already recorded this
// verdict. True claims the record: the caller renders its facts and passes
// them to write_record(). A false answer costs no facts at all.
bool count_validation(site_location &site, verdict outcome);

// Writes a record claimed by count_validation(): appends a JSON line to
// TORCHALIAS_REPORT (if set), prints it in warn and abort modes when
// confirmed, and aborts in abort mode once the line is written.
void write_record(site_location &site, verdict outcome, const facts &details);

// count_validation() and, if the record is wanted, write_record(). Does
// nothing in mode off.
void report(site_location &site, verdict outcome, const facts &details);

// Owns a file opened with O_APPEND. See Note [Atomic appends].
class report_writer {
public:
  // Throws config_error naming TORCHALIAS_REPORT if the file cannot be
  // opened for appending.
  explicit report_writer(const std::string &path);
  ~report_writer();
  report_writer(const report_writer &) = delete;
  report_writer &operator=(const report_writer &) = delete;

  // Appends `line` and a newline with a single write(2).
  void append_line(std::string line) const;
  const std::string &path() const { return path_; }

private:
  std::string path_;
  int fd_;
};

} // namespace torchalias
