// CASE: a continuous-control policy squashes its actions with tanh and then
//       forces the gripper dimension to be non-negative with an in-place
//       clamp_ on a select() view of the tanh output
// SOURCE: https://github.com/pytorch/pytorch/issues/114505 (an in-place write
//         to any part of a tensor autograd saved trips the single version
//         counter of its storage)
// KIND: bug
// HARM: backward throws because TanhBackward's saved output was modified
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(28);
  torch::nn::Sequential policy(torch::nn::Linear(6, 32), torch::nn::ReLU(), torch::nn::Linear(32, 3));
  torch::nn::Linear critic(6 + 3, 1);
  auto obs = torch::randn({16, 6});

  auto actions = torch::tanh(policy->forward(obs));
  auto gripper = actions.select(1, 2);  // BUG(libtorch-detached-write)
  gripper.clamp_(0.0, 1.0);             // BUG(libtorch-detached-write)
  auto q = critic(torch::cat({obs, actions}, 1));
  try {
    (-q.mean()).backward();  // BUG(libtorch-detached-write)
    std::printf("backward succeeded\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
