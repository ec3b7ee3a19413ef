// CASE: incremental decoding keeps the query from qkv.chunk(3) of the
//       previous step for a cache-consistency check, but the qkv buffer is
//       reused and refilled in place for the new token before the check
// SOURCE: https://applied-material-modeling.github.io/neml2/tutorials-tensors-tensor-view.html
//         (views share the base's data: "Who touched my data?")
// KIND: bug
// HARM: the check compares the new query with itself and reports no drift
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(33);
  const int64_t d = 8;
  torch::nn::Linear qkv_proj(d, 3 * d);
  torch::NoGradGuard no_grad;
  auto qkv = torch::empty({1, 3 * d});

  auto token0 = torch::randn({1, d});
  qkv.copy_(qkv_proj(token0));
  auto prev_q = qkv.chunk(3, -1)[0];  // BUG(libtorch-inplace-on-view)
  auto prev_q_value = prev_q.clone();

  auto token1 = torch::randn({1, d});
  qkv.copy_(qkv_proj(token1));  // BUG(libtorch-inplace-on-view)
  auto q = qkv.chunk(3, -1)[0];

  const double drift = (q - prev_q).abs().max().item<double>();  // BUG(libtorch-inplace-on-view)
  const double true_drift = (q - prev_q_value).abs().max().item<double>();
  std::printf("query drift measured %.6g, true drift %.6g\n", drift, true_drift);
  if (drift != true_drift) std::printf("HARM: the previous query view was overwritten by the refill\n");
  return 0;
}
