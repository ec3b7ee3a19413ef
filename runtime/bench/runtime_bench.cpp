// CPU runtime benchmarks: validation cost, isolate() and fingerprint()
// throughput against memcpy. Usage: torchalias_runtime_bench [max_mib]
// (default 1024). Prints markdown tables.
#include "bench_timing.h"

#include <torchalias/torchalias.h>

#include <torch/torch.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {

using torchalias::bench::best_seconds;
using torchalias::bench::gib_per_second;

// A sink the optimiser cannot see through.
volatile std::uint64_t sink;

void validation_cost() {
  auto input = torch::ones({4, 4});
  auto head = input.narrow(0, 0, 2);
  const long calls = 200000;
  const double op = best_seconds(5, calls, [&] { head.add_(1); });
  const double check = best_seconds(5, calls, [&] {
    sink = static_cast<std::uint64_t>(
        torchalias::check_inplace_on_view(head).verdict);
  });
  torchalias::configure({torchalias::mode::log, ""});
  const double counted = best_seconds(5, calls, [&] {
    TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head);
  });
  torchalias::configure({torchalias::mode::log, "/dev/null"});
  const double written = best_seconds(5, calls, [&] {
    TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head);
  });
  torchalias::configure({torchalias::mode::off, ""});
  const double off = best_seconds(5, calls, [&] {
    TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head);
  });
  std::printf("### Validation cost (2x4 float view of a 4x4 tensor)\n\n");
  std::printf("| what | ns/call | ratio to head.add_(1) |\n|---|---|---|\n");
  auto row = [&](const char *what, double seconds) {
    std::printf("| %s | %.0f | %.2f |\n", what, seconds * 1e9, seconds / op);
  };
  row("`head.add_(1)` (the in-place op)", op);
  row("`check_inplace_on_view(head)`", check);
  row("macro, mode log, no report file", counted);
  row("macro, mode log, report to /dev/null", written);
  row("macro, mode off", off);
  std::printf("\n");
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
  const std::size_t max_mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10)
                                       : 1024;
  validation_cost();
  throughput(max_mib);
}
