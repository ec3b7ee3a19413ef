// CASE: a streaming keyword spotter (one microphone stream) keeps a context
//       window of the last 6 feature frames (2 feature rows per frame) and
//       advances it with the indexed-assignment spelling
//       `ctx.index({...}) = ctx.index({...})`
// SOURCE: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/226
//         (the overlapping shift of a stacked buffer) and
//         https://github.com/openai/baselines/issues/1136 (shift by the
//         number of channels of one observation, not by 1)
// KIND: bug
// HARM: the assignment throws "unsupported operation: some elements of the
//       input tensor and the written-to tensor refer to a single memory
//       location"
#include <torch/torch.h>

#include <cstdio>

using torch::indexing::None;
using torch::indexing::Slice;

struct ContextWindow {
  int64_t rows_per_frame;
  torch::Tensor ctx;  // [batch, rows_per_frame * frames, features]

  void advance(const torch::Tensor& frame) {
    const int64_t k = rows_per_frame;
    ctx.index({Slice(), Slice(None, -k)}) = ctx.index({Slice(), Slice(k, None)});  // BUG(libtorch-overlapping-inplace)
    ctx.index({Slice(), Slice(-k, None)}) = frame;
  }
};

int main() {
  ContextWindow win{2, torch::zeros({1, 2 * 6, 10})};
  try {
    for (int t = 0; t < 8; ++t) win.advance(torch::full({1, 2, 10}, static_cast<float>(t)));
    std::printf("context holds frames up to %.0f\n", win.ctx.index({0, -1, 0}).item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
