// CASE: an RL actor computes its next action on a std::async task whose
//       lambda captures `this` and reads the member observation tensor, while
//       the environment loop already copies the next observation into that
//       member in place
// SOURCE: https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802/3
// KIND: bug
// HARM: the action is chosen from the next observation, not the one it was
//       requested for
#include <torch/torch.h>

#include <chrono>
#include <future>
#include <iostream>
#include <thread>

class Actor {
 public:
  explicit Actor(int64_t obs_dim) : obs_(torch::zeros({obs_dim})) {}

  void reset(const torch::Tensor& first) { obs_.copy_(first); }

  // Starts the policy evaluation in the background so that the caller can
  // keep stepping the simulator.
  void request_action() {
    pending_ = std::async(std::launch::async, [this] {  // BUG(libtorch-worker-missing-clone)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a slow policy
      return greedy(obs_);
    });
  }

  // The simulator hands over the next observation as soon as it has one.
  void observe(const torch::Tensor& next) {
    obs_.copy_(next);  // BUG(libtorch-worker-missing-clone)
  }

  int64_t action() { return pending_.get(); }

 private:
  static int64_t greedy(const torch::Tensor& obs) {
    torch::NoGradGuard no_grad;
    return obs.argmax().item<int64_t>();
  }

  torch::Tensor obs_;
  std::future<int64_t> pending_;
};

int main() {
  Actor actor(4);
  auto obs0 = torch::tensor({0.1f, 0.9f, 0.2f, 0.3f});  // best action: 1
  auto obs1 = torch::tensor({0.4f, 0.1f, 0.2f, 0.8f});  // best action: 3
  actor.reset(obs0);
  actor.request_action();
  actor.observe(obs1);
  int64_t a = actor.action();
  std::cout << "action for obs0: " << a << " (expected 1)\n";
  if (a != 1) {
    std::cout << "HARM: the action for obs0 was computed from obs1 (" << a << ")\n";
  }
  return 0;
}
