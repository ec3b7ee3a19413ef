// CASE: a DQN agent initialises its target network from the online network
//       in the constructor's member initialiser list, `target_(online_)`,
//       which copies the ModuleHolder and shares the module; the Polyak soft
//       update then writes the online network's own weights
// SOURCE: https://github.com/andri27-ts/Reinforcement-Learning/issues/14 (the
//         target network reference points at the moving network, so the
//         target tracks it on every update)
// KIND: bug
// HARM: the soft update changes the online network's weights
#include <torch/torch.h>

#include <cstdio>

struct QNetImpl : torch::nn::Module {
  QNetImpl(int64_t obs, int64_t act) {
    fc1 = register_module("fc1", torch::nn::Linear(obs, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, act));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(QNet);

class DqnAgent {
 public:
  DqnAgent(int64_t obs, int64_t act)
      : online_(obs, act), target_(online_),  // BUG(libtorch-shared-parameter-update)
        opt_(online_->parameters(), 1e-3) {}

  void soft_update(double tau) {
    torch::NoGradGuard no_grad;
    auto src = online_->parameters();
    auto dst = target_->parameters();
    for (size_t i = 0; i < src.size(); ++i) {
      dst[i].mul_(1.0 - tau).add_(src[i], tau);  // BUG(libtorch-shared-parameter-update)
    }
  }
  QNet& online() { return online_; }

 private:
  QNet online_;
  QNet target_;
  torch::optim::Adam opt_;
};

int main() {
  torch::manual_seed(17);
  DqnAgent agent(4, 2);
  auto before = agent.online()->fc1->weight.detach().clone();
  agent.soft_update(0.005);
  const double moved = (agent.online()->fc1->weight.detach() - before).abs().max().item<double>();
  std::printf("online fc1 weight moved by %.6g during the target update\n", moved);
  if (moved > 0) std::printf("HARM: the target soft update rewrote the online network\n");
  return 0;
}
