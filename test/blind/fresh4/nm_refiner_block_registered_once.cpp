// CASE: an iterative-refinement model (Universal-Transformer style weight
//       sharing) registers its one refine block once and applies it
//       `iterations` times in forward(); the Trainer builds Adam from
//       model->parameters() in its constructor
// SOURCE: Python-to-libtorch ports of weight-shared refiners
// KIND: near-miss
// WHY-OK: the shared block is registered once, so model->parameters() lists
//         each of its tensors once; the repeated use is only in forward()
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
  RefinerImpl(int64_t dim, int iterations)
      : iterations_(iterations),
        block(register_module("block", RefineBlock(dim))),
        out(register_module("out", torch::nn::Linear(dim, 1))) {}
  torch::Tensor forward(torch::Tensor x) {
    for (int i = 0; i < iterations_; ++i) x = block->forward(x);
    return out(x);
  }
  int iterations_;
  RefineBlock block;
  torch::nn::Linear out;
};
TORCH_MODULE(Refiner);

class Trainer {
 public:
  explicit Trainer(Refiner model)
      : model_(model), optimizer_(model_->parameters(), torch::optim::AdamOptions(1e-3)) {}

  void fit(const torch::Tensor& x, const torch::Tensor& y) {
    optimizer_.zero_grad();
    torch::mse_loss(model_->forward(x), y).backward();
    optimizer_.step();
  }

 private:
  Refiner model_;
  torch::optim::Adam optimizer_;
};

int main() {
  torch::manual_seed(0);
  Refiner model(8, 3);
  Trainer trainer(model);
  auto block_before = model->block->mix->weight.detach().clone();

  trainer.fit(torch::randn({16, 8}), torch::randn({16, 1}));

  const double block_move = (model->block->mix->weight - block_before).abs().max().item<double>();
  std::cout << "largest move of the shared block after one update " << block_move << " (lr 0.001)\n";
  if (block_move > 1.5e-3) std::cout << "HARM: the shared refine block moved " << block_move << "\n";
  return 0;
}
