// CASE: a trainer splits parameters into weight-decay and no-decay groups by
//       walking named_modules() and, for each module, its named_parameters()
//       (which recurse by default), then builds SGD from the two groups
// SOURCE: https://github.com/rwth-i6/returnn/issues/1319
// KIND: bug
// HARM: a weight two levels deep is collected once for the root, once for
//       the Sequential and once for its own Linear, so each step moves it
//       three times
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

struct EncoderClassifierImpl : torch::nn::Module {
  EncoderClassifierImpl()
      : in_proj(torch::nn::Linear(8, 16)),
        encoder(register_module(
            "encoder", torch::nn::Sequential(in_proj, torch::nn::ReLU(),
                                             torch::nn::Linear(16, 16)))),
        head(register_module("head", torch::nn::Linear(16, 2))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return head(torch::relu(encoder->forward(x)));
  }

  torch::nn::Linear in_proj;
  torch::nn::Sequential encoder;
  torch::nn::Linear head;
};
TORCH_MODULE(EncoderClassifier);

int main() {
  torch::manual_seed(0);
  EncoderClassifier model;
  const double lr = 0.1;

  std::vector<torch::Tensor> decay;
  std::vector<torch::Tensor> no_decay;
  for (const auto& item : model->named_modules()) {
    for (const auto& param : item.value()->named_parameters()) {  // BUG(libtorch-shared-parameter-update)
      if (param.key().find("bias") != std::string::npos) {
        no_decay.push_back(param.value());
      } else {
        decay.push_back(param.value());
      }
    }
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::SGDOptions>(
                                 torch::optim::SGDOptions(lr).weight_decay(1e-4)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::SGDOptions>(
                                    torch::optim::SGDOptions(lr)));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({16, 8});
  auto y = torch::randint(0, 2, {16}, torch::kLong);
  auto loss = torch::cross_entropy_loss(model->forward(x), y);
  opt.zero_grad();
  loss.backward();
  auto& w = model->in_proj->weight;
  auto before = w.detach().clone();
  auto one_step = (lr * w.grad()).norm().item<double>();
  opt.step();  // BUG(libtorch-shared-parameter-update)
  double ratio = (before - w.detach()).norm().item<double>() / one_step;
  std::cout << decay.size() << " tensors in the decay group; encoder.0.weight moved "
            << ratio << " SGD steps\n";
  if (ratio > 1.5) {
    std::cout << "HARM: encoder.0.weight was stepped " << ratio
              << " times per optimizer step\n";
  }
  return 0;
}
