// CASE: a fine-tuning script splits named_parameters() into a weight-decay
//       group (names ending in "weight") and a no-decay group (biases and
//       anything with "norm" in its name); LayerNorm weights match both
//       rules, so AdamW gets them in two parameter groups
// SOURCE: the usual "no_decay = ['bias', 'LayerNorm.weight']" grouping of
//       BERT fine-tuning scripts, ported to libtorch; the libtorch optimizer
//       does not reject a tensor in two groups:
//       https://github.com/pytorch/pytorch/issues/48518 ,
//       https://github.com/volcengine/veGiantModel/issues/6
// KIND: bug
// HARM: LayerNorm gains are stepped twice (once with decay) per iteration
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

namespace {

struct BlockImpl : torch::nn::Module {
  BlockImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(8, 16));
    fc2 = register_module("fc2", torch::nn::Linear(16, 8));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({8})));
  }
  torch::Tensor forward(torch::Tensor x) {
    return norm->forward(x + fc2->forward(torch::gelu(fc1->forward(x))));
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Block);

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<torch::optim::OptimizerParamGroup> decay_groups(torch::nn::Module& model, double wd) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& item : model.named_parameters()) {
    const std::string& name = item.key();
    if (ends_with(name, "weight")) decay.push_back(item.value());  // BUG(libtorch-shared-parameter-update)
    if (ends_with(name, "bias") || name.find("norm") != std::string::npos)
      no_decay.push_back(item.value());  // BUG(libtorch-shared-parameter-update)
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(1e-2).weight_decay(wd)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(1e-2).weight_decay(0.0)));
  return groups;
}

// What the script meant: every tensor in exactly one group.
std::vector<torch::optim::OptimizerParamGroup> intended_groups(torch::nn::Module& model, double wd) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& item : model.named_parameters()) {
    const std::string& name = item.key();
    if (ends_with(name, "bias") || name.find("norm") != std::string::npos)
      no_decay.push_back(item.value());
    else
      decay.push_back(item.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(1e-2).weight_decay(wd)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(1e-2).weight_decay(0.0)));
  return groups;
}

void fit(Block& model, torch::optim::Optimizer& opt) {
  torch::manual_seed(11);
  for (int step = 0; step < 3; ++step) {
    auto x = torch::randn({16, 8});
    auto loss = (model->forward(x) - x.flip({1})).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();  // BUG(libtorch-shared-parameter-update)
  }
}

}  // namespace

int main() {
  torch::manual_seed(5);
  Block model;
  torch::manual_seed(5);
  Block reference;

  torch::optim::AdamW opt(decay_groups(*model, 0.1), torch::optim::AdamWOptions(1e-2));  // BUG(libtorch-shared-parameter-update)
  torch::optim::AdamW ref_opt(intended_groups(*reference, 0.1), torch::optim::AdamWOptions(1e-2));
  fit(model, opt);
  fit(reference, ref_opt);

  auto got = model->norm->weight.detach();
  auto want = reference->norm->weight.detach();
  std::cout << "LayerNorm gain after 3 steps: " << got.slice(0, 0, 4) << "\nreference: " << want.slice(0, 0, 4) << "\n";
  if (!torch::allclose(got, want, 1e-5, 1e-7)) {
    std::cout << "HARM: the LayerNorm gain sits in two AdamW groups and drifted "
              << (got - want).abs().max().item<float>() << " from the intended update\n";
  }
  return 0;
}
