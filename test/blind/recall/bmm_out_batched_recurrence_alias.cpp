// CASE: a vectorised simulator advances the hidden state of every
//       environment with its own linear transition, writing
//       at::bmm_out(h, h, A) back into the batch of states it reads
// SOURCE: https://github.com/cupy/cupy/issues/6214 ("Undefined behavior on
//         overlapping matmul out": batched GEMM output must not overlap its
//         inputs)
// KIND: bug
// HARM: the advanced states differ from bmm(h, A) (measured: silently)
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(30);
  const int64_t envs = 4, d = 6;
  auto A = torch::randn({envs, d, d}) * 0.3 + torch::eye(d);
  auto h = torch::randn({envs, 3, d});  // three tracked particles per environment

  for (int step = 0; step < 2; ++step) {
    auto expected = torch::bmm(h, A);
    try {
      at::bmm_out(h, h, A);  // BUG(libtorch-overlapping-inplace)
    } catch (const c10::Error& e) {
      std::printf("HARM: bmm_out threw: %s\n", e.what_without_backtrace());
      return 0;
    }
    const double err = (h - expected).abs().max().item<double>();
    std::printf("step %d: max |h - bmm(h, A)| = %.6g\n", step, err);
    if (err > 1e-5) {
      std::printf("HARM: aliased bmm_out produced wrong states at step %d (error %.6g)\n", step, err);
      return 0;
    }
  }
  return 0;
}
