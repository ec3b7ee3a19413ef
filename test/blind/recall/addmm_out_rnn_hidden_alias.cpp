// CASE: a hand-rolled Elman RNN updates its hidden state buffer in place with
//       at::addmm_out(h, b, h, W_hh), the hidden state being both the output
//       and the first matrix operand, then applies tanh_
// SOURCE: https://github.com/pytorch/pytorch/issues/48900 ("addmm with out=
//         argument returns incorrect result" when out is the input matrix)
// KIND: bug
// HARM: the hidden states differ from tanh(b + h @ W_hh) (measured: silently)
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(31);
  const int64_t batch = 3, hidden = 5;
  auto W_hh = torch::randn({hidden, hidden}) * 0.5;
  auto b = torch::randn({hidden}) * 0.1;
  auto h = torch::randn({batch, hidden});
  auto expected = h.clone();

  for (int t = 0; t < 3; ++t) {
    expected = torch::tanh(torch::addmm(b, expected, W_hh));
    try {
      at::addmm_out(h, b, h, W_hh);  // BUG(libtorch-overlapping-inplace)
    } catch (const c10::Error& e) {
      std::printf("HARM: addmm_out threw: %s\n", e.what_without_backtrace());
      return 0;
    }
    h.tanh_();
  }
  const double err = (h - expected).abs().max().item<double>();
  std::printf("hidden-state error after 3 steps: %.6g\n", err);
  if (err > 1e-5) std::printf("HARM: aliased addmm_out gave wrong hidden states (error %.6g)\n", err);
  return 0;
}
