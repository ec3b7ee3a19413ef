// CASE: domain-specific batch norm (one set of running statistics per
//       domain) whose constructor registers the same zeros/ones tensors as
//       both domains' buffers; torch::batch_norm in training mode then
//       updates them in place
// SOURCE: the kind of code in domain-adaptation models with domain-specific
//         batch normalisation (DSBN)
// KIND: bug
// HARM: training on the source domain alone also moves the target domain's
//       running mean and variance, which should still be 0 and 1
#include <torch/torch.h>

#include <iostream>

struct DomainBatchNormImpl : torch::nn::Module {
  explicit DomainBatchNormImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    auto ones = torch::ones({channels});
    weight = register_parameter("weight", torch::ones({channels}));
    bias = register_parameter("bias", torch::zeros({channels}));
    mean_src = register_buffer("mean_src", zeros);  // BUG(libtorch-inplace-on-view)
    var_src = register_buffer("var_src", ones);  // BUG(libtorch-inplace-on-view)
    mean_tgt = register_buffer("mean_tgt", zeros);  // BUG(libtorch-inplace-on-view)
    var_tgt = register_buffer("var_tgt", ones);  // BUG(libtorch-inplace-on-view)
  }
  torch::Tensor forward(const torch::Tensor& x, bool target_domain) {
    auto& mean = target_domain ? mean_tgt : mean_src;
    auto& var = target_domain ? var_tgt : var_src;
    return torch::batch_norm(x, weight, bias, mean, var, is_training(), 0.1, 1e-5, false);  // BUG(libtorch-inplace-on-view)
  }
  torch::Tensor weight, bias, mean_src, var_src, mean_tgt, var_tgt;
};
TORCH_MODULE(DomainBatchNorm);

int main() {
  torch::manual_seed(0);
  DomainBatchNorm bn(4);
  bn->train();
  // Source-domain batches only (mean ~5, std ~2).
  for (int it = 0; it < 20; ++it) {
    auto x = torch::randn({32, 4}) * 2.0 + 5.0;
    bn(x, /*target_domain=*/false);  // BUG(libtorch-inplace-on-view)
  }
  double tgt_mean = bn->mean_tgt.abs().max().item<double>();
  double tgt_var = (bn->var_tgt - 1.0).abs().max().item<double>();
  if (tgt_mean > 1e-6 || tgt_var > 1e-6) {
    std::cout << "HARM: target-domain statistics moved without a target batch: "
              << "mean " << bn->mean_tgt[0].item<double>() << ", var "
              << bn->var_tgt[0].item<double>() << " (expected 0 and 1)\n";
  } else {
    std::cout << "target-domain statistics untouched\n";
  }
  return 0;
}
