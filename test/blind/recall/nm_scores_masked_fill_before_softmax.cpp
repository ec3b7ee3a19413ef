// CASE: causal attention masks the raw scores in place with masked_fill_
//       before softmax; the scores come from a matmul and a division, whose
//       backward functions do not save their outputs
// SOURCE: https://sachinkalsi.github.io/blog/why-do-we-use-negative-inf-for-masking
//         (mask the scores with -inf before softmax)
// KIND: near-miss
// WHY-OK: no backward node needs the unmasked scores, so the in-place write
//         leaves every saved tensor at its saved version
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <limits>

int main() {
  torch::manual_seed(34);
  const int64_t T = 6, D = 8;
  torch::nn::Linear q_proj(D, D), k_proj(D, D);
  auto x = torch::randn({2, T, D});
  auto future = torch::ones({T, T}, torch::kBool).triu(1);

  auto scores = torch::matmul(q_proj(x), k_proj(x).transpose(1, 2)) / std::sqrt(static_cast<double>(D));
  scores.masked_fill_(future, -std::numeric_limits<float>::infinity());
  auto probs = torch::softmax(scores, -1);
  try {
    probs.select(1, T - 1).sum().backward();
    const double upper = probs.masked_select(future).abs().max().item<double>();
    std::printf("backward succeeded; max future weight %.3g\n", upper);
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
