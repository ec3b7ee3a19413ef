// CASE: an actor-critic update runs the critic on a sampled batch, then a
//       preprocessing helper clips the batch's observations in place through
//       .data() before the actor's forward, and the joint loss is backpropagated
// SOURCE: the kind of code in libtorch PPO/A2C ports (Python's
//         obs.data.clamp_(-5, 5) carried over as obs.data().clamp_(...))
// KIND: bug
// HARM: the critic's weight gradient is computed from the clipped
//       observations (silently wrong: .data() does not bump the version)
#include <torch/torch.h>

#include <deque>
#include <iostream>
#include <random>

struct Transition { torch::Tensor obs; double ret; };
struct Batch { torch::Tensor obs, ret; };

class Replay {
 public:
  void push(Transition t) { buf_.push_back(std::move(t)); }
  Batch sample(size_t n, std::mt19937& rng) {
    std::vector<torch::Tensor> obs;
    std::vector<double> ret;
    std::uniform_int_distribution<size_t> pick(0, buf_.size() - 1);
    for (size_t i = 0; i < n; ++i) {
      const auto& t = buf_[pick(rng)];
      obs.push_back(t.obs);
      ret.push_back(t.ret);
    }
    return {torch::stack(obs), torch::tensor(ret, torch::kFloat)};
  }
 private:
  std::deque<Transition> buf_;
};

namespace preprocess {
void clip_obs_(Batch& b, double limit) {
  b.obs.data().clamp_(-limit, limit);  // BUG(libtorch-detached-write)
}
}  // namespace preprocess

int main() {
  torch::manual_seed(0);
  std::mt19937 rng(0);
  Replay replay;
  for (int i = 0; i < 64; ++i) replay.push({torch::randn({6}) * 3, double(i % 5)});

  torch::nn::Linear critic(6, 1), actor(6, 3);
  auto batch = replay.sample(16, rng);
  const auto obs_seen_by_critic = batch.obs.clone();

  auto value_loss = (critic(batch.obs).squeeze(1) - batch.ret).pow(2).mean();
  preprocess::clip_obs_(batch, 1.0);
  auto logp = torch::log_softmax(actor(batch.obs), 1).select(1, 0);
  auto policy_loss = -(logp * batch.ret).mean();
  (value_loss + policy_loss).backward();  // BUG(libtorch-detached-write)

  auto ref_loss = (critic(obs_seen_by_critic).squeeze(1) - batch.ret).pow(2).mean();
  auto ref_grad = torch::autograd::grad({ref_loss}, {critic->weight})[0];
  const double err = (critic->weight.grad() - ref_grad).abs().max().item<double>();
  std::cout << "critic weight-gradient error: " << err << "\n";
  if (err > 1e-5)
    std::cout << "HARM: critic gradient used the clipped observations (error " << err << ")\n";
  return 0;
}
