#include "torchalias/report.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <chrono>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace torchalias {
namespace {

constexpr const char *accepted_modes = "off, log, warn, abort";
constexpr const char *accepted_record_policies = "first, all";
// The low bits of site_location::written, one per verdict; see
// Note [One record per verdict].
constexpr std::uint32_t verdict_bits = 3;

// Note [Atomic appends]
// ~~~~~~~~~~~~~~~~~~~~~
// Every record is rendered into one string and handed to one write(2) on a
// descriptor opened with O_APPEND. For a regular file Linux moves the offset
// to the end and copies the bytes under the inode lock, so two writers can
// neither interleave nor overwrite each other, however many threads or
// processes share the file. Nothing is buffered in user space, so a record
// is in the kernel's page cache once write(2) returns: abort() afterwards
// cannot lose it. A short write happens only on a full disk or a signal; the
// loop then appends the rest, which is the best that can be done.
void write_all(int fd, const char *data, std::size_t size) {
  while (size > 0) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return; // Reporting must never take the program down with it.
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

void write_stderr(std::string text) {
  write_all(STDERR_FILENO, text.data(), text.size());
}

// Note [Configuration lifetime]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// report() runs on any thread, so it reads the configuration through one
// atomic pointer and takes no lock. configure() publishes a new state and
// deliberately leaks the old one: a report() that loaded it a moment ago may
// still be writing through its descriptor. Reconfiguring is rare (tests, the
// start of a program), so the leak is a few bytes.
struct report_state {
  report_config config;
  std::unique_ptr<report_writer> writer;
  std::uint32_t generation = 0; // see Note [One record per verdict]
};

std::atomic<const report_state *> current_state{nullptr};
std::mutex configure_mutex;

// Note [Aborting with writers in flight]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A fatal signal can cut a write(2) to a regular file short: the kernel
// checks for one between the pages it copies. So abort() while another thread
// is inside write_all() could leave a torn last record. Before aborting,
// report() raises `aborting` and waits until no append is in flight. A writer
// counts itself in first and only then reads the flag (both sequentially
// consistent), so either the aborting thread sees it and waits, or it sees the
// flag and never starts its write: it then waits for the abort instead of
// returning, so no report() call returns without its record.
std::atomic<int> appends_in_flight{0};
std::atomic<bool> aborting{false};

void append_record(const report_writer &writer, const std::string &line) {
  appends_in_flight.fetch_add(1);
  if (aborting.load()) {
    appends_in_flight.fetch_sub(1);
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  writer.append_line(line);
  appends_in_flight.fetch_sub(1);
}

std::atomic<std::uint64_t> checks_seen{0};
std::atomic<std::uint64_t> sites_seen{0};
std::atomic<std::uint64_t> confirmed_seen{0};
std::atomic<std::uint64_t> next_sequence{0};

void print_summary_at_exit() {
  const report_state *state = current_state.load(std::memory_order_acquire);
  if (state == nullptr || state->config.mode != mode::warn)
    return;
  std::string text = "torchalias: " + std::to_string(sites_seen.load()) +
                     " sites seen, " + std::to_string(confirmed_seen.load()) +
                     " confirmed (" + std::to_string(checks_seen.load()) +
                     " checks";
  if (state->writer)
    text += "; report: " + state->writer->path();
  write_stderr(text + ")\n");
}

// Caller holds configure_mutex.
void publish(const report_config &config) {
  static std::uint32_t generations = 0;
  auto state = std::make_unique<report_state>();
  state->config = config;
  // Generations wrap within the bits `written` has for them.
  generations = (generations + 1) & (~std::uint32_t{0} >> verdict_bits);
  state->generation = generations;
  if (!config.report_path.empty() && config.mode != mode::off)
    state->writer = std::make_unique<report_writer>(config.report_path);
  static bool summary_registered = false;
  if (!summary_registered) {
    std::atexit(print_summary_at_exit);
    summary_registered = true;
  }
  current_state.store(state.release(), std::memory_order_release);
}

const report_state &state_for_use() {
  const report_state *state = current_state.load(std::memory_order_acquire);
  if (state != nullptr)
    return *state;
  std::lock_guard<std::mutex> lock(configure_mutex);
  state = current_state.load(std::memory_order_acquire);
  if (state == nullptr) {
    publish(config_from_environment());
    state = current_state.load(std::memory_order_acquire);
  }
  return *state;
}

long current_thread_id() {
  thread_local long id = static_cast<long>(::syscall(SYS_gettid));
  return id;
}

// Note [One record per verdict]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A flagged site in a training loop is validated millions of times, and its
// verdict rarely changes. Under record_policy::first (the default) a site
// writes a record the first time it reaches each verdict, so at most three,
// and only counts the validations after that. Which verdicts a site has
// written lives in the site itself, `site_location::written`: the bit
// `1 << verdict` for each, above them the generation of the configuration
// they were written under. A new configure() (a new report file, say) is a
// new generation, so the sites write their first records again, into it.
// Testing whether a record is wanted is one relaxed load of `written`,
// compared with the state's generation: no lookup and no lock. Claiming it
// is a compare-and-swap, so of several threads reaching a new verdict at
// once exactly one writes the record. Nothing orders the record with other
// memory, so relaxed is enough.

std::uint32_t verdict_bit(verdict outcome) {
  return std::uint32_t{1} << static_cast<unsigned>(outcome);
}

// True when this call is the one to write the (site, verdict) record. The
// first load is the whole cost once the record exists.
bool claim_first_record(site_location &site, verdict outcome,
                        std::uint32_t generation) {
  const std::uint32_t bit = verdict_bit(outcome);
  std::uint32_t seen = site.written.load(std::memory_order_relaxed);
  for (;;) {
    const bool current = (seen >> verdict_bits) == generation;
    if (current && (seen & bit) != 0)
      return false;
    const std::uint32_t kept = current ? seen : generation << verdict_bits;
    if (site.written.compare_exchange_weak(seen, kept | bit,
                                           std::memory_order_relaxed))
      return true;
  }
}

std::string render_record(const site_location &site, verdict outcome,
                          const facts &details, std::uint64_t sequence) {
  const std::string line_text = std::to_string(site.line);
  std::string line;
  line.reserve(256);
  line += "{\"version\":1,\"site\":";
  line += json_quote(std::string(site.file) + ":" + line_text + ":" +
                     site.check);
  line += ",\"file\":" + json_quote(site.file);
  line += ",\"line\":" + line_text;
  line += ",\"check\":" + json_quote(site.check);
  if (site.finding != nullptr)
    line += ",\"finding\":" + json_quote(site.finding);
  line += ",\"verdict\":\"";
  line += to_string(outcome);
  line += "\",\"facts\":" + details.to_json();
  line += ",\"pid\":" + std::to_string(::getpid());
  line += ",\"tid\":" + std::to_string(current_thread_id());
  line += ",\"seq\":" + std::to_string(sequence) + "}";
  return line;
}

} // namespace

const char *to_string(mode value) {
  switch (value) {
  case mode::off:
    return "off";
  case mode::log:
    return "log";
  case mode::warn:
    return "warn";
  case mode::abort:
    return "abort";
  }
  return "?";
}

const char *to_string(verdict value) {
  switch (value) {
  case verdict::confirmed:
    return "confirmed";
  case verdict::clean:
    return "clean";
  case verdict::not_applicable:
    return "not-applicable";
  }
  return "?";
}

const char *to_string(record_policy value) {
  switch (value) {
  case record_policy::first:
    return "first";
  case record_policy::all:
    return "all";
  }
  return "?";
}

record_policy parse_record_policy(std::string_view value) {
  for (record_policy candidate : {record_policy::first, record_policy::all}) {
    if (value == to_string(candidate))
      return candidate;
  }
  throw config_error("torchalias: TORCHALIAS_RECORDS='" + std::string(value) +
                     "' is not a valid record policy; accepted values: " +
                     accepted_record_policies);
}

mode parse_mode(std::string_view value) {
  for (mode candidate : {mode::off, mode::log, mode::warn, mode::abort}) {
    if (value == to_string(candidate))
      return candidate;
  }
  throw config_error("torchalias: TORCHALIAS_MODE='" + std::string(value) +
                     "' is not a valid mode; accepted values: " +
                     accepted_modes);
}

report_config config_from_environment() {
  report_config config;
  if (const char *mode_text = std::getenv("TORCHALIAS_MODE"))
    config.mode = parse_mode(mode_text);
  if (const char *path = std::getenv("TORCHALIAS_REPORT")) {
    if (*path == '\0')
      throw config_error(
          "torchalias: TORCHALIAS_REPORT is set but empty; accepted values: "
          "a path to a writable file (records are appended as JSON Lines), "
          "or leave it unset to write no report");
    config.report_path = path;
  }
  if (const char *records = std::getenv("TORCHALIAS_RECORDS"))
    config.records = parse_record_policy(records);
  return config;
}

void configure(const report_config &config) {
  std::lock_guard<std::mutex> lock(configure_mutex);
  publish(config);
}

report_config current_config() { return state_for_use().config; }

bool reporting_enabled() { return state_for_use().config.mode != mode::off; }

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

void facts::add_key(std::string_view key) {
  if (!members_.empty())
    members_ += ',';
  members_ += json_quote(key);
  members_ += ':';
}

facts &facts::add(std::string_view key, bool value) {
  return add_json(key, value ? "true" : "false");
}

facts &facts::add(std::string_view key, std::string_view value) {
  return add_json(key, json_quote(value));
}

facts &facts::add_json(std::string_view key, std::string_view json) {
  add_key(key);
  members_ += json;
  return *this;
}

report_stats current_stats() {
  return {checks_seen.load(), sites_seen.load(), confirmed_seen.load()};
}

bool count_validation(site_location &site, verdict outcome) {
  const report_state &state = state_for_use();
  if (state.config.mode == mode::off)
    return false;
  checks_seen.fetch_add(1, std::memory_order_relaxed);
  if (!site.seen.load(std::memory_order_relaxed) &&
      !site.seen.exchange(true, std::memory_order_relaxed))
    sites_seen.fetch_add(1, std::memory_order_relaxed);
  const bool confirmed = outcome == verdict::confirmed;
  if (confirmed)
    confirmed_seen.fetch_add(1, std::memory_order_relaxed);
  const bool printed = confirmed && state.config.mode != mode::log;
  if (!state.writer && !printed)
    return false;
  return state.config.records == record_policy::all ||
         claim_first_record(site, outcome, state.generation);
}

void write_record(site_location &site, verdict outcome, const facts &details) {
  const report_state &state = state_for_use();
  if (state.config.mode == mode::off)
    return;
  const std::uint64_t sequence = next_sequence++;
  if (state.writer)
    append_record(*state.writer, render_record(site, outcome, details, sequence));
  if (outcome != verdict::confirmed || state.config.mode == mode::log)
    return;
  std::string where = std::string(site.file) + ":" +
                      std::to_string(site.line) + " [" + site.check;
  if (site.finding != nullptr)
    where += std::string(", finding ") + site.finding;
  write_stderr("torchalias: confirmed aliasing at " + where +
               "]: " + details.to_json() + "\n");
  if (state.config.mode == mode::abort) {
    // See Note [Aborting with writers in flight].
    aborting.store(true);
    while (appends_in_flight.load() != 0)
      std::this_thread::yield();
    write_stderr("torchalias: aborting (TORCHALIAS_MODE=abort)\n");
    std::abort();
  }
}

void report(site_location &site, verdict outcome, const facts &details) {
  if (count_validation(site, outcome))
    write_record(site, outcome, details);
}

report_writer::report_writer(const std::string &path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw config_error("torchalias: TORCHALIAS_REPORT='" + path +
                       "' cannot be opened for appending: " +
                       std::strerror(errno) +
                       "; accepted values: a path to a writable file "
                       "(records are appended as JSON Lines), or leave it "
                       "unset to write no report");
}

report_writer::~report_writer() { ::close(fd_); }

void report_writer::append_line(std::string line) const {
  line += '\n';
  write_all(fd_, line.data(), line.size());
}

} // namespace torchalias
