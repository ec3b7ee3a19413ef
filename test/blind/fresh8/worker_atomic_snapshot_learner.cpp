// CASE: an IMPALA-style learner publishes its policy weights to actor threads
//       through std::atomic_store of a shared_ptr<const Tensor>, then applies
//       the next gradient to the very tensor it published, so the "frozen"
//       behaviour snapshot an actor holds changes under it
// SOURCE: the kind of code in C++ actor-learner RL on libtorch (IMPALA /
//       Ape-X ports that hand policy snapshots to actors with atomic
//       shared_ptr swaps); V-trace needs the behaviour policy's logits
// KIND: bug
// HARM: the behaviour logits an actor recomputes from its own snapshot differ
//       from the ones it acted with
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
    weights_.add_(grad, -lr);  // BUG(libtorch-worker-missing-clone)
    ++version_;
    publish();
  }

  int version() const { return version_; }

 private:
  void publish() {
    std::atomic_store(&published_,
                      std::make_shared<const torch::Tensor>(weights_));  // BUG(libtorch-worker-missing-clone)
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
    stepped_.wait();  // the learner consumes the unroll while we prepare the next one
    const auto recomputed = obs.mm(*policy);  // pi_behaviour from the same snapshot
    const double drift = (recomputed - unroll.behaviour_logits).abs().max().item<double>();
    if (drift > 1e-6) {
      std::printf("HARM: behaviour logits recomputed from the actor's snapshot moved by %.4f "
                  "after learner version %d\n",
                  drift, server_.version());
    } else {
      std::printf("behaviour logits stable across the learner step\n");
    }
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
