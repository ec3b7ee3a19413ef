// CASE: the Atari frame stack of the evaluation environment (one env) keeps
//       the last 4 RGB frames along the channel axis and drops the oldest
//       frame with an overlapping index_put_ shift of 3 channels before
//       writing the new one
// SOURCE: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/226
//         (`stacked_obs[:, :-shape_dim0] = stacked_obs[:, shape_dim0:]` needs
//         .clone() on the right-hand side)
// KIND: bug
// HARM: the shift throws "unsupported operation: some elements of the input
//       tensor and the written-to tensor refer to a single memory location"
#include <torch/torch.h>

#include <cstdio>

using torch::indexing::None;
using torch::indexing::Slice;

class VecFrameStack {
 public:
  VecFrameStack(int64_t envs, int64_t channels, int64_t stack, int64_t h, int64_t w)
      : c_(channels), stacked_(torch::zeros({envs, channels * stack, h, w})) {}

  torch::Tensor step(const torch::Tensor& obs) {
    stacked_.index_put_({Slice(), Slice(None, -c_)}, stacked_.index({Slice(), Slice(c_, None)}));  // BUG(libtorch-overlapping-inplace)
    stacked_.index_put_({Slice(), Slice(-c_, None)}, obs);
    return stacked_;
  }

 private:
  int64_t c_;
  torch::Tensor stacked_;
};

int main() {
  const int64_t envs = 1, c = 3, stack = 4, h = 5, w = 5;
  VecFrameStack fs(envs, c, stack, h, w);
  try {
    for (int t = 0; t < 5; ++t) fs.step(torch::full({envs, c, h, w}, static_cast<float>(t)));
    std::printf("frame stack advanced\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
