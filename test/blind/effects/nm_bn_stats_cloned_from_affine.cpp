// CASE: a trainable batch-norm written by hand starts its running statistics
//       from the affine parameters' initial values with clone(), then calls
//       torch::nn::functional::batch_norm with training(true)
// SOURCE: the corrected form of the FrozenBatchNorm port (statistics and
//         affine terms as separate tensors)
// KIND: near-miss
// WHY-OK: each statistic is its own storage; batch_norm updates them in place
//         and the weight and bias keep their values
#include <torch/torch.h>

#include <cstdio>

namespace F = torch::nn::functional;

struct MyBNImpl : torch::nn::Module {
  explicit MyBNImpl(int64_t channels) {
    weight = register_parameter("weight", torch::ones({channels}));
    bias = register_parameter("bias", torch::zeros({channels}));
    running_mean = register_buffer("running_mean", bias.detach().clone());
    running_var = register_buffer("running_var", weight.detach().clone());
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return F::batch_norm(x, running_mean, running_var,
                         F::BatchNormFuncOptions().weight(weight).bias(bias).training(is_training()));
  }
  torch::Tensor weight, bias, running_mean, running_var;
};
TORCH_MODULE(MyBN);

int main() {
  torch::manual_seed(9);
  MyBN bn(4);
  bn->train();
  torch::Tensor y;
  for (int i = 0; i < 5; ++i) y = bn(torch::randn({32, 4}) * 3 + 5);
  const double bias_drift = bn->bias.detach().abs().max().item<double>();
  const double weight_drift = (bn->weight.detach() - 1).abs().max().item<double>();
  const double out_mean = y.detach().mean(0).abs().max().item<double>();
  std::printf("running_mean[0] = %.3f, bias drift %.3g, weight drift %.3g, output |mean| %.3g\n",
              bn->running_mean[0].item<float>(), bias_drift, weight_drift, out_mean);
  if (bias_drift > 0 || weight_drift > 0 || out_mean > 1e-4)
    std::printf("HARM: the affine parameters moved with the statistics\n");
  return 0;
}
