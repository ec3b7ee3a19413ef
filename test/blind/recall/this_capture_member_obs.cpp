// CASE: an RL agent starts an evaluation thread with a lambda capturing
//       `this`; the thread reads the agent's observation member tensor while
//       the environment step writes the next observation into it in place
// SOURCE: https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
//         (a member tensor mutated with an in-place op while another thread
//         reads it)
// KIND: bug
// HARM: the value estimate logged for observation t is computed on t+1
#include <torch/torch.h>

#include <cstdio>
#include <future>
#include <thread>

class Agent {
 public:
  Agent() : critic_(torch::nn::Linear(4, 1)), obs_(torch::zeros({1, 4})) {}

  void reset(const torch::Tensor& first_obs) { obs_.copy_(first_obs); }

  // Logs V(obs) in the background so acting is not delayed.
  void start_value_logging() {
    logger_ = std::thread([this] {  // BUG(libtorch-worker-missing-clone)
      env_stepped_.get_future().wait();  // runs at low priority, after the env step
      torch::NoGradGuard g;
      logged_value_.set_value(critic_(obs_).item<float>());
    });
  }

  void env_step(const torch::Tensor& next_obs) {
    obs_.mul_(0.0).add_(next_obs);  // BUG(libtorch-worker-missing-clone)
    env_stepped_.set_value();
  }

  float logged_value() {
    float v = logged_value_.get_future().get();
    logger_.join();
    return v;
  }

  float value_of(const torch::Tensor& o) {
    torch::NoGradGuard g;
    return critic_(o).item<float>();
  }

 private:
  torch::nn::Linear critic_;
  torch::Tensor obs_;
  std::thread logger_;
  std::promise<void> env_stepped_;
  std::promise<float> logged_value_;
};

int main() {
  torch::manual_seed(4);
  Agent agent;
  auto o0 = torch::randn({1, 4});
  auto o1 = torch::randn({1, 4}) + 2.0;
  agent.reset(o0);
  const float expected = agent.value_of(o0);

  agent.start_value_logging();
  agent.env_step(o1);
  const float got = agent.logged_value();
  std::printf("logged V(o0) = %.5f, expected %.5f\n", got, expected);
  if (got != expected) {
    std::printf("HARM: value logged for o0 was computed on o1 (%.5f != %.5f)\n", got, expected);
  }
  return 0;
}
