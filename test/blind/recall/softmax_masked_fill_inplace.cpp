// CASE: attention zeroes the padded key positions with masked_fill_ applied
//       to the probabilities returned by softmax, in place, before they are
//       multiplied with the values
// SOURCE: https://github.com/yashbonde/dall-e-baby/issues/1 ("Error detected in
//         SoftmaxBackward" from an in-place operation on the softmax output)
// KIND: bug
// HARM: backward throws because SoftmaxBackward's saved output was modified
#include <torch/torch.h>

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
  probs.masked_fill_(pad, 0.0);  // BUG(libtorch-detached-write)
  auto context = torch::matmul(probs, v_proj(x));
  try {
    context.pow(2).mean().backward();  // BUG(libtorch-detached-write)
    std::printf("backward succeeded\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
