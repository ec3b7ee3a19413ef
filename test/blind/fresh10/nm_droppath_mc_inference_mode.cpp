// CASE: a residual MLP block applies per-sample drop-path to its ReLU branch
//       with a helper that multiplies a flattened view of the branch in place;
//       the model is only run this way for Monte-Carlo uncertainty estimates,
//       with the module in train() mode inside c10::InferenceMode
// SOURCE: the kind of stochastic-depth helper (drop_path_) ported from timm's
//         drop_path into C++ frontend models, reused for MC-dropout style
//         predictive uncertainty at serving time
// KIND: near-miss
// WHY-OK: under InferenceMode no graph is recorded and ReLU saves nothing, so
//         the in-place write through the view corrupts no saved tensor
#include <torch/torch.h>

#include <cstdio>
#include <utility>
#include <vector>

namespace regularize {

void drop_path_(torch::Tensor& branch, double p, bool training) {
  if (!training || p <= 0.0) return;
  auto keep = torch::bernoulli(torch::full({branch.size(0), 1}, 1.0 - p)).div_(1.0 - p);
  branch.view({branch.size(0), -1}).mul_(keep);
}

}  // namespace regularize

struct ResBlockImpl : torch::nn::Module {
  ResBlockImpl(int64_t dim, double drop) : fc(register_module("fc", torch::nn::Linear(dim, dim))), drop_(drop) {}
  torch::Tensor forward(const torch::Tensor& x) {
    auto branch = torch::relu(fc->forward(x));
    regularize::drop_path_(branch, drop_, is_training());
    return x + branch;
  }
  torch::nn::Linear fc;
  double drop_;
};
TORCH_MODULE(ResBlock);

struct TabularNetImpl : torch::nn::Module {
  TabularNetImpl() {
    stem = register_module("stem", torch::nn::Linear(10, 24));
    for (int i = 0; i < 3; ++i) blocks->push_back(ResBlock(24, 0.1 * (i + 1)));
    register_module("blocks", blocks);
    out = register_module("out", torch::nn::Linear(24, 1));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = stem->forward(x);
    for (auto& b : *blocks) x = b->as<ResBlock>()->forward(x);
    return out->forward(x);
  }
  torch::nn::Linear stem{nullptr}, out{nullptr};
  torch::nn::ModuleList blocks;
};
TORCH_MODULE(TabularNet);

// mean and spread of `samples` stochastic forward passes
std::pair<torch::Tensor, torch::Tensor> mc_predict(TabularNet& net, const torch::Tensor& x, int samples) {
  c10::InferenceMode guard;
  net->train();  // keep drop-path active
  std::vector<torch::Tensor> draws;
  for (int s = 0; s < samples; ++s) draws.push_back(net->forward(x));
  net->eval();
  auto stacked = torch::stack(draws);
  return {stacked.mean(0), stacked.std(0)};
}

int main() {
  torch::manual_seed(12);
  TabularNet net;
  auto x = torch::randn({8, 10});
  auto [mean, spread] = mc_predict(net, x, 16);
  std::printf("row 0: prediction %.4f +- %.4f (mean spread %.4f)\n", mean[0].item<double>(),
              spread[0].item<double>(), spread.mean().item<double>());
  return 0;
}
