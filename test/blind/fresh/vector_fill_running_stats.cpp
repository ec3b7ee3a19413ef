// CASE: an activation monitor keeps an exponential moving average of each
//       layer's mean activation in a std::vector built with the fill
//       constructor, then updates each entry in place
// SOURCE: the kind of code in training monitors / dead-unit detectors
//         written for libtorch models
// KIND: bug
// HARM: all layers share one tensor, so each "per-layer" average mixes the
//       three layers' activations; layer 0's figure is wrong
#include <torch/torch.h>

#include <iostream>
#include <vector>

int main() {
  torch::manual_seed(0);
  const int n_layers = 3;
  std::vector<torch::nn::Linear> layers;
  for (int l = 0; l < n_layers; ++l) layers.emplace_back(16, 16);

  std::vector<torch::Tensor> running_mean(n_layers, torch::zeros({16}));  // BUG(libtorch-inplace-on-view)
  std::vector<torch::Tensor> reference;
  for (int l = 0; l < n_layers; ++l) reference.push_back(torch::zeros({16}));

  torch::NoGradGuard no_grad;
  for (int it = 0; it < 10; ++it) {
    auto h = torch::randn({32, 16});
    for (int l = 0; l < n_layers; ++l) {
      h = torch::relu(layers[l](h));
      auto m = h.mean(0);
      running_mean[l].mul_(0.9).add_(m, 0.1);  // BUG(libtorch-inplace-on-view)
      reference[l] = reference[l] * 0.9 + m * 0.1;
    }
  }
  double diff = (running_mean[0] - reference[0]).abs().max().item<double>();
  if (diff > 1e-6) {
    std::cout << "HARM: layer 0's running mean is off by " << diff
              << " (all layers update one shared tensor)\n";
  } else {
    std::cout << "per-layer statistics are separate\n";
  }
  return 0;
}
