// CASE: a TD3 agent builds its second critic as a fresh CriticImpl and starts
//       it from the first critic's weights by copying values under
//       NoGradGuard (p2.copy_(p1) over the two named_parameters() lists), then
//       steps q1->parameters() + q2->parameters() with one SGD optimizer
// SOURCE: the kind of code in libtorch TD3/SAC ports (twin critics initialised
//         identically on purpose)
// KIND: near-miss
// WHY-OK: the second critic owns its own tensors; copy_ transfers values, so
//         the concatenated list holds every tensor once
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <vector>

namespace td3 {

struct CriticImpl : torch::nn::Module {
  CriticImpl(int64_t obs_dim, int64_t act_dim) {
    fc1 = register_module("fc1", torch::nn::Linear(obs_dim + act_dim, 32));
    q = register_module("q", torch::nn::Linear(32, 1));
  }
  torch::Tensor forward(const torch::Tensor& s, const torch::Tensor& a) {
    return q(torch::relu(fc1(torch::cat({s, a}, 1))));
  }
  torch::nn::Linear fc1{nullptr}, q{nullptr};
};
TORCH_MODULE(Critic);

void copy_weights(const torch::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard no_grad;
  auto src = from.named_parameters();
  for (auto& kv : to.named_parameters()) kv.value().copy_(src[kv.key()]);
}

}  // namespace td3

int main() {
  torch::manual_seed(0);
  const double lr = 0.05;
  td3::Critic q1(5, 2);
  td3::Critic q2(5, 2);
  td3::copy_weights(*q1, *q2);
  std::vector<torch::Tensor> params = q1->parameters();
  for (auto& p : q2->parameters()) params.push_back(p);
  torch::optim::SGD critic_opt(params, torch::optim::SGDOptions(lr));

  auto s = torch::randn({64, 5});
  auto a = torch::randn({64, 2});
  auto target = torch::randn({64, 1});

  auto w0 = q1->fc1->weight.detach().clone();
  critic_opt.zero_grad();
  auto loss = torch::mse_loss(q1(s, a), target) + torch::mse_loss(q2(s, a), target);
  loss.backward();
  auto g = q1->fc1->weight.grad().clone();
  critic_opt.step();

  double err = (q1->fc1->weight - (w0 - lr * g)).abs().max().item<double>();
  if (err > 1e-6)
    std::cout << "HARM: fc1.weight moved past one SGD step by " << err << "\n";
  else
    std::cout << "each critic weight stepped once\n";
  return 0;
}
