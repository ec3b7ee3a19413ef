// CASE: a weight-shared (ALBERT-style) encoder registers the same layer
//       object under two names so that both appear in the module tree; the
//       model's own parameters() then lists the shared tensors twice
// SOURCE: https://github.com/mlverse/torch/issues/305 (`self$x <- x; self$y <- x`
//         duplicates the weights in parameters) and
//         https://github.com/mlverse/torch/issues/968
// KIND: bug
// HARM: the shared layer weight moves by two SGD steps per update
#include <torch/torch.h>

#include <cstdio>

struct SharedEncoderImpl : torch::nn::Module {
  SharedEncoderImpl() {
    torch::nn::Linear layer(8, 8);
    layer1 = register_module("layer1", layer);
    layer2 = register_module("layer2", layer);  // BUG(libtorch-shared-parameter-update)
    cls = register_module("cls", torch::nn::Linear(8, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(layer1(x));
    x = torch::relu(layer2(x));
    return cls(x);
  }
  torch::nn::Linear layer1{nullptr}, layer2{nullptr}, cls{nullptr};
};
TORCH_MODULE(SharedEncoder);

int main() {
  torch::manual_seed(20);
  SharedEncoder model;
  const double lr = 0.05;
  torch::optim::SGD opt(model->parameters(), lr);  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({16, 8});
  auto y = torch::randint(2, {16});
  opt.zero_grad();
  torch::cross_entropy_loss(model(x), y).backward();
  auto w = model->layer1->weight;
  auto expected = (w - lr * w.grad()).detach();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("parameters() has %zu entries; shared weight error %.6g\n", model->parameters().size(), err);
  if (err > 1e-7) std::printf("HARM: the shared layer was stepped twice (error %.6g)\n", err);
  return 0;
}
