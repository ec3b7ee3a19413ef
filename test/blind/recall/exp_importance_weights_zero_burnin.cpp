// CASE: an off-policy actor-critic computes importance ratios as exp of the
//       log-probability difference and zeroes the burn-in steps of the ratio
//       tensor through a slice, in place; ExpBackward reuses its output
// SOURCE: https://github.com/pytorch/pytorch/pull/188270 (an in-place *= on the
//         output of .exp() breaks ExpBackward0, which needs that tensor at
//         version 0)
// KIND: bug
// HARM: backward throws "modified by an inplace operation"
#include <torch/torch.h>

#include <cstdio>

using torch::indexing::None;
using torch::indexing::Slice;

int main() {
  torch::manual_seed(27);
  const int64_t T = 10, burn_in = 3;
  torch::nn::Linear policy(4, 3);
  auto obs = torch::randn({T, 4});
  auto actions = torch::randint(3, {T});
  auto behaviour_logp = torch::log_softmax(torch::randn({T, 3}), -1).gather(1, actions.unsqueeze(1)).squeeze(1);
  auto advantages = torch::randn({T});

  auto logp = torch::log_softmax(policy(obs), -1).gather(1, actions.unsqueeze(1)).squeeze(1);
  auto ratio = (logp - behaviour_logp).exp();
  ratio.index({Slice(None, burn_in)}).zero_();  // BUG(libtorch-detached-write)
  auto loss = -(ratio * advantages).mean();
  try {
    loss.backward();  // BUG(libtorch-detached-write)
    std::printf("backward succeeded\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
