// CASE: an exported inference graph calls at::batch_norm with training=false
//       and hands the same zeros tensor as bias and running_mean, and the
//       same ones tensor as weight and running_var (an identity-initialised
//       normalisation that is later loaded from a checkpoint)
// SOURCE: the kind of code in hand-ported inference engines (a module built
//         before its state is loaded)
// KIND: near-miss
// WHY-OK: with training=false batch_norm only reads its statistics; nothing
//         is written, so sharing one tensor between the slots is harmless
#include <ATen/ATen.h>
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(7);
  const int64_t c = 6;
  auto zeros = at::zeros({c});
  auto ones = at::ones({c});
  auto x = at::randn({16, c, 5}) * 2 + 1;
  at::Tensor y;
  for (int i = 0; i < 3; ++i)
    y = at::batch_norm(x, /*weight=*/ones, /*bias=*/zeros, /*running_mean=*/zeros,
                       /*running_var=*/ones, /*training=*/false, 0.1, 1e-5, false);
  const double drift = zeros.abs().max().item<double>() + (ones - 1).abs().max().item<double>();
  const double err = (y - x / std::sqrt(1 + 1e-5)).abs().max().item<double>();
  std::printf("statistics drift %.3g, output error %.3g\n", drift, err);
  if (drift > 0 || err > 1e-5) std::printf("HARM: eval batch_norm wrote its statistics\n");
  return 0;
}
