// The report: modes, environment errors, record format, atomicity.
#include "test_support.h"

#include "torchalias/report.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>
#include <utility>

namespace torchalias {
namespace {

using test::read_lines;
using test::read_records;
using test::report_to_scratch;

facts numbered(int thread, int i) {
  facts details;
  details.add("thread", thread).add("i", i);
  return details;
}

TEST(ParseMode, AcceptsTheFourModes) {
  EXPECT_EQ(parse_mode("off"), mode::off);
  EXPECT_EQ(parse_mode("log"), mode::log);
  EXPECT_EQ(parse_mode("warn"), mode::warn);
  EXPECT_EQ(parse_mode("abort"), mode::abort);
}

TEST(ParseMode, RejectsOthersNamingVariableAndValues) {
  for (const char *bad : {"", "WARN", "verbose", "log "}) {
    try {
      parse_mode(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const config_error &e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("TORCHALIAS_MODE='" + std::string(bad) + "'"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("accepted values: off, log, warn, abort"),
                std::string::npos)
          << message;
    }
  }
}

TEST(ParseRecordPolicy, AcceptsFirstAndAll) {
  EXPECT_EQ(parse_record_policy("first"), record_policy::first);
  EXPECT_EQ(parse_record_policy("all"), record_policy::all);
}

TEST(ParseRecordPolicy, RejectsOthersNamingVariableAndValues) {
  for (const char *bad : {"", "ALL", "every", "first "}) {
    try {
      parse_record_policy(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const config_error &e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("TORCHALIAS_RECORDS='" + std::string(bad) + "'"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("accepted values: first, all"), std::string::npos)
          << message;
    }
  }
}

class Environment : public ::testing::Test {
protected:
  void TearDown() override {
    ::unsetenv("TORCHALIAS_MODE");
    ::unsetenv("TORCHALIAS_REPORT");
    ::unsetenv("TORCHALIAS_RECORDS");
  }
};

TEST_F(Environment, RecordsDefaultToFirstAndReadAll) {
  ::unsetenv("TORCHALIAS_RECORDS");
  EXPECT_EQ(config_from_environment().records, record_policy::first);
  ::setenv("TORCHALIAS_RECORDS", "all", 1);
  EXPECT_EQ(config_from_environment().records, record_policy::all);
  ::setenv("TORCHALIAS_RECORDS", "some", 1);
  EXPECT_THROW(config_from_environment(), config_error);
}

TEST_F(Environment, DefaultsToLogWithoutReport) {
  ::unsetenv("TORCHALIAS_MODE");
  ::unsetenv("TORCHALIAS_REPORT");
  const report_config config = config_from_environment();
  EXPECT_EQ(config.mode, mode::log);
  EXPECT_TRUE(config.report_path.empty());
}

TEST_F(Environment, ReadsBothVariables) {
  ::setenv("TORCHALIAS_MODE", "warn", 1);
  ::setenv("TORCHALIAS_REPORT", "/tmp/x.jsonl", 1);
  const report_config config = config_from_environment();
  EXPECT_EQ(config.mode, mode::warn);
  EXPECT_EQ(config.report_path, "/tmp/x.jsonl");
}

TEST_F(Environment, EmptyReportIsAnError) {
  ::setenv("TORCHALIAS_REPORT", "", 1);
  EXPECT_THROW(
      {
        try {
          config_from_environment();
        } catch (const config_error &e) {
          EXPECT_NE(std::string(e.what()).find("TORCHALIAS_REPORT"),
                    std::string::npos);
          throw;
        }
      },
      config_error);
}

TEST_F(Environment, UnwritableReportIsAnErrorAndKeepsOldConfig) {
  const std::string good = report_to_scratch(mode::log);
  const std::string bad = "/nonexistent-dir/report.jsonl";
  try {
    configure({mode::warn, bad});
    ADD_FAILURE() << "opened " << bad;
  } catch (const config_error &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("TORCHALIAS_REPORT='" + bad + "'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("No such file or directory"), std::string::npos);
    EXPECT_NE(message.find("accepted values: a path to a writable file"),
              std::string::npos);
  }
  EXPECT_EQ(current_config().report_path, good);
  EXPECT_EQ(current_config().mode, mode::log);
}

// The lazy first use reads the environment; a fresh process shows it.
TEST(EnvironmentDeathTest, BadModeFailsAtFirstUse) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("TORCHALIAS_MODE", "loud", 1);
        try {
          reporting_enabled();
        } catch (const config_error &e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(3);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(3),
      "TORCHALIAS_MODE='loud' is not a valid mode; accepted values: off, "
      "log, warn, abort");
}

TEST(Report, RecordHasTheDocumentedFields) {
  const std::string path = report_to_scratch(mode::log);
  facts details;
  details.add("flag", true).add("count", 3).add("text", "a \"quoted\"\nline");
  report(TORCHALIAS_SITE("unit-check"), verdict::not_applicable, details);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  const auto &r = records[0];
  EXPECT_EQ(r["version"], 1);
  EXPECT_EQ(r["file"], __FILE__);
  EXPECT_EQ(r["line"], __LINE__ - 6);
  EXPECT_EQ(r["check"], "unit-check");
  EXPECT_EQ(r["site"], std::string(__FILE__) + ":" +
                           std::to_string(__LINE__ - 9) + ":unit-check");
  EXPECT_EQ(r["verdict"], "not-applicable");
  EXPECT_EQ(r["facts"]["flag"], true);
  EXPECT_EQ(r["facts"]["count"], 3);
  EXPECT_EQ(r["facts"]["text"], "a \"quoted\"\nline");
  EXPECT_EQ(r["pid"], ::getpid());
  EXPECT_TRUE(r["tid"].is_number_integer());
  EXPECT_TRUE(r["seq"].is_number_unsigned());
}

TEST(Report, RecordCarriesTheFindingWhenTheSiteHasOne) {
  const std::string path = report_to_scratch(mode::log);
  site_location with_finding{__FILE__, __LINE__, "unit-check",
                             "9f86d081884c7d65"};
  site_location hand_written{__FILE__, __LINE__, "unit-check"};
  report(with_finding, verdict::clean, facts());
  report(hand_written, verdict::clean, facts());
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["finding"], "9f86d081884c7d65");
  EXPECT_FALSE(records[1].contains("finding")) << records[1];
}

// Under the default policy a site writes its first record of each verdict;
// the later validations are counted. Local sites: fresh on every run.
TEST(Report, FirstPolicyWritesOneRecordPerSiteAndVerdict) {
  const std::string path = report_to_scratch(mode::log);
  site_location first{__FILE__, __LINE__, "first"};
  site_location second{__FILE__, __LINE__, "second"};
  const report_stats before = current_stats();
  for (int i = 0; i < 5; ++i) {
    report(first, verdict::clean, numbered(0, i));
    report(first, verdict::confirmed, numbered(1, i));
    report(second, verdict::clean, numbered(2, i));
  }
  EXPECT_EQ(current_stats().checks - before.checks, 15u);
  EXPECT_EQ(current_stats().confirmed - before.confirmed, 5u);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 3u);
  for (const auto &r : records)
    EXPECT_EQ(r["facts"]["i"], 0) << "not the first validation: " << r;
  EXPECT_EQ(records[0]["verdict"], "clean");
  EXPECT_EQ(records[1]["verdict"], "confirmed");
  EXPECT_EQ(records[2]["check"], "second");
}

TEST(Report, AllPolicyWritesEveryValidation) {
  const std::string path = test::scratch_path("all.jsonl");
  configure({mode::log, path, record_policy::all});
  site_location site{__FILE__, __LINE__, "all"};
  for (int i = 0; i < 5; ++i)
    report(site, verdict::clean, numbered(0, i));
  EXPECT_EQ(read_records(path).size(), 5u);
}

// A new configuration (a new report file) gets the first records again.
TEST(Report, FirstPolicyStartsAgainAfterConfigure) {
  const std::string one = report_to_scratch(mode::log, "one.jsonl");
  site_location site{__FILE__, __LINE__, "again"};
  report(site, verdict::clean, facts());
  report(site, verdict::clean, facts());
  const std::string two = report_to_scratch(mode::log, "two.jsonl");
  report(site, verdict::clean, facts());
  report(site, verdict::clean, facts());
  EXPECT_EQ(read_records(one).size(), 1u);
  EXPECT_EQ(read_records(two).size(), 1u);
}

TEST(Report, NoRecordIsWantedWithoutAFileInLogMode) {
  configure({mode::log, ""});
  site_location site{__FILE__, __LINE__, "unwanted"};
  const report_stats before = current_stats();
  EXPECT_FALSE(count_validation(site, verdict::confirmed));
  EXPECT_FALSE(count_validation(site, verdict::clean));
  EXPECT_EQ(current_stats().checks - before.checks, 2u);
  EXPECT_EQ(site.written.load(), 0u) << "nothing was written, nothing claimed";
  configure({mode::warn, ""});
  EXPECT_TRUE(count_validation(site, verdict::confirmed)) << "warn prints it";
  EXPECT_FALSE(count_validation(site, verdict::clean));
  EXPECT_FALSE(count_validation(site, verdict::confirmed)) << "printed once";
  configure({mode::off, ""});
  EXPECT_FALSE(count_validation(site, verdict::confirmed));
}

TEST(Report, FirstPolicyPrintsAConfirmedSiteOnce) {
  report_to_scratch(mode::warn);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i)
    report(TORCHALIAS_SITE("loud-once"), verdict::confirmed, facts());
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("[loud-once]"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("[loud-once]"), printed.rfind("[loud-once]"))
      << printed;
}

// The default policy under contention: exactly one record per (site,
// verdict), however many threads reach it at once.
TEST(Report, FirstPolicyUnderSixteenThreadsWritesOnePerSiteAndVerdict) {
  const std::string path = report_to_scratch(mode::log);
  site_location sites[2] = {{__FILE__, __LINE__, "busy-a"},
                            {__FILE__, __LINE__, "busy-b"}};
  constexpr int threads = 16, per_thread = 10000;
  const report_stats before = current_stats();
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([t, &sites] {
      for (int i = 0; i < per_thread; ++i)
        report(sites[i % 2], static_cast<verdict>((i / 2 + t) % 3),
               numbered(t, i));
    });
  }
  for (std::thread &writer : writers)
    writer.join();
  EXPECT_EQ(current_stats().checks - before.checks,
            std::uint64_t(threads) * per_thread);
  std::size_t bad = 0;
  const auto records = read_records(path, &bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(records.size(), 6u);
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto &r : records)
    seen.emplace(r["check"].get<std::string>(), r["verdict"].get<std::string>());
  EXPECT_EQ(seen.size(), 6u) << "a (site, verdict) record came twice";
}

TEST(Report, CountsChecksSitesAndConfirmed) {
  report_to_scratch(mode::log);
  // Local sites, unlike TORCHALIAS_SITE's statics, are unseen on every run
  // of the test (--gtest_repeat).
  site_location first{__FILE__, __LINE__, "first"};
  site_location second{__FILE__, __LINE__, "second"};
  const report_stats before = current_stats();
  for (int i = 0; i < 3; ++i)
    report(first, verdict::clean, facts());
  report(second, verdict::confirmed, facts());
  const report_stats after = current_stats();
  EXPECT_EQ(after.checks - before.checks, 4u);
  EXPECT_EQ(after.sites - before.sites, 2u);
  EXPECT_EQ(after.confirmed - before.confirmed, 1u);
}

TEST(Report, OffWritesNothingAndCountsNothing) {
  const std::string path = report_to_scratch(mode::off);
  EXPECT_FALSE(reporting_enabled());
  const report_stats before = current_stats();
  report(TORCHALIAS_SITE("off"), verdict::confirmed, facts());
  EXPECT_EQ(current_stats().checks, before.checks);
  EXPECT_TRUE(read_lines(path).empty());
  EXPECT_EQ(std::fopen(path.c_str(), "r"), nullptr) << "off created " << path;
}

TEST(Report, LogAppendsToAnExistingFile) {
  const std::string path = test::scratch_path("existing.jsonl");
  std::FILE *file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("{\"earlier\":true}\n", file);
  std::fclose(file);
  configure({mode::log, path});
  report(TORCHALIAS_SITE("append"), verdict::clean, facts());
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["earlier"], true);
  EXPECT_EQ(records[1]["check"], "append");
}

TEST(Report, WarnPrintsConfirmedSitesOnly) {
  const std::string path = report_to_scratch(mode::warn);
  ::testing::internal::CaptureStderr();
  report(TORCHALIAS_SITE("quiet"), verdict::clean, facts());
  report(TORCHALIAS_SITE("loud"), verdict::confirmed, facts().add("x", 1));
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed.find("[quiet]"), std::string::npos) << printed;
  EXPECT_NE(printed.find("confirmed aliasing at"), std::string::npos);
  EXPECT_NE(printed.find("[loud]: {\"x\":1}"), std::string::npos) << printed;
  EXPECT_EQ(read_lines(path).size(), 2u);
}

TEST(ReportDeathTest, WarnPrintsSummaryAtExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        report_to_scratch(mode::warn);
        report(TORCHALIAS_SITE("a"), verdict::clean, facts());
        report(TORCHALIAS_SITE("a-again"), verdict::clean, facts());
        for (int i = 0; i < 2; ++i)
          report(TORCHALIAS_SITE("b"), verdict::confirmed, facts());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "torchalias: 3 sites seen, 2 confirmed \\(4 checks; report: .*\\)");
}

// Note [Atomic appends] in report.cpp is what this test holds to.
TEST(Report, SixteenThreadsLoseAndInterleaveNothing) {
  const std::string path = test::scratch_path("stress.jsonl");
  configure({mode::log, path, record_policy::all});
  constexpr int threads = 16, per_thread = 10000;
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([t] {
      for (int i = 0; i < per_thread; ++i)
        report(TORCHALIAS_SITE("stress"),
               i % 2 ? verdict::clean : verdict::not_applicable,
               numbered(t, i));
    });
  }
  for (std::thread &writer : writers)
    writer.join();

  std::size_t bad = 0;
  const auto records = read_records(path, &bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(records.size(), std::size_t(threads) * per_thread);
  std::set<std::pair<int, int>> seen;
  std::set<std::uint64_t> sequence_numbers;
  for (const auto &r : records) {
    seen.emplace(r["facts"]["thread"].get<int>(), r["facts"]["i"].get<int>());
    sequence_numbers.insert(r["seq"].get<std::uint64_t>());
  }
  EXPECT_EQ(seen.size(), records.size()) << "a record came twice";
  EXPECT_EQ(sequence_numbers.size(), records.size());
}

// "fast" death tests fork without exec, so the child writes to the path
// the parent computed; no thread is running at the fork.
TEST(ReportDeathTest, AbortKeepsEveryEarlierRecord) {
  GTEST_FLAG_SET(death_test_style, "fast");
  const std::string path = test::scratch_path("abort.jsonl");
  constexpr int threads = 8, per_thread = 2000;
  EXPECT_DEATH(
      {
        configure({mode::abort, path, record_policy::all});
        std::vector<std::thread> writers;
        for (int t = 0; t < threads; ++t)
          writers.emplace_back([t] {
            for (int i = 0; i < per_thread; ++i)
              report(TORCHALIAS_SITE("before"), verdict::clean,
                     numbered(t, i));
          });
        for (std::thread &writer : writers)
          writer.join();
        report(TORCHALIAS_SITE("fatal"), verdict::confirmed, facts());
        std::exit(0); // not reached in abort mode
      },
      "aborting \\(TORCHALIAS_MODE=abort\\)");
  std::size_t bad = 0;
  const auto records = read_records(path, &bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(records.size(), std::size_t(threads) * per_thread + 1);
  EXPECT_EQ(records.back()["check"], "fatal");
  EXPECT_EQ(records.back()["verdict"], "confirmed");
}

// Writers still running when the abort comes: nothing may be torn.
TEST(ReportDeathTest, AbortDuringWritesLeavesOnlyWholeLines) {
  GTEST_FLAG_SET(death_test_style, "fast");
  const std::string path = test::scratch_path("abort-busy.jsonl");
  EXPECT_DEATH(
      {
        configure({mode::abort, path, record_policy::all});
        const std::uint64_t start = current_stats().checks;
        for (int t = 0; t < 4; ++t)
          std::thread([t] {
            for (int i = 0;; ++i)
              report(TORCHALIAS_SITE("busy"), verdict::clean, numbered(t, i));
          }).detach();
        while (current_stats().checks - start < 20000)
          std::this_thread::yield();
        report(TORCHALIAS_SITE("fatal"), verdict::confirmed, facts());
      },
      "aborting");
  std::size_t bad = 0;
  const auto records = read_records(path, &bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_GE(records.size(), 20000u);
  std::size_t fatal = 0;
  for (const auto &r : records)
    fatal += r["check"] == "fatal";
  EXPECT_EQ(fatal, 1u);
}

} // namespace
} // namespace torchalias
