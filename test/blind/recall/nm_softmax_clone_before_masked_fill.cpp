// CASE: attention zeroes padded key positions after softmax, but on a clone
//       of the probabilities, and renormalises the clone
// SOURCE: https://github.com/sniklaus/softmax-splatting/issues/50 (cloning the
//         tensor that autograd saved removes the in-place conflict)
// KIND: near-miss
// WHY-OK: masked_fill_ writes the clone; SoftmaxBackward's saved output is
//         untouched
#include <torch/torch.h>

#include <cmath>
#include <cstdio>

int main() {
  torch::manual_seed(26);
  const int64_t B = 2, T = 5, D = 8;
  torch::nn::Linear q_proj(D, D), k_proj(D, D), v_proj(D, D);
  auto x = torch::randn({B, T, D});
  auto pad = torch::zeros({B, 1, T}, torch::kBool);
  pad.index_put_({1, 0, torch::indexing::Slice(3, torch::indexing::None)}, true);

  auto scores = torch::matmul(q_proj(x), k_proj(x).transpose(1, 2)) / std::sqrt(static_cast<double>(D));
  auto probs = torch::softmax(scores, -1);
  auto masked = probs.clone();
  masked.masked_fill_(pad, 0.0);
  masked = masked / masked.sum(-1, /*keepdim=*/true);
  auto context = torch::matmul(masked, v_proj(x));
  try {
    context.pow(2).mean().backward();
    std::printf("backward succeeded\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
