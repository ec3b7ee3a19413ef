// CASE: a TD3 agent builds its second critic as
//       std::make_shared<CriticImpl>(*q1), believing the Impl's copy
//       constructor gives an independent network, and steps
//       q1->parameters() + q2->parameters() with one SGD optimizer
// SOURCE: the kind of code in libtorch TD3/SAC ports (twin critics); the
//         implicit copy of a Module copies its submodule holders and
//         parameter handles, not the tensors (Module::clone() does that)
// KIND: bug
// HARM: every critic weight is stepped twice per update, and q1 and q2 stay
//       identical
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

std::vector<torch::Tensor> concat(std::vector<torch::Tensor> a, const std::vector<torch::Tensor>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace td3

int main() {
  torch::manual_seed(0);
  const double lr = 0.05;
  td3::Critic q1(5, 2);
  td3::Critic q2(std::make_shared<td3::CriticImpl>(*q1));  // BUG(libtorch-shared-parameter-update)
  torch::optim::SGD critic_opt(td3::concat(q1->parameters(), q2->parameters()),  // BUG(libtorch-shared-parameter-update)
                               torch::optim::SGDOptions(lr));

  auto s = torch::randn({64, 5});
  auto a = torch::randn({64, 2});
  auto target = torch::randn({64, 1});

  auto w0 = q1->fc1->weight.detach().clone();
  critic_opt.zero_grad();
  auto loss = torch::mse_loss(q1(s, a), target) + torch::mse_loss(q2(s, a), target);
  loss.backward();
  auto g = q1->fc1->weight.grad().clone();
  critic_opt.step();  // BUG(libtorch-shared-parameter-update)

  auto one_step = w0 - lr * g;
  double err = (q1->fc1->weight - one_step).abs().max().item<double>();
  if (err > 1e-6)
    std::cout << "HARM: fc1.weight moved " << (q1->fc1->weight - w0).abs().max().item<double>()
              << ", one SGD step on its gradient moves it " << (lr * g).abs().max().item<double>()
              << "\n";
  else
    std::cout << "one step per weight\n";
  return 0;
}
