// CASE: a weight-normalised linear layer (Salimans & Kingma) registers the
//       direction `v` and gain `g` as parameters, initialises g in place from
//       v's row norms under NoGradGuard, and recomputes the unregistered
//       member `weight = g * v / ||v||` at every forward before using it;
//       a short SGD loop trains it
// SOURCE: the kind of code in torch/nn/utils/weight_norm.py (WeightNorm
//         compute_weight in a forward pre-hook) as hand-ported to libtorch in
//         WaveNet / HiFi-GAN / TTS vocoder C++ implementations
// KIND: near-miss
// WHY-OK: `weight` is rebound to a new tensor each forward (no in-place write
//         into anything autograd saved), and the one in-place write, g's
//         initialisation, happens under no_grad before any graph exists
#include <torch/torch.h>
#include <iostream>

struct WNLinearImpl : torch::nn::Module {
  WNLinearImpl(int64_t in, int64_t out) {
    v = register_parameter("v", torch::randn({out, in}) * 0.3);
    g = register_parameter("g", torch::empty({out, 1}));
    bias = register_parameter("bias", torch::zeros({out}));
    torch::NoGradGuard no_grad;
    g.copy_(v.norm(2, /*dim=*/1, /*keepdim=*/true));
  }
  torch::Tensor compute_weight() const { return g * v / v.norm(2, 1, true); }
  torch::Tensor forward(const torch::Tensor& x) {
    weight = compute_weight();
    return torch::nn::functional::linear(x, weight, bias);
  }
  torch::Tensor v, g, bias, weight;
};
TORCH_MODULE(WNLinear);

int main() {
  torch::manual_seed(0);
  WNLinear layer(3, 2);
  auto x = torch::randn({64, 3});
  auto true_w = torch::tensor({{1.f, -2.f, 0.5f}, {0.f, 1.f, 1.f}});
  auto y = x.matmul(true_w.t());
  torch::optim::SGD opt(layer->parameters(), torch::optim::SGDOptions(0.1));
  float first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(layer(x), y);
    loss.backward();
    opt.step();
    if (step == 0) first = loss.item<float>();
    last = loss.item<float>();
  }
  std::cout << "loss " << first << " -> " << last << "\n";
  std::cout << "learned weight:\n" << layer->weight.detach() << "\n";
  return 0;
}
