// CASE: a discretised neural ODE ("K Euler steps of one vector field") keeps
//       a per-step gain in a ParameterList, but ties the gains by appending
//       the same tensor once per step; model->parameters() then lists it K
//       times and torch::optim::SGD applies its update K times per step
// SOURCE: the kind of code in neural-ODE / deep-equilibrium ports to libtorch
//         (ParameterList of step sizes, "share the step size across steps")
// KIND: bug
// HARM: the tied gain moves K * lr * grad instead of lr * grad
#include <torch/torch.h>
#include <iostream>

namespace node {

struct EulerFlowImpl : torch::nn::Module {
  EulerFlowImpl(int64_t dim, int64_t steps) : steps_(steps) {
    field = register_module("field", torch::nn::Linear(dim, dim));
    gains = register_module("gains", torch::nn::ParameterList());
    auto h = torch::full({1}, 1.0 / steps, torch::requires_grad());
    for (int64_t k = 0; k < steps; ++k)
      gains->append(h);  // BUG(libtorch-shared-parameter-update)
  }

  torch::Tensor forward(torch::Tensor z) {
    for (int64_t k = 0; k < steps_; ++k)
      z = z + gains[k] * torch::tanh(field->forward(z));
    return z;
  }

  torch::nn::Linear field{nullptr};
  torch::nn::ParameterList gains{nullptr};
  int64_t steps_;
};
TORCH_MODULE(EulerFlow);

}  // namespace node

int main() {
  torch::manual_seed(0);
  const int64_t steps = 4;
  const double lr = 0.05;
  node::EulerFlow flow(3, steps);
  torch::optim::SGD opt(flow->parameters(), torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto z0 = torch::randn({16, 3});
  auto target = z0 * 2.0;
  auto loss = torch::mse_loss(flow->forward(z0), target);
  opt.zero_grad();
  loss.backward();

  auto gain = flow->gains[0];
  auto before = gain.detach().clone();
  auto g = gain.grad().clone();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  auto expected = before - lr * g;
  std::cout << "gain: " << before.item<double>() << " -> " << gain.item<double>()
            << " (one SGD step: " << expected.item<double>() << ")\n";
  std::cout << "parameters listed: " << flow->parameters().size() << "\n";
  if (!torch::allclose(gain.detach(), expected))
    std::cout << "HARM: the tied gain moved " << (before - gain.detach()).item<double>() /
                     (lr * g).item<double>()
              << " SGD steps in one opt.step()\n";
  return 0;
}
