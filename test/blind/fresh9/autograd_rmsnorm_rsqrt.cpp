// CASE: a masked RMSNorm computes the inverse RMS with rsqrt() and zeroes it
//       at padded positions in place through a squeeze(-1) view with
//       masked_fill_, before scaling the input by it
// SOURCE: the kind of code in libtorch LLaMA/T5-style encoders that try to
//         keep padded tokens at exactly zero after normalisation
// KIND: bug
// HARM: backward throws: RsqrtBackward saved its output, which the
//       masked_fill_ through the squeeze view modified
#include <torch/torch.h>

#include <iostream>

class MaskedRMSNormImpl : public torch::nn::Module {
 public:
  explicit MaskedRMSNormImpl(int64_t dim, double eps = 1e-6) : eps_(eps) {
    gain_ = register_parameter("gain", torch::ones({dim}));
  }
  // x: [B, T, D], pad: [B, T] (true at padding)
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& pad) {
    auto inv_rms = x.pow(2).mean(-1, /*keepdim=*/true).add(eps_).rsqrt();  // [B, T, 1]
    inv_rms.squeeze(-1).masked_fill_(pad, 0.0);  // BUG(libtorch-inplace-on-view)
    return x * inv_rms * gain_;
  }

 private:
  double eps_;
  torch::Tensor gain_;
};
TORCH_MODULE(MaskedRMSNorm);

int main() {
  torch::manual_seed(0);
  torch::nn::Embedding tok(100, 16);
  MaskedRMSNorm norm(16);
  torch::nn::Linear proj(16, 100);

  auto ids = torch::randint(1, 100, {2, 7}, torch::kLong);
  ids.index_put_({1, torch::indexing::Slice(5, torch::indexing::None)}, 0);
  auto pad = ids.eq(0);

  auto h = norm(tok(ids), pad);
  auto logits = proj(h);
  auto loss = torch::nn::functional::cross_entropy(logits.view({-1, 100}), ids.view({-1}));
  try {
    loss.backward();
    std::cout << "gain grad norm " << norm->named_parameters()["gain"].grad().norm().item<double>()
              << "\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: backward failed: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
