// CASE: an RL actor computes its next action on a std::async task that
//       captures `this` and reads the member observation; before the next
//       observation is copied into that member, observe() collects the
//       pending action
// SOURCE: https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802/3
// KIND: near-miss
// WHY-OK: observe() calls get() on the pending future before it overwrites
//         obs_, so the task has finished reading it
#include <torch/torch.h>

#include <chrono>
#include <future>
#include <iostream>
#include <thread>

class Actor {
 public:
  explicit Actor(int64_t obs_dim) : obs_(torch::zeros({obs_dim})) {}

  void reset(const torch::Tensor& first) { obs_.copy_(first); }

  void request_action() {
    pending_ = std::async(std::launch::async, [this] {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));  // a slow policy
      return greedy(obs_);
    });
  }

  void observe(const torch::Tensor& next) {
    if (pending_.valid()) {
      last_action_ = pending_.get();
    }
    obs_.copy_(next);
  }

  int64_t last_action() const { return last_action_; }

 private:
  static int64_t greedy(const torch::Tensor& obs) {
    torch::NoGradGuard no_grad;
    return obs.argmax().item<int64_t>();
  }

  torch::Tensor obs_;
  std::future<int64_t> pending_;
  int64_t last_action_ = -1;
};

int main() {
  Actor actor(4);
  auto obs0 = torch::tensor({0.1f, 0.9f, 0.2f, 0.3f});  // best action: 1
  auto obs1 = torch::tensor({0.4f, 0.1f, 0.2f, 0.8f});  // best action: 3
  actor.reset(obs0);
  actor.request_action();
  actor.observe(obs1);
  int64_t a = actor.last_action();
  std::cout << "action for obs0: " << a << " (expected 1)\n";
  if (a != 1) {
    std::cout << "HARM: the action for obs0 was computed from obs1 (" << a << ")\n";
  }
  return 0;
}
