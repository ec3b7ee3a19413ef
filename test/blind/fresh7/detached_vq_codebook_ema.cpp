// CASE: a vector-quantiser with soft assignment uses its codebook parameter
//       in z.mm(codebook.t()), then the forward itself calls a namespace
//       helper that EMA-updates codebook.detach() in place through a second
//       helper, before the caller's backward
// SOURCE: the kind of code in VQ-VAE ports to libtorch that fold the EMA
//         codebook update into forward()
// KIND: bug
// HARM: loss.backward() throws because the codebook saved by mm was
//       modified in place (detach() shares the version counter)
#include <torch/torch.h>

#include <iostream>

namespace vq {
namespace detail {
inline void ema_(torch::Tensor target, const torch::Tensor& value, double decay) {
  target.mul_(decay).add_(value, 1.0 - decay);  // BUG(libtorch-detached-write)
}
}  // namespace detail

inline void update_codebook(const torch::Tensor& codebook, const torch::Tensor& z,
                            const torch::Tensor& assign) {
  auto counts = assign.sum(0).unsqueeze(1).clamp_min(1e-6);
  auto centroids = assign.t().mm(z) / counts;
  detail::ema_(codebook.detach(), centroids.detach(), 0.99);  // BUG(libtorch-detached-write)
}
}  // namespace vq

struct SoftQuantizerImpl : torch::nn::Module {
  SoftQuantizerImpl(int64_t codes, int64_t dim) {
    codebook = register_parameter("codebook", torch::randn({codes, dim}));
  }
  torch::Tensor forward(const torch::Tensor& z) {
    auto assign = torch::softmax(z.mm(codebook.t()), 1);
    auto quantized = assign.mm(codebook);
    if (is_training()) vq::update_codebook(codebook, z, assign);  // BUG(libtorch-detached-write)
    return quantized;
  }
  torch::Tensor codebook;
};
TORCH_MODULE(SoftQuantizer);

int main() {
  torch::manual_seed(6);
  torch::nn::Linear enc(12, 4), dec(4, 12);
  SoftQuantizer vq_layer(16, 4);
  auto x = torch::randn({8, 12});
  auto z = enc(x);
  auto recon = dec(vq_layer(z));
  auto loss = torch::mse_loss(recon, x);
  try {
    loss.backward();
    std::cout << "backward ok\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
