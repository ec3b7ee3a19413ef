// CPU runtime benchmarks: the cost of a validated site, isolate() and
// fingerprint() throughput against memcpy. Prints markdown tables.
//
//   torchalias_runtime_bench [max_mib] [--sites-only]   (default 1024)
#include "bench_timing.h"

#include <torchalias/torchalias.h>

#include <torch/torch.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using torchalias::bench::best_seconds;
using torchalias::bench::gib_per_second;

// A sink the optimiser cannot see through.
volatile std::uint64_t sink;

// Note [Measuring a site]
// ~~~~~~~~~~~~~~~~~~~~~~~
// A site's cost when nothing is written, in both ways that happens: no
// report file (mode log, TORCHALIAS_REPORT unset), and a report file whose
// record for the (site, verdict) was written by the first call. Each row is
// the median of 11 timings, timed side by side with the baselines: an
// empty loop and the in-place write the site guards. The verdict of each
// site is printed, so a row cannot silently measure another case.
constexpr int site_repeats = 11;
constexpr long site_calls = 200000;

struct site_row {
  std::string what;
  double seconds;
  const char *outcome;
};

void print_site_rows(const char *title, const std::vector<site_row> &rows,
                     double empty, double write) {
  std::printf("### %s\n\n", title);
  std::printf("| what | verdict | ns/site | ratio to `head.add_(1)` | "
              "ns above the empty loop |\n|---|---|---|---|---|\n");
  for (const site_row &row : rows)
    std::printf("| %s | %s | %.1f | %.3f | %.1f |\n", row.what.c_str(),
                row.outcome,
                row.seconds * 1e9, row.seconds / write,
                (row.seconds - empty) * 1e9);
  std::printf("\n");
  std::fflush(stdout);
}

template <class Body> double time_site(Body &&body) {
  return torchalias::bench::median_seconds(site_repeats, site_calls, body);
}

// The view-write sites, new macro and old, in the two cases nothing is
// written; `report` is "" (no file) or a path whose first record per
// (site, verdict) the warm-up call writes.
void view_write_cost(const char *report, std::vector<site_row> &rows,
                     const char *suffix) {
  torchalias::configure({torchalias::mode::log, report});
  auto input = torch::ones({4, 4});
  auto head = input.narrow(0, 0, 2); // a view of a tensor held elsewhere
  auto fresh = torch::ones({2, 4});  // no view, shares nothing
  const char *confirmed = torchalias::to_string(
      torchalias::check_inplace_on_view(head).verdict);
  const char *not_applicable = torchalias::to_string(
      torchalias::check_inplace_on_view(fresh).verdict);
  const std::string tail = std::string(", ") + suffix;
  rows.push_back({"`TORCHALIAS_AT_VIEW_WRITE(id, head)`" + tail, time_site([&] {
                    sink = TORCHALIAS_AT_VIEW_WRITE("be00000000000001", head)
                               .dim();
                  }),
                  confirmed});
  rows.push_back({"`TORCHALIAS_AT_VIEW_WRITE(id, fresh)`" + tail,
                  time_site([&] {
                    sink = TORCHALIAS_AT_VIEW_WRITE("be00000000000002", fresh)
                               .dim();
                  }),
                  not_applicable});
  rows.push_back({"`TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head)`" + tail,
                  time_site([&] {
                    TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head);
                  }),
                  confirmed});
  rows.push_back({"`TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(fresh)`" + tail,
                  time_site([&] {
                    TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(fresh);
                  }),
                  not_applicable});
}

// The other checks' sites, with no report file. Overlap and detached
// sites run per op, like a view write; from_blob, parameter and worker
// sites run per frame, per optimizer and per spawn: no target, measured.
void other_site_cost(double empty, double write) {
  torchalias::configure({torchalias::mode::log, ""});
  std::vector<site_row> rows;
  auto x = torch::arange(8, torch::kFloat);
  auto low = x.narrow(0, 0, 4), high = x.narrow(0, 4, 4);
  auto other = torch::ones({4});
  auto weight = torch::ones({4}, torch::requires_grad());
  rows.push_back({"`AT_OVERLAP_DST` + `AT_OVERLAP_OPERAND`, disjoint narrows",
                  time_site([&] {
                    sink = TORCHALIAS_AT_OVERLAP_DST("be00000000000010", low)
                               .dim() +
                           TORCHALIAS_AT_OVERLAP_OPERAND("be00000000000010",
                                                         high)
                               .dim();
                  }),
                  torchalias::to_string(
                      torchalias::check_overlap(low, high).verdict)});
  rows.push_back({"`AT_OVERLAP_OPERAND_OF(id, low, other)`, no shared memory",
                  time_site([&] {
                    sink = TORCHALIAS_AT_OVERLAP_OPERAND_OF("be00000000000011",
                                                            low, other)
                               .dim();
                  }),
                  torchalias::to_string(
                      torchalias::check_overlap(low, other).verdict)});
  rows.push_back({"`AT_DETACHED_SOURCE(id, weight)`, requires grad",
                  time_site([&] {
                    sink = TORCHALIAS_AT_DETACHED_SOURCE("be00000000000012",
                                                         weight)
                               .dim();
                  }),
                  torchalias::to_string(
                      torchalias::check_detached_source(weight).verdict)});
  std::vector<float> frame(64);
  auto earlier = torch::from_blob(frame.data(), {64});
  torchalias::site_location blob_site{__FILE__, __LINE__, "bench"};
  torchalias::validate_from_blob(earlier, blob_site);
  rows.push_back({"`AT_FROM_BLOB(id, from_blob(frame))`, earlier wrapper alive "
                  "(includes from_blob itself)",
                  torchalias::bench::median_seconds(
                      site_repeats, site_calls / 10,
                      [&] {
                        sink = TORCHALIAS_AT_FROM_BLOB(
                                   "be00000000000013",
                                   torch::from_blob(frame.data(), {64}))
                                   .dim();
                      }),
                  "confirmed"});
  rows.push_back({"`torch::from_blob(frame)` alone",
                  torchalias::bench::median_seconds(
                      site_repeats, site_calls / 10,
                      [&] {
                        sink = torch::from_blob(frame.data(), {64}).dim();
                      }),
                  "-"});
  torch::nn::Linear linear(16, 16);
  const std::vector<at::Tensor> params = linear->parameters();
  rows.push_back({"`AT_PARAMETERS(id, params)`, Linear(16, 16)'s 2 tensors",
                  torchalias::bench::median_seconds(
                      site_repeats, site_calls / 20,
                      [&] {
                        sink = TORCHALIAS_AT_PARAMETERS("be00000000000014",
                                                        params)
                                   .size();
                      }),
                  torchalias::to_string(
                      torchalias::check_parameter_list(params).verdict)});
  rows.push_back({"`AT_PARAMETERS(id, linear)`, the module",
                  torchalias::bench::median_seconds(
                      site_repeats, site_calls / 20,
                      [&] {
                        sink = TORCHALIAS_AT_PARAMETERS("be00000000000015",
                                                        linear)
                                   ->options.in_features();
                      }),
                  torchalias::to_string(
                      torchalias::check_parameters(*linear).verdict)});
  auto batch = torch::ones({64}), labels = torch::zeros({64});
  rows.push_back({"`AT_WORKER(id, guard, batch, labels)`, 2x64 floats, "
                  "constructed and verified",
                  torchalias::bench::median_seconds(
                      site_repeats, site_calls / 20,
                      [&] {
                        TORCHALIAS_AT_WORKER("be00000000000016", guard, batch,
                                             labels);
                        sink = guard.verify() == torchalias::verdict::clean;
                      }),
                  "clean"});
  print_site_rows("Other sites (mode log, no report file)", rows, empty,
                  write);
}

void site_cost() {
  auto input = torch::ones({4, 4});
  auto head = input.narrow(0, 0, 2);
  long counter = 0;
  const double empty = time_site([&] { sink = ++counter; });
  const double write = torchalias::bench::median_seconds(
      site_repeats, site_calls / 10, [&] { head.add_(1); });
  std::vector<site_row> rows = {
      {"empty loop (baseline)", empty, "-"},
      {"`head.dim()`, an inline accessor (baseline)",
       time_site([&] { sink = head.dim(); }), "-"},
      {"`head.is_view()`, one out-of-line libtorch call (baseline)",
       time_site([&] { sink = head.is_view(); }), "-"},
      {"`head.add_(1)`, the in-place write (baseline)", write, "-"}};
  view_write_cost("", rows, "no report file");
  view_write_cost("/dev/null", rows, "record already written");
  torchalias::configure({torchalias::mode::off, ""});
  rows.push_back({"`TORCHALIAS_AT_VIEW_WRITE(id, head)`, mode off",
                  time_site([&] {
                    sink = TORCHALIAS_AT_VIEW_WRITE("be00000000000003", head)
                               .dim();
                  }),
                  "-"});
  torchalias::configure(
      {torchalias::mode::log, "/dev/null", torchalias::record_policy::all});
  rows.push_back({"`TORCHALIAS_AT_VIEW_WRITE(id, head)`, every record "
                  "written (`TORCHALIAS_RECORDS=all`, /dev/null)",
                  torchalias::bench::median_seconds(
                      site_repeats, site_calls / 10,
                      [&] {
                        sink = TORCHALIAS_AT_VIEW_WRITE("be00000000000004",
                                                        head)
                                   .dim();
                      }),
                  "confirmed"});
  rows.push_back({"`check_inplace_on_view(head)` (verdict and facts)",
                  torchalias::bench::median_seconds(
                      site_repeats, site_calls / 10,
                      [&] {
                        sink = static_cast<std::uint64_t>(
                            torchalias::check_inplace_on_view(head).verdict);
                      }),
                  "confirmed"});
  print_site_rows("View-write sites (2x4 float view of a 4x4 tensor)", rows,
                  empty, write);
  other_site_cost(empty, write);
}

void throughput(std::size_t max_mib) {
  std::printf("### Throughput against memcpy (GiB/s, best of 5; ratio = "
              "GiB/s / memcpy GiB/s)\n\n");
  std::printf("| size | memcpy | memcpy to fresh malloc | isolate() | "
              "ratio | ratio to fresh | fingerprint() | ratio |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (std::size_t mib = 1; mib <= max_mib; mib *= 4) {
    const std::size_t bytes = mib << 20;
    auto source = torch::rand({static_cast<int64_t>(bytes / 4)});
    std::vector<char> target(bytes, 1); // pre-faulted: memcpy's best case
    const int repeats = 5;
    const long calls = mib >= 256 ? 1 : 1024 / static_cast<long>(mib) / 4 + 1;
    const double copy = best_seconds(repeats, calls, [&] {
      std::memcpy(target.data(), source.data_ptr(), bytes);
      sink = static_cast<std::uint64_t>(target[bytes / 2]);
    });
    // isolate() must allocate: compare with a memcpy that must too.
    const double fresh = best_seconds(repeats, calls, [&] {
      std::unique_ptr<char[]> buffer(new char[bytes]);
      std::memcpy(buffer.get(), source.data_ptr(), bytes);
      sink = static_cast<std::uint64_t>(buffer[bytes / 2]);
    });
    const double iso = best_seconds(repeats, calls, [&] {
      sink = static_cast<std::uint64_t>(torchalias::isolate(source).numel());
    });
    const double hash = best_seconds(repeats, calls, [&] {
      sink = torchalias::fingerprint(source);
    });
    const double memcpy_rate = gib_per_second(bytes, copy);
    const double fresh_rate = gib_per_second(bytes, fresh);
    const double isolate_rate = gib_per_second(bytes, iso);
    std::printf("| %zu MiB | %.1f | %.1f | %.1f | %.2f | %.2f | %.1f | %.2f |\n",
                mib, memcpy_rate, fresh_rate, isolate_rate,
                isolate_rate / memcpy_rate, isolate_rate / fresh_rate,
                gib_per_second(bytes, hash),
                gib_per_second(bytes, hash) / memcpy_rate);
    std::fflush(stdout);
  }
  std::printf("\nATen intra-op threads: %d\n", at::get_num_threads());
}

} // namespace

int main(int argc, char **argv) {
  bool sites_only = false;
  std::size_t max_mib = 1024;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--sites-only") == 0)
      sites_only = true;
    else
      max_mib = std::strtoul(argv[i], nullptr, 10);
  }
  site_cost();
  if (!sites_only)
    throughput(max_mib);
}
