// CASE: the evaluation frame stack shifts out its oldest RGB frame with one
//       index_put_, but clones the source slice first, as the upstream fix
//       does
// SOURCE: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/226
//         (fix: `stacked_obs[:, shape_dim0:].clone()`)
// KIND: near-miss
// WHY-OK: the right-hand side owns its storage, so source and destination do
//         not overlap
#include <torch/torch.h>

#include <cstdio>

using torch::indexing::None;
using torch::indexing::Slice;

int main() {
  const int64_t c = 3, stack = 4;
  auto stacked = torch::zeros({1, c * stack, 5, 5});
  try {
    for (int t = 0; t < 6; ++t) {
      stacked.index_put_({Slice(), Slice(None, -c)}, stacked.index({Slice(), Slice(c, None)}).clone());
      stacked.index_put_({Slice(), Slice(-c, None)}, torch::full({1, c, 5, 5}, static_cast<float>(t)));
    }
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
    return 0;
  }
  bool ok = true;
  for (int64_t i = 0; i < stack; ++i)
    ok = ok && stacked.narrow(1, i * c, c).eq(static_cast<float>(2 + i)).all().item<bool>();
  std::printf("stack holds frames 2 3 4 5: %s\n", ok ? "yes" : "no");
  if (!ok) std::printf("HARM: frame stack corrupted\n");
  return 0;
}
