// Data loading with a worker thread and a borrowed buffer.
#include "example.h"

#include <thread>
#include <vector>

static void normalize_inplace(torch::Tensor x) { x.div_(255); }

torch::Tensor prepare_batch(int64_t n) {
  auto batch = torch::rand({n, 8}) * 255;
  // Bug: the worker divides 'batch' in place while this thread still reads
  // it; both hold the same storage.
  std::thread worker(normalize_inplace, batch);
  auto peak = batch.max();
  worker.join();
  return batch / peak;
}

torch::Tensor decode_frame() {
  std::vector<float> pixels(3 * 8, 0.5f);
  // Bug: the tensor borrows 'pixels', which is freed when this returns.
  return torch::from_blob(pixels.data(), {3, 8});
}
