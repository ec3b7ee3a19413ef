// CASE: an A2C-style trainer hands a struct of rollout tensors (a copy of
//       the storage's handles) to a learner running in std::async, then
//       collects the next rollout into the same preallocated storage; the
//       learner waits for the policy lock the actor holds while acting
// SOURCE: the kind of code in libtorch RL ports (pytorch-cpp-rl style
//       RolloutStorage with insert(step, ...) writing into preallocated
//       tensors, overlapped with an asynchronous learner)
// KIND: bug
// HARM: the learner computes returns from the next rollout's rewards
#include <torch/torch.h>

#include <future>
#include <iostream>
#include <mutex>

namespace {

constexpr int64_t kSteps = 5;
constexpr int64_t kObs = 3;

struct Rollout {
  torch::Tensor obs;
  torch::Tensor rewards;
  torch::Tensor masks;
};

class RolloutStorage {
 public:
  RolloutStorage()
      : data_{torch::zeros({kSteps, kObs}), torch::zeros({kSteps}), torch::ones({kSteps})} {}

  void insert(int64_t step, const torch::Tensor& obs, float reward, bool done) {
    data_.obs[step].copy_(obs);                     // BUG(libtorch-worker-missing-clone)
    data_.rewards[step].fill_(reward);              // BUG(libtorch-worker-missing-clone)
    data_.masks[step].fill_(done ? 0.f : 1.f);      // BUG(libtorch-worker-missing-clone)
  }

  const Rollout& data() const { return data_; }

 private:
  Rollout data_;
};

// Toy environment: reward depends on the episode so rollouts differ.
void collect(RolloutStorage& storage, int episode) {
  for (int64_t t = 0; t < kSteps; ++t) {
    auto obs = torch::full({kObs}, static_cast<float>(episode * 10 + t));
    float reward = episode == 0 ? 1.f : -2.f + 0.5f * t;
    storage.insert(t, obs, reward, t == kSteps - 1);
  }
}

torch::Tensor discounted_returns(const Rollout& r, float gamma) {
  auto returns = torch::zeros({kSteps});
  float running = 0.f;
  for (int64_t t = kSteps - 1; t >= 0; --t) {
    running = r.rewards[t].item<float>() + gamma * running * r.masks[t].item<float>();
    returns[t] = running;
  }
  return returns;
}

}  // namespace

int main() {
  RolloutStorage storage;
  std::mutex policy_mu;  // the actor holds it while it acts with the policy

  collect(storage, 0);
  torch::Tensor expected = discounted_returns(storage.data(), 0.9f);

  std::future<torch::Tensor> learner;
  {
    std::unique_lock<std::mutex> acting(policy_mu);
    Rollout batch = storage.data();  // BUG(libtorch-worker-missing-clone)
    learner = std::async(std::launch::async, [batch, &policy_mu] {  // BUG(libtorch-worker-missing-clone)
      std::lock_guard<std::mutex> update(policy_mu);
      return discounted_returns(batch, 0.9f);
    });
    collect(storage, 1);  // BUG(libtorch-worker-missing-clone)
  }
  torch::Tensor got = learner.get();

  std::cout << "expected returns " << expected << "\nlearner returns " << got << "\n";
  if (!torch::allclose(got, expected)) {
    std::cout << "HARM: the learner's returns come from the next rollout (max diff "
              << (got - expected).abs().max().item<float>() << ")\n";
  }
  return 0;
}
