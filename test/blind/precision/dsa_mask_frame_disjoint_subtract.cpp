// CASE: digital subtraction angiography preprocessing: frame 0 of an X-ray
//       sequence is the mask (no contrast agent); every later frame has the
//       mask subtracted in place with
//       `seq.narrow(0, 1, n - 1).sub_(seq.select(0, 0))`, the mask frame
//       itself is kept, and the result is windowed with clamp_ on the same
//       narrow()
// SOURCE: the kind of code in libtorch medical-imaging preprocessing
//         (MONAI-style transforms ported to C++ for scanner-side inference)
// KIND: near-miss
// WHY-OK: rows [1, n) and row 0 are disjoint, so the operand is never
//         written; `seq` is this function's own float copy of the input
#include <torch/torch.h>
#include <iostream>

torch::Tensor subtract_mask_frame(const torch::Tensor& raw_u16_as_i32, double window) {
  auto seq = torch::log1p(raw_u16_as_i32.to(torch::kFloat));  // own copy, log domain
  const int64_t n = seq.size(0);
  TORCH_CHECK(n >= 2, "need a mask frame and at least one contrast frame");
  auto contrast = seq.narrow(0, 1, n - 1);
  contrast.sub_(seq.select(0, 0));
  contrast.clamp_(-window, window);
  return seq;
}

int main() {
  auto raw = torch::full({5, 32, 32}, 1000, torch::kInt);
  raw.narrow(0, 2, 3).narrow(1, 10, 4).fill_(400);  // a vessel appears from frame 2 on
  auto raw_before = raw.clone();
  auto dsa = subtract_mask_frame(raw, 2.0);
  std::cout << "mask frame kept: " << dsa[0][0][0].item<float>() << " (log1p(1000) = "
            << std::log1p(1000.0) << ")\n";
  std::cout << "background residual " << dsa[3][0][0].item<float>() << ", vessel residual "
            << dsa[3][11][0].item<float>() << "\n";
  std::cout << "raw untouched: " << std::boolalpha << raw.equal(raw_before) << "\n";
  return 0;
}
