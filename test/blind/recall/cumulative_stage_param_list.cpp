// CASE: greedy layer-wise training: at stage k the trainer appends the
//       parameters of layers 0..k to a list kept across stages and builds a
//       fresh optimizer from it, so early layers accumulate duplicate entries
// SOURCE: https://github.com/Improbable-AI/walk-these-ways/issues/68 (one
//         module's parameters reaching the update through two lists, so they
//         are updated repeatedly)
// KIND: bug
// HARM: at stage 2 the first layer is stepped three times per step
#include <torch/torch.h>

#include <cstdio>
#include <vector>

int main() {
  torch::manual_seed(21);
  std::vector<torch::nn::Linear> layers = {torch::nn::Linear(6, 6), torch::nn::Linear(6, 6),
                                           torch::nn::Linear(6, 6)};
  torch::nn::Linear head(6, 1);
  auto x = torch::randn({24, 6});
  auto y = torch::randn({24, 1});
  const double lr = 0.02;

  std::vector<torch::Tensor> trainable = head->parameters();
  for (size_t stage = 0; stage < layers.size(); ++stage) {
    for (size_t j = 0; j <= stage; ++j) {
      auto p = layers[j]->parameters();
      trainable.insert(trainable.end(), p.begin(), p.end());  // BUG(libtorch-shared-parameter-update)
    }
    torch::optim::SGD opt(trainable, lr);  // BUG(libtorch-shared-parameter-update)

    opt.zero_grad();
    auto h = x;
    for (size_t j = 0; j <= stage; ++j) h = torch::tanh(layers[j](h));
    torch::mse_loss(head(h), y).backward();
    auto w = layers[0]->weight;
    auto expected = (w - lr * w.grad()).detach();
    opt.step();  // BUG(libtorch-shared-parameter-update)
    const double err = (w.detach() - expected).abs().max().item<double>();
    std::printf("stage %zu: %zu entries, layer-0 error %.6g\n", stage, trainable.size(), err);
    if (stage == layers.size() - 1 && err > 1e-7) {
      std::printf("HARM: layer 0 stepped %zu times at stage %zu\n", stage + 1, stage);
    }
  }
  return 0;
}
