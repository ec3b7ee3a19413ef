// CUDA fingerprint throughput against a device-to-device copy of the same
// bytes. Usage: torchalias_cuda_bench [max_mib] (default 4096). Exits 0
// with a message when no GPU is present.
#include "bench_timing.h"

#include <torchalias/cuda/fingerprint.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

namespace {

#define BENCH_CUDA(expr)                                                       \
  do {                                                                         \
    cudaError_t status_ = (expr);                                              \
    if (status_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s: %s\n", #expr, cudaGetErrorString(status_));   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Milliseconds per call, best of `repeats`, timed with events on `stream`.
template <class Body>
float best_ms(cudaStream_t stream, int repeats, int calls, Body &&body) {
  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  float best = 1e30f;
  for (int r = 0; r < repeats; ++r) {
    BENCH_CUDA(cudaEventRecord(start, stream));
    for (int i = 0; i < calls; ++i)
      body();
    BENCH_CUDA(cudaEventRecord(stop, stream));
    BENCH_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
    best = ms / calls < best ? ms / calls : best;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

} // namespace

int main(int argc, char **argv) {
  if (!torchalias::cuda::device_available()) {
    std::printf("no CUDA device: CUDA fingerprint benchmark skipped\n");
    return 0;
  }
  const std::size_t max_mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10)
                                       : 4096;
  cudaDeviceProp props{};
  BENCH_CUDA(cudaGetDeviceProperties(&props, 0));
  cudaStream_t stream;
  BENCH_CUDA(cudaStreamCreate(&stream));
  std::printf("### CUDA fingerprint on %s\n\n", props.name);
  // A copy of N bytes reads N and writes N; a fingerprint only reads N, so
  // at full bandwidth it takes about half the copy's time (speed-up ~2).
  std::printf("| size | D2D copy ms | fingerprint ms | copy ms / fingerprint ms "
              "| fingerprint read GB/s | copy read+write GB/s |\n"
              "|---|---|---|---|---|---|\n");
  for (std::size_t mib = 1; mib <= max_mib; mib *= 4) {
    const std::size_t bytes = mib << 20;
    void *a = nullptr, *b = nullptr;
    BENCH_CUDA(cudaMalloc(&a, bytes));
    BENCH_CUDA(cudaMalloc(&b, bytes));
    BENCH_CUDA(cudaMemset(a, 1, bytes));
    const int calls = mib >= 256 ? 5 : 50;
    const float copy_ms = best_ms(stream, 5, calls, [&] {
      BENCH_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice,
                                 stream));
    });
    const float hash_ms = best_ms(stream, 5, calls, [&] {
      // The handle is dropped unread: the kernel's cost, not the read-back.
      torchalias::cuda::fingerprint_async(a, bytes, stream);
    });
    const double copy_rate = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;
    const double hash_rate = bytes / (hash_ms * 1e-3) / 1e9;
    std::printf("| %zu MiB | %.3f | %.3f | %.2f | %.0f | %.0f |\n", mib,
                copy_ms, hash_ms, copy_ms / hash_ms, hash_rate, copy_rate);
    std::fflush(stdout);
    cudaFree(a);
    cudaFree(b);
  }
  cudaStreamDestroy(stream);
}
