// CASE: a 1-D circular padding helper for a periodic-signal conv net writes
//       the signal into the middle of a fresh (N, C, W + 2p) buffer, then
//       fills the left border from the right end of that same buffer and the
//       right border from its left end with narrow(...).copy_(narrow(...))
// SOURCE: the kind of code in aten/src/ATen/native/PadNd.cpp
//         (_pad_circular: out.slice(...).copy_(out.slice(...))) and its
//         hand-rolled copies in libtorch audio / weather-model projects
// KIND: near-miss
// WHY-OK: with pad <= width (checked), the border ranges [0, p) and
//         [W + p, W + 2p) never overlap their sources [W, W + p) and
//         [p, 2p), and the buffer is this function's own
#include <torch/torch.h>
#include <iostream>

torch::Tensor pad_circular_1d(const torch::Tensor& x, int64_t pad) {
  const int64_t width = x.size(2);
  TORCH_CHECK(pad >= 0 && pad <= width, "circular padding wider than the signal");
  auto padded = torch::empty({x.size(0), x.size(1), width + 2 * pad}, x.options());
  padded.narrow(2, pad, width).copy_(x);
  if (pad > 0) {
    padded.narrow(2, 0, pad).copy_(padded.narrow(2, width, pad));
    padded.narrow(2, width + pad, pad).copy_(padded.narrow(2, pad, pad));
  }
  return padded;
}

int main() {
  auto x = torch::arange(2 * 3 * 6, torch::kFloat).view({2, 3, 6});
  for (int64_t p : {1, 3, 6}) {
    auto mine = pad_circular_1d(x, p);
    namespace F = torch::nn::functional;
    auto ref = F::pad(x, F::PadFuncOptions({p, p}).mode(torch::kCircular));
    std::cout << "pad " << p << ": " << mine.sizes() << " matches F::pad: " << std::boolalpha
              << mine.equal(ref) << "\n";
  }
  auto conv = torch::nn::Conv1d(torch::nn::Conv1dOptions(3, 4, 3));
  auto y = conv(pad_circular_1d(x, 1));
  std::cout << "conv out " << y.sizes() << "\n";
  return 0;
}
