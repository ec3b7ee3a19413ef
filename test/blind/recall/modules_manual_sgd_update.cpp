// CASE: a hand-written SGD update for a meta-learning inner loop iterates
//       modules() and then each module's parameters(), which already recurse,
//       so parameters of nested layers are updated several times
// SOURCE: https://discuss.pytorch.org/t/weight-decay-only-for-weights-of-nn-linear-and-nn-conv/114348
//         (iterating modules() and their parameters to treat them per layer)
// KIND: bug
// HARM: the first layer's weight moves by two or more gradient steps
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(16);
  torch::nn::Sequential net(torch::nn::Linear(4, 8), torch::nn::Tanh(), torch::nn::Linear(8, 1));
  auto x = torch::randn({12, 4});
  auto y = torch::randn({12, 1});
  const double inner_lr = 0.1;

  torch::mse_loss(net->forward(x), y).backward();
  auto w = net->ptr(0)->parameters()[0];
  auto expected = (w - inner_lr * w.grad()).detach();

  {
    torch::NoGradGuard no_grad;
    for (const auto& module : net->modules()) {
      for (auto& p : module->parameters()) {  // BUG(libtorch-shared-parameter-update)
        if (p.grad().defined()) p.sub_(inner_lr * p.grad());  // BUG(libtorch-shared-parameter-update)
      }
    }
  }

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("first-layer weight error after the inner step: %.6g\n", err);
  if (err > 1e-7) std::printf("HARM: nested parameters were updated more than once (error %.6g)\n", err);
  return 0;
}
