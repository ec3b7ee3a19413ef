// CASE: an iterative-refinement model (Universal-Transformer style weight
//       sharing) pushes one block into a ModuleList once per iteration; the
//       Python original relied on named_parameters() dropping duplicates, but
//       the C++ module lists the block under "steps.0", "steps.1" and
//       "steps.2", and the Trainer builds Adam from model->parameters() in its
//       constructor
// SOURCE: Python-to-libtorch ports of weight-shared refiners
//         (nn.ModuleList([block] * n)); duplicates kept by the C++ frontend
//         as in https://github.com/mlverse/torch/issues/305
// KIND: bug
// HARM: the shared block moves three Adam steps per update
#include <torch/torch.h>

#include <iostream>

struct RefineBlockImpl : torch::nn::Module {
  explicit RefineBlockImpl(int64_t dim)
      : mix(register_module("mix", torch::nn::Linear(dim, dim))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})))) {}
  torch::Tensor forward(const torch::Tensor& x) { return norm(x + torch::relu(mix(x))); }
  torch::nn::Linear mix;
  torch::nn::LayerNorm norm;
};
TORCH_MODULE(RefineBlock);

struct RefinerImpl : torch::nn::Module {
  RefinerImpl(int64_t dim, int iterations) {
    RefineBlock shared(dim);
    for (int i = 0; i < iterations; ++i) steps->push_back(shared);  // BUG(libtorch-shared-parameter-update)
    register_module("steps", steps);
    out = register_module("out", torch::nn::Linear(dim, 1));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (const auto& step : *steps) x = step->as<RefineBlock>()->forward(x);
    return out(x);
  }
  torch::nn::ModuleList steps;
  torch::nn::Linear out{nullptr};
};
TORCH_MODULE(Refiner);

class Trainer {
 public:
  explicit Trainer(Refiner model)
      : model_(model), optimizer_(model_->parameters(), torch::optim::AdamOptions(1e-3)) {}  // BUG(libtorch-shared-parameter-update)

  void fit(const torch::Tensor& x, const torch::Tensor& y) {
    optimizer_.zero_grad();
    torch::mse_loss(model_->forward(x), y).backward();
    optimizer_.step();  // BUG(libtorch-shared-parameter-update)
  }

 private:
  Refiner model_;
  torch::optim::Adam optimizer_;
};

int main() {
  torch::manual_seed(0);
  Refiner model(8, 3);
  Trainer trainer(model);
  auto block = model->steps[0]->as<RefineBlock>();
  auto block_before = block->mix->weight.detach().clone();
  auto out_before = model->out->weight.detach().clone();

  trainer.fit(torch::randn({16, 8}), torch::randn({16, 1}));

  const double block_move = (block->mix->weight - block_before).abs().max().item<double>();
  const double out_move = (model->out->weight - out_before).abs().max().item<double>();
  std::cout << "largest move after one update: shared block " << block_move << ", output layer " << out_move
            << " (lr 0.001)\n";
  if (block_move > 1.5e-3)
    std::cout << "HARM: the shared refine block moved " << block_move
              << " in one update, an Adam step is at most about 0.001\n";
  return 0;
}
