// CASE: weight-decay grouping walks named_modules() and, for each module,
//       its named_parameters(), putting weights in a decay group and biases
//       in a no-decay group; named_parameters() recurses by default, so every
//       parameter is collected once per enclosing module
// SOURCE: https://discuss.pytorch.org/t/weight-decay-only-for-weights-of-nn-linear-and-nn-conv/114348
//         (building decay / no-decay groups by iterating modules())
// KIND: bug
// HARM: a deeply nested weight is stepped three times per optimizer step
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

struct BlockImpl : torch::nn::Module {
  BlockImpl() {
    fc = register_module("fc", torch::nn::Linear(6, 6));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({6})));
  }
  torch::Tensor forward(const torch::Tensor& x) { return norm(x + torch::gelu(fc(x))); }
  torch::nn::Linear fc{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Block);

struct NetImpl : torch::nn::Module {
  NetImpl() {
    block = register_module("block", Block());
    out = register_module("out", torch::nn::Linear(6, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) { return out(block(x)); }
  Block block{nullptr};
  torch::nn::Linear out{nullptr};
};
TORCH_MODULE(Net);

int main() {
  torch::manual_seed(15);
  Net net;
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& mod : net->named_modules()) {
    for (const auto& param : mod.value()->named_parameters()) {  // BUG(libtorch-shared-parameter-update)
      const std::string& name = param.key();
      bool is_bias = name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
      bool is_norm = name.find("norm") != std::string::npos;
      (is_bias || is_norm ? no_decay : decay).push_back(param.value());  // BUG(libtorch-shared-parameter-update)
    }
  }
  const double lr = 0.05;
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(lr).weight_decay(0.0)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(lr)));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({10, 6});
  auto y = torch::randn({10, 2});
  opt.zero_grad();
  torch::mse_loss(net(x), y).backward();
  auto w = net->block->fc->weight;
  auto expected = (w - lr * w.grad()).detach();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("decay group %zu tensors, no-decay %zu (model has %zu), error %.6g\n", decay.size(),
              no_decay.size(), net->parameters().size(), err);
  if (err > 1e-7) std::printf("HARM: block.fc.weight was stepped once per enclosing module\n");
  return 0;
}
