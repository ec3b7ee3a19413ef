// CASE: the DQN agent makes its target network with Cloneable::clone(),
//       which deep-copies the parameters, and soft-updates it in place
// SOURCE: https://github.com/pytorch/pytorch/pull/20995 (Cloneable::clone()
//         clones every parameter and buffer)
// KIND: near-miss
// WHY-OK: the target owns separate tensors, so writing them leaves the online
//         network unchanged
#include <torch/torch.h>

#include <cstdio>
#include <memory>

struct QNetImpl : torch::nn::Cloneable<QNetImpl> {
  QNetImpl(int64_t obs, int64_t act) : obs_(obs), act_(act) { reset(); }
  void reset() override {
    fc1 = register_module("fc1", torch::nn::Linear(obs_, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, act_));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
  int64_t obs_, act_;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(QNet);

class DqnAgent {
 public:
  DqnAgent(int64_t obs, int64_t act)
      : online_(obs, act), target_(std::dynamic_pointer_cast<QNetImpl>(online_->clone())) {}

  void soft_update(double tau) {
    torch::NoGradGuard no_grad;
    auto src = online_->parameters();
    auto dst = target_->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].mul_(1.0 - tau).add_(src[i], tau);
  }
  QNet& online() { return online_; }

 private:
  QNet online_;
  QNet target_;
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
