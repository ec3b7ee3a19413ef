// CASE: a vector-quantiser with soft assignment uses its codebook parameter
//       in z.mm(codebook.t()) and EMA-updates codebook.detach() in place
//       through a namespace helper
// SOURCE: the kind of code in VQ-VAE ports to libtorch that compute the EMA
//         statistics in forward()
// KIND: near-miss
// WHY-OK: forward() only stores the update as a std::function in the module;
//         the trainer calls commit() after loss.backward(), when the graph
//         that saved the codebook has been used and freed
#include <torch/torch.h>

#include <functional>
#include <iostream>

namespace vq {
namespace detail {
inline void ema_(torch::Tensor target, const torch::Tensor& value, double decay) {
  target.mul_(decay).add_(value, 1.0 - decay);
}
}  // namespace detail

inline void update_codebook(const torch::Tensor& codebook, const torch::Tensor& centroids) {
  detail::ema_(codebook.detach(), centroids, 0.99);
}
}  // namespace vq

struct SoftQuantizerImpl : torch::nn::Module {
  SoftQuantizerImpl(int64_t codes, int64_t dim) {
    codebook = register_parameter("codebook", torch::randn({codes, dim}));
  }
  torch::Tensor forward(const torch::Tensor& z) {
    auto assign = torch::softmax(z.mm(codebook.t()), 1);
    auto quantized = assign.mm(codebook);
    if (is_training()) {
      auto counts = assign.sum(0).unsqueeze(1).clamp_min(1e-6);
      auto centroids = (assign.t().mm(z) / counts).detach();
      pending_ = [cb = codebook, centroids] { vq::update_codebook(cb, centroids); };
    }
    return quantized;
  }
  void commit() {
    if (pending_) pending_();
    pending_ = nullptr;
  }
  torch::Tensor codebook;
  std::function<void()> pending_;
};
TORCH_MODULE(SoftQuantizer);

int main() {
  torch::manual_seed(6);
  torch::nn::Linear enc(12, 4), dec(4, 12);
  SoftQuantizer vq_layer(16, 4);
  auto x = torch::randn({8, 12});
  auto recon = dec(vq_layer(enc(x)));
  auto loss = torch::mse_loss(recon, x);
  try {
    loss.backward();
    vq_layer->commit();
    std::cout << "backward ok, codebook grad " << vq_layer->codebook.grad().norm().item<double>()
              << "\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
