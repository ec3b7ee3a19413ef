// CASE: domain-specific batch norm whose constructor registers a clone of
//       the zeros/ones templates for each domain's running statistics;
//       torch::batch_norm in training mode updates them in place
// SOURCE: the kind of code in domain-adaptation models with domain-specific
//         batch normalisation (DSBN)
// KIND: near-miss
// WHY-OK: each buffer is its own clone, so source batches update only the
//         source statistics
#include <torch/torch.h>

#include <iostream>

struct DomainBatchNormImpl : torch::nn::Module {
  explicit DomainBatchNormImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    auto ones = torch::ones({channels});
    weight = register_parameter("weight", torch::ones({channels}));
    bias = register_parameter("bias", torch::zeros({channels}));
    mean_src = register_buffer("mean_src", zeros.clone());
    var_src = register_buffer("var_src", ones.clone());
    mean_tgt = register_buffer("mean_tgt", zeros.clone());
    var_tgt = register_buffer("var_tgt", ones.clone());
  }
  torch::Tensor forward(const torch::Tensor& x, bool target_domain) {
    auto& mean = target_domain ? mean_tgt : mean_src;
    auto& var = target_domain ? var_tgt : var_src;
    return torch::batch_norm(x, weight, bias, mean, var, is_training(), 0.1, 1e-5, false);
  }
  torch::Tensor weight, bias, mean_src, var_src, mean_tgt, var_tgt;
};
TORCH_MODULE(DomainBatchNorm);

int main() {
  torch::manual_seed(0);
  DomainBatchNorm bn(4);
  bn->train();
  for (int it = 0; it < 20; ++it) {
    auto x = torch::randn({32, 4}) * 2.0 + 5.0;
    bn(x, /*target_domain=*/false);
  }
  double tgt_mean = bn->mean_tgt.abs().max().item<double>();
  double tgt_var = (bn->var_tgt - 1.0).abs().max().item<double>();
  double src_mean = bn->mean_src[0].item<double>();
  std::cout << (tgt_mean < 1e-6 && tgt_var < 1e-6 ? "ok: " : "MISMATCH: ")
            << "target statistics untouched, source mean " << src_mean << "\n";
  return 0;
}
