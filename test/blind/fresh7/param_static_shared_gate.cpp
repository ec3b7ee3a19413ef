// CASE: every expert of a mixture-of-experts registers the router returned
//       by a function-local static, so the MoE's recursive parameters() lists
//       the router once per expert and torch::optim::SGD steps it three times
// SOURCE: the kind of code in libtorch MoE / multi-head projects that share a
//         layer between instances through a static accessor
// KIND: bug
// HARM: the router weight moves by three times the SGD step
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <string>

struct ExpertImpl : torch::nn::Module {
  static torch::nn::Linear& shared_router() {
    static torch::nn::Linear router(8, 1);
    return router;
  }
  ExpertImpl() {
    ffn = register_module("ffn", torch::nn::Linear(8, 8));
    router = register_module("router", shared_router());  // BUG(libtorch-shared-parameter-update)
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::sigmoid(router(x)) * ffn(x);
  }
  torch::nn::Linear ffn{nullptr}, router{nullptr};
};
TORCH_MODULE(Expert);

struct MixtureImpl : torch::nn::Module {
  explicit MixtureImpl(int n) {
    for (int i = 0; i < n; ++i)
      experts.push_back(register_module("expert" + std::to_string(i), Expert()));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto out = torch::zeros_like(x);
    for (auto& e : experts) out = out + e->forward(x);
    return out / static_cast<double>(experts.size());
  }
  std::vector<Expert> experts;
};
TORCH_MODULE(Mixture);

int main() {
  torch::manual_seed(2);
  Mixture moe(3);
  const double lr = 0.2;
  torch::optim::SGD opt(moe->parameters(), torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({32, 8});
  auto target = torch::randn({32, 8});
  opt.zero_grad();
  torch::mse_loss(moe->forward(x), target).backward();

  auto& router = ExpertImpl::shared_router();
  auto before = router->weight.detach().clone();
  auto g = router->weight.grad().clone();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  // how many SGD steps the router actually moved (1 is right)
  const double steps = ((before - router->weight.detach()) * g).sum().item<double>() /
                       (lr * (g * g).sum().item<double>());
  std::cout << "router moved " << steps << " steps\n";
  if (std::abs(steps - 1.0) > 1e-3)
    std::cout << "HARM: the shared router moved " << steps
              << " SGD steps in one step() (once per expert)\n";
  return 0;
}
