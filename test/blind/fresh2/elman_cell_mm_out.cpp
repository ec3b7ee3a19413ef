// CASE: an inference-only Elman RNN in a C++ extension updates its hidden
//       state without allocating: at::mm_out writes h * W_hh back into h,
//       then the input projection and bias are added and tanh_ is applied
// SOURCE: https://github.com/pytorch/pytorch/issues/85852
// KIND: bug
// HARM: mm_out's output is also its first input, so the matrix product reads
//       a hidden state it is overwriting and the new state is wrong
#include <torch/torch.h>

#include <iostream>

class ElmanCell {
 public:
  ElmanCell(int64_t in, int64_t hidden)
      : w_ih_(torch::randn({in, hidden}) * 0.5),
        w_hh_(torch::randn({hidden, hidden}) * 0.5),
        b_(torch::randn({hidden}) * 0.1) {}

  // h <- tanh(h W_hh + x W_ih + b), in place.
  void step(torch::Tensor& h, const torch::Tensor& x) const {
    at::mm_out(h, h, w_hh_);  // BUG(libtorch-overlapping-inplace)
    h.addmm_(x, w_ih_).add_(b_).tanh_();
  }

  torch::Tensor reference(const torch::Tensor& h, const torch::Tensor& x) const {
    return torch::tanh(h.mm(w_hh_) + x.mm(w_ih_) + b_);
  }

 private:
  torch::Tensor w_ih_;
  torch::Tensor w_hh_;
  torch::Tensor b_;
};

int main() {
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  ElmanCell cell(8, 32);
  auto h = torch::randn({4, 32});
  auto expected = h.clone();
  for (int t = 0; t < 3; ++t) {
    auto x = torch::randn({4, 8});
    expected = cell.reference(expected, x);
    cell.step(h, x);
  }
  double err = (h - expected).abs().max().item<double>();
  std::cout << "max error in the hidden state: " << err << "\n";
  if (err > 1e-4) {
    std::cout << "HARM: the in-place mm_out produced a wrong hidden state (error " << err << ")\n";
  }
  return 0;
}
