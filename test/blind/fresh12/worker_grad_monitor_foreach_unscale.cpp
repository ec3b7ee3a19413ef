// CASE: a loss-scaling trainer hands an at::TensorList over the parameters'
//       .grad() tensors to a gradient-health monitor started with
//       std::async; the monitor logs at the end-of-step tick, but the trainer
//       unscales the gradients in place with torch::_foreach_mul_ first
// SOURCE: the kind of code in C++ mixed-precision trainers (a hand-written
//         GradScaler with an overflow/norm monitor running off the training
//         thread)
// KIND: bug
// HARM: the monitor logs the unscaled norms as the scaled ones, so its
//       overflow headroom estimate is off by the loss scale
#include <torch/torch.h>

#include <future>
#include <iostream>
#include <vector>

namespace amp {

struct GradReport {
  std::vector<double> scaled_norms;
};

std::future<GradReport> monitor_async(at::TensorList grads, std::shared_future<void> tick) {
  return std::async(std::launch::async, [grads, tick] {  // BUG(libtorch-worker-missing-clone)
    tick.wait();  // logs once per step, at the end-of-step tick
    GradReport r;
    for (const auto& g : grads) r.scaled_norms.push_back(g.norm().item<double>());
    return r;
  });
}

}  // namespace amp

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(8, 16), torch::nn::Tanh(), torch::nn::Linear(16, 2));
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01));
  const double loss_scale = 1024.0;

  auto x = torch::randn({32, 8});
  auto y = torch::randn({32, 2});
  opt.zero_grad();
  (torch::mse_loss(net->forward(x), y) * loss_scale).backward();

  std::vector<torch::Tensor> grads;
  for (auto& p : net->parameters()) grads.push_back(p.grad());
  std::vector<double> expected;
  for (auto& g : grads) expected.push_back(g.norm().item<double>());

  std::promise<void> end_of_step;
  auto report = amp::monitor_async(grads, end_of_step.get_future().share());  // BUG(libtorch-worker-missing-clone)

  torch::_foreach_mul_(grads, 1.0 / loss_scale);  // BUG(libtorch-worker-missing-clone)
  opt.step();
  end_of_step.set_value();

  auto logged = report.get().scaled_norms;
  double worst = 0;
  for (size_t i = 0; i < logged.size(); ++i)
    worst = std::max(worst, std::abs(logged[i] - expected[i]) / expected[i]);
  if (worst > 1e-4)
    std::cout << "HARM: monitor logged norm " << logged[0] << " for a scaled gradient of norm "
              << expected[0] << "\n";
  else
    std::cout << "monitor saw the scaled gradients\n";
  return 0;
}
