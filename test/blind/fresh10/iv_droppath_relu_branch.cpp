// CASE: a residual MLP block for tabular data applies per-sample drop-path to
//       its ReLU branch with a helper that multiplies a flattened view of the
//       branch in place "to spare a copy"; ReLU saved that output for its
//       backward
// SOURCE: the kind of stochastic-depth helper (drop_path_) ported from timm's
//         drop_path into C++ frontend models
// KIND: bug
// HARM: backward throws: the ReLU output it needs was modified in place
#include <torch/torch.h>

#include <cstdio>
#include <string>

namespace regularize {

void drop_path_(torch::Tensor& branch, double p, bool training) {
  if (!training || p <= 0.0) return;
  auto keep = torch::bernoulli(torch::full({branch.size(0), 1}, 1.0 - p)).div_(1.0 - p);
  branch.view({branch.size(0), -1}).mul_(keep);  // BUG(libtorch-inplace-on-view)
}

}  // namespace regularize

struct ResBlockImpl : torch::nn::Module {
  ResBlockImpl(int64_t dim, double drop) : fc(register_module("fc", torch::nn::Linear(dim, dim))), drop_(drop) {}
  torch::Tensor forward(const torch::Tensor& x) {
    auto branch = torch::relu(fc->forward(x));
    regularize::drop_path_(branch, drop_, is_training());  // BUG(libtorch-inplace-on-view)
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

int main() {
  torch::manual_seed(12);
  TabularNet net;
  net->train();
  torch::optim::AdamW opt(net->parameters(), torch::optim::AdamWOptions(1e-3));
  auto x = torch::randn({128, 10}), y = torch::randn({128, 1});
  try {
    opt.zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y);
    loss.backward();
    opt.step();
    std::printf("step ok, loss %.4f\n", loss.item<double>());
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::printf("HARM: backward failed: %s\n", what.substr(0, what.find('\n')).c_str());
  }
  return 0;
}
