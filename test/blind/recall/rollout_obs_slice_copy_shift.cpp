// CASE: a feed-forward policy running one robot conditions on a window of
//       its last 5 observations, and slides that window with
//       slice(...).copy_(slice(...)) by the size of one observation
//       (4 features) before appending the newest
// SOURCE: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/226
//         (overlapping in-place shift of the stacked observations)
// KIND: bug
// HARM: copy_ throws "unsupported operation: some elements of the input
//       tensor and the written-to tensor refer to a single memory location"
#include <torch/torch.h>

#include <cstdio>

class ObservationWindow {
 public:
  ObservationWindow(int64_t obs_dim, int64_t history)
      : obs_dim_(obs_dim), window_(torch::zeros({1, obs_dim * history})) {}

  const torch::Tensor& push(const torch::Tensor& obs) {
    const int64_t n = window_.size(1);
    window_.slice(1, 0, n - obs_dim_).copy_(window_.slice(1, obs_dim_, n));  // BUG(libtorch-overlapping-inplace)
    window_.slice(1, n - obs_dim_, n).copy_(obs);
    return window_;
  }

 private:
  int64_t obs_dim_;
  torch::Tensor window_;
};

int main() {
  torch::manual_seed(37);
  const int64_t obs_dim = 4, history = 5;
  torch::nn::Sequential policy(torch::nn::Linear(obs_dim * history, 16), torch::nn::Tanh(),
                               torch::nn::Linear(16, 2));
  ObservationWindow window(obs_dim, history);
  torch::NoGradGuard no_grad;
  try {
    for (int t = 0; t < 6; ++t) {
      auto obs = torch::full({1, obs_dim}, static_cast<float>(t));
      auto action = policy->forward(window.push(obs));
      std::printf("t=%d action %.3f %.3f\n", t, action[0][0].item<float>(), action[0][1].item<float>());
    }
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
