// CASE: a spectrally normalised conv (Miyato et al.) keeps the power-
//       iteration vectors u and v as registered buffers and refreshes them in
//       place (`u.copy_(normalize(W v))`) under NoGradGuard at every training
//       forward; the graph uses clones of u and v, and the normalised kernel
//       is written to the unregistered member `weight`
// SOURCE: the kind of code in torch/nn/utils/spectral_norm.py
//         (SpectralNorm.compute_weight: in-place u/v update under no_grad,
//         then u.clone()) as ported to libtorch GAN discriminators
// KIND: near-miss
// WHY-OK: the in-place update of the module's own buffers happens under
//         no_grad, and autograd only ever sees the clones, so calling forward
//         twice before backward is safe; `weight` is rebound, not written
#include <torch/torch.h>
#include <iostream>

namespace F = torch::nn::functional;

struct SNConv2dImpl : torch::nn::Module {
  SNConv2dImpl(int64_t in, int64_t out, int64_t k) {
    weight_orig = register_parameter("weight_orig", torch::randn({out, in, k, k}) * 0.2);
    bias = register_parameter("bias", torch::zeros({out}));
    u = register_buffer("u", F::normalize(torch::randn({out}), F::NormalizeFuncOptions().dim(0)));
    v = register_buffer("v", F::normalize(torch::randn({in * k * k}), F::NormalizeFuncOptions().dim(0)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto w_mat = weight_orig.flatten(1);
    if (is_training()) {
      torch::NoGradGuard no_grad;
      for (int it = 0; it < power_iterations; ++it) {
        v.copy_(F::normalize(torch::mv(w_mat.t(), u), F::NormalizeFuncOptions().dim(0)));
        u.copy_(F::normalize(torch::mv(w_mat, v), F::NormalizeFuncOptions().dim(0)));
      }
    }
    auto u_c = u.clone(), v_c = v.clone();
    auto sigma = torch::dot(u_c, torch::mv(w_mat, v_c));
    weight = weight_orig / sigma;
    return F::conv2d(x, weight, F::Conv2dFuncOptions().bias(bias).padding(1));
  }
  int power_iterations = 1;
  torch::Tensor weight_orig, bias, u, v, weight;
};
TORCH_MODULE(SNConv2d);

int main() {
  torch::manual_seed(0);
  SNConv2d conv(3, 8, 3);
  torch::optim::Adam opt(conv->parameters(), torch::optim::AdamOptions(1e-3));
  auto real = torch::randn({4, 3, 8, 8}), fake = torch::randn({4, 3, 8, 8});
  for (int step = 0; step < 30; ++step) {
    opt.zero_grad();
    // Two forwards share one backward, as in a discriminator step.
    auto loss = torch::relu(1 - conv(real)).mean() + torch::relu(1 + conv(fake)).mean();
    loss.backward();
    opt.step();
  }
  auto top = at::linalg_svdvals(conv->weight.detach().flatten(1))[0].item<float>();
  std::cout << "largest singular value of the normalised kernel: " << top << " (about 1)\n";
  return 0;
}
