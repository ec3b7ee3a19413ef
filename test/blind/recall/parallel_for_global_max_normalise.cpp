// CASE: per-sample score normalisation with at::parallel_for: every chunk
//       divides its rows by the maximum of the whole score tensor, which the
//       chunks are rewriting in place at the same time
// SOURCE: https://github.com/pytorch/pytorch/issues/37038 (tensors may be read
//         concurrently but writes need the caller's own synchronisation)
// KIND: bug
// HARM: rows after the one holding the maximum are divided by an already
//       normalised maximum (1.0) and keep their raw scale
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdio>

static void normalise_scores(torch::Tensor& scores) {
  at::parallel_for(0, scores.size(0), /*grain_size=*/8, [&](int64_t begin, int64_t end) {  // BUG(libtorch-worker-missing-clone)
    for (int64_t i = begin; i < end; ++i) {
      auto global_max = scores.max();       // reads rows owned by other chunks
      scores[i].div_(global_max);           // BUG(libtorch-worker-missing-clone)
    }
  });
}

int main() {
  auto scores = torch::arange(1.0, 65.0).reshape({16, 4}).flip(0);  // max sits in row 0
  auto expected = scores / scores.max();
  normalise_scores(scores);
  const double err = (scores - expected).abs().max().item<double>();
  std::printf("max |normalised - expected| = %.4f, max after = %.4f\n", err,
              scores.max().item<double>());
  if (err > 1e-6) {
    std::printf("HARM: scores normalised against a moving maximum (error %.4f)\n", err);
  }
  return 0;
}
