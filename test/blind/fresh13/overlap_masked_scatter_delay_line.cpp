// CASE: a sample-by-sample FIR equaliser keeps its delay line in a tensor
//       and shifts it by one tap with taps_.masked_scatter_(not_head_, taps_)
//       ("copy the line into every slot but the first"), then writes the new
//       sample at the head; masked_scatter_ reads its source sequentially,
//       and the source is the tensor it is overwriting
// SOURCE: the kind of code in C++ real-time audio / modem DSP blocks that
//         port a numpy delay line to libtorch without allocating per sample
// KIND: bug
// HARM: the filter output differs from conv1d of the same signal

#include <torch/torch.h>

#include <cstdio>
#include <vector>

class FirEqualiser {
 public:
  explicit FirEqualiser(torch::Tensor coeffs)
      : coeffs_(std::move(coeffs)),
        taps_(torch::zeros({coeffs_.size(0)})),
        not_head_(torch::arange(coeffs_.size(0)) > 0) {}

  float process(float sample) {
    // Shift the delay line by one: taps_[i] <- taps_[i - 1].
    taps_.masked_scatter_(not_head_, taps_);  // BUG(libtorch-overlapping-inplace)
    taps_[0] = sample;
    return taps_.dot(coeffs_).item<float>();
  }

 private:
  torch::Tensor coeffs_;
  torch::Tensor taps_;
  torch::Tensor not_head_;
};

int main() {
  torch::manual_seed(0);
  const int64_t order = 8, n = 64;
  auto coeffs = torch::softmax(torch::randn({order}), 0);
  auto signal = torch::sin(0.2 * torch::arange(n, torch::kFloat)) + 0.1 * torch::randn({n});

  FirEqualiser eq(coeffs);
  std::vector<float> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(eq.process(signal[i].item<float>()));
  auto got = torch::tensor(out);

  // y[t] = sum_k c[k] x[t - k]
  auto padded = torch::cat({torch::zeros({order - 1}), signal}).view({1, 1, -1});
  auto expected = torch::conv1d(padded, coeffs.flip(0).view({1, 1, -1})).view({-1});
  double err = (got - expected).abs().max().item<double>();
  std::printf("max deviation from conv1d: %.4f\n", err);
  if (err > 1e-4)
    std::printf("HARM: the equaliser output deviates from the FIR response by up to "
                "%.4f (the delay line shift overwrote its own source)\n", err);
  return 0;
}
