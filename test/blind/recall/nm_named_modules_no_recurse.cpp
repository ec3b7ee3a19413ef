// CASE: weight-decay grouping walks named_modules() and takes each module's
//       own parameters only, named_parameters(/*recurse=*/false)
// SOURCE: https://discuss.pytorch.org/t/weight-decay-only-for-weights-of-nn-linear-and-nn-conv/114348
// KIND: near-miss
// WHY-OK: with recurse=false every parameter belongs to exactly one module in
//         the walk, so each is collected once
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

int main() {
  torch::manual_seed(15);
  torch::nn::Sequential net(torch::nn::Linear(6, 6), torch::nn::LayerNorm(torch::nn::LayerNormOptions({6})),
                            torch::nn::GELU(), torch::nn::Linear(6, 2));
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& mod : net->named_modules()) {
    const bool is_norm = mod.value()->name().find("LayerNorm") != std::string::npos;
    for (const auto& param : mod.value()->named_parameters(/*recurse=*/false)) {
      const bool is_bias = param.key() == "bias";
      (is_bias || is_norm ? no_decay : decay).push_back(param.value());
    }
  }
  const double lr = 0.05;
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(lr).weight_decay(0.0)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(lr)));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(lr));

  auto x = torch::randn({10, 6});
  auto y = torch::randn({10, 2});
  opt.zero_grad();
  torch::mse_loss(net->forward(x), y).backward();
  auto w = net->ptr(0)->parameters()[0];
  auto expected = (w - lr * w.grad()).detach();
  opt.step();

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("%zu + %zu tensors (model has %zu), error %.6g\n", decay.size(), no_decay.size(),
              net->parameters().size(), err);
  if (err > 1e-7) std::printf("HARM: a parameter was stepped more than once\n");
  return 0;
}
