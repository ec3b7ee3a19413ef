// CASE: an IMPALA-style learner publishes its policy weights to actor threads
//       through std::atomic_store of a shared_ptr<const Tensor> and keeps
//       learning while actors hold the snapshot
// SOURCE: the kind of code in C++ actor-learner RL on libtorch (policy
//       snapshots handed to actors with atomic shared_ptr swaps)
// KIND: near-miss
// WHY-OK: the learner's update is out of place (weights_ = weights_ - lr*g),
//       so each publish hands out a new tensor and the storage an actor's
//       snapshot refers to is never written again
#include <torch/torch.h>

#include <cstdio>
#include <future>
#include <memory>
#include <thread>

namespace rl {

class PolicyServer {
 public:
  explicit PolicyServer(torch::Tensor weights) : weights_(std::move(weights)) { publish(); }

  std::shared_ptr<const torch::Tensor> snapshot() const {
    return std::atomic_load(&published_);
  }

  void learn(const torch::Tensor& grad, double lr) {
    torch::NoGradGuard no_grad;
    weights_ = weights_ - lr * grad;
    ++version_;
    publish();
  }

  int version() const { return version_; }

 private:
  void publish() {
    std::atomic_store(&published_, std::make_shared<const torch::Tensor>(weights_));
  }

  torch::Tensor weights_;
  std::shared_ptr<const torch::Tensor> published_;
  int version_ = 0;
};

struct Unroll {
  torch::Tensor observations;
  torch::Tensor behaviour_logits;
};

class Actor {
 public:
  Actor(const PolicyServer& server, std::promise<Unroll> out, std::future<void> stepped)
      : server_(server), out_(std::move(out)), stepped_(std::move(stepped)) {}

  void operator()() {
    const auto policy = server_.snapshot();
    const auto obs = torch::randn({5, 6});
    Unroll unroll{obs, obs.mm(*policy)};
    out_.set_value(unroll);
    stepped_.wait();
    const auto recomputed = obs.mm(*policy);
    const double drift = (recomputed - unroll.behaviour_logits).abs().max().item<double>();
    const double fresh = (obs.mm(*server_.snapshot()) - unroll.behaviour_logits).abs().max().item<double>();
    std::printf("learner version %d: snapshot drift %.4f, newest policy differs by %.4f\n",
                server_.version(), drift, fresh);
  }

 private:
  const PolicyServer& server_;
  std::promise<Unroll> out_;
  std::future<void> stepped_;
};

}  // namespace rl

int main() {
  torch::manual_seed(0);
  rl::PolicyServer server(torch::randn({6, 3}));

  std::promise<rl::Unroll> unroll_promise;
  auto unroll_future = unroll_promise.get_future();
  std::promise<void> stepped;
  std::thread actor(rl::Actor(server, std::move(unroll_promise), stepped.get_future()));

  const auto unroll = unroll_future.get();
  const auto probs = torch::softmax(unroll.behaviour_logits, -1);
  const auto grad = unroll.observations.t().mm(probs - 1.0 / 3.0) / 5.0;
  server.learn(grad, 0.5);
  stepped.set_value();
  actor.join();
  return 0;
}
