// CASE: a residual MLP builds its blocks with
//       std::vector<Linear>(depth, Linear(...)), meaning to get `depth`
//       layers, and gathers the optimizer's list block by block with a
//       vector operator+; all blocks are one module, listed `depth` times
// SOURCE: https://github.com/mlverse/torch/issues/305 (one module assigned to
//         two slots comes back twice from parameters)
// KIND: bug
// HARM: the single shared block weight moves by three SGD steps per update
#include <torch/torch.h>

#include <cstdio>
#include <vector>

static std::vector<torch::Tensor> operator+(std::vector<torch::Tensor> a,
                                            const std::vector<torch::Tensor>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

int main() {
  torch::manual_seed(13);
  const int depth = 3;
  std::vector<torch::nn::Linear> blocks(depth, torch::nn::Linear(8, 8));  // BUG(libtorch-shared-parameter-update)
  torch::nn::Linear readout(8, 1);

  std::vector<torch::Tensor> params = readout->parameters();
  for (auto& b : blocks) params = params + b->parameters();  // BUG(libtorch-shared-parameter-update)
  const double lr = 0.01;
  torch::optim::SGD opt(params, lr);  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({16, 8});
  auto y = torch::randn({16, 1});
  opt.zero_grad();
  auto h = x;
  for (auto& b : blocks) h = h + torch::relu(b(h));
  torch::mse_loss(readout(h), y).backward();

  auto w = blocks[0]->weight;
  auto expected = (w - lr * w.grad()).detach();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("%zu parameter entries, block weight error %.6g\n", params.size(), err);
  if (err > 1e-7) std::printf("HARM: the block weight was stepped once per copy (error %.6g)\n", err);
  return 0;
}
