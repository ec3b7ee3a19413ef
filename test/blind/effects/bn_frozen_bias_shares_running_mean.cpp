// CASE: a hand-written batch-norm layer (detectron-style FrozenBatchNorm
//       turned trainable) registers its affine buffers and its statistics
//       from one zeros and one ones tensor, then calls torch::batch_norm with
//       training=true
// SOURCE: the kind of code ported from detectron2's FrozenBatchNorm2d;
//         https://github.com/pytorch/pytorch/issues/46808 (batch_norm writes
//         running_mean/running_var in place although they look like inputs)
// KIND: bug
// HARM: the layer's bias and weight drift with the running statistics, so
//       the output is no longer normalised to mean 0
#include <torch/torch.h>

#include <cstdio>

struct AffineBNImpl : torch::nn::Module {
  explicit AffineBNImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    auto ones = torch::ones({channels});
    weight = register_buffer("weight", ones);
    bias = register_buffer("bias", zeros);
    running_mean = register_buffer("running_mean", zeros);  // BUG(libtorch-overlapping-inplace)
    running_var = register_buffer("running_var", ones);  // BUG(libtorch-overlapping-inplace)
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::batch_norm(x, weight, bias, running_mean, running_var,  // BUG(libtorch-overlapping-inplace)
                             is_training(), /*momentum=*/0.1, /*eps=*/1e-5,
                             /*cudnn_enabled=*/false);
  }
  torch::Tensor weight, bias, running_mean, running_var;
};
TORCH_MODULE(AffineBN);

int main() {
  torch::manual_seed(3);
  AffineBN bn(4);
  bn->train();
  torch::Tensor y;
  for (int step = 0; step < 5; ++step) {
    auto x = torch::randn({32, 4}) * 3 + 5;
    y = bn(x);
  }
  const double bias_drift = bn->bias.abs().max().item<double>();
  const double out_mean = y.mean(0).abs().max().item<double>();
  std::printf("bias max |b| = %.4f, output |mean| = %.4f\n", bias_drift, out_mean);
  if (bias_drift > 1e-6)
    std::printf("HARM: bias moved with running_mean to %.4f; output mean %.4f instead of 0\n",
                bias_drift, out_mean);
  return 0;
}
