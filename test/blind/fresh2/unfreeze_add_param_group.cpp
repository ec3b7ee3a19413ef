// CASE: gradual unfreezing for fine-tuning: at every stage the trainer
//       unfreezes one more backbone block and calls add_param_group with the
//       parameters of all blocks unfrozen so far, which re-adds the blocks
//       already in the optimizer from earlier stages
// SOURCE: https://github.com/pytorch/pytorch/issues/48518
// KIND: bug
// HARM: at the third stage the top block is in three parameter groups and
//       every optimizer step moves it three times
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() {
    for (int i = 0; i < 3; ++i) {
      blocks.push_back(register_module("block" + std::to_string(i),
                                       torch::nn::Linear(16, 16)));
    }
    head = register_module("head", torch::nn::Linear(16, 3));
  }

  torch::Tensor forward(torch::Tensor x) {
    for (auto& block : blocks) {
      x = torch::relu(block(x));
    }
    return head(x);
  }

  std::vector<torch::nn::Linear> blocks;
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Classifier);

// The parameters of the `depth` blocks nearest the head.
static std::vector<torch::Tensor> top_blocks(Classifier& model, size_t depth) {
  std::vector<torch::Tensor> params;
  for (size_t k = 0; k < depth; ++k) {
    auto& block = model->blocks[model->blocks.size() - 1 - k];
    for (auto& p : block->parameters()) {
      params.push_back(p);
    }
  }
  return params;
}

int main() {
  torch::manual_seed(0);
  Classifier model;
  for (auto& block : model->blocks) {
    for (auto& p : block->parameters()) {
      p.set_requires_grad(false);
    }
  }
  const double lr = 0.05;
  torch::optim::SGD opt(model->head->parameters(), torch::optim::SGDOptions(lr));

  auto x = torch::randn({32, 16});
  auto y = torch::randint(0, 3, {32}, torch::kLong);
  double ratio = 0.0;
  for (size_t stage = 1; stage <= 3; ++stage) {
    auto unfrozen = top_blocks(model, stage);
    for (auto& p : unfrozen) {
      p.set_requires_grad(true);
    }
    opt.add_param_group(torch::optim::OptimizerParamGroup(unfrozen));  // BUG(libtorch-shared-parameter-update)

    auto loss = torch::cross_entropy_loss(model->forward(x), y);
    opt.zero_grad();
    loss.backward();
    auto& top = model->blocks.back()->weight;
    auto before = top.detach().clone();
    auto one_step = (lr * top.grad()).norm().item<double>();
    opt.step();  // BUG(libtorch-shared-parameter-update)
    ratio = (before - top.detach()).norm().item<double>() / one_step;
    std::cout << "stage " << stage << ": top block moved " << ratio << " SGD steps\n";
  }
  if (ratio > 1.5) {
    std::cout << "HARM: the top block was stepped " << ratio
              << " times per optimizer step\n";
  }
  return 0;
}
