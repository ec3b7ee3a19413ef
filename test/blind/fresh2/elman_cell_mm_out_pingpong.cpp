// CASE: an inference-only Elman RNN in a C++ extension updates its hidden
//       state without allocating: at::mm_out writes h * W_hh into a second
//       preallocated buffer, the input projection, bias and tanh_ are applied
//       there, and the two buffers are swapped
// SOURCE: https://github.com/pytorch/pytorch/issues/85852
// KIND: near-miss
// WHY-OK: mm_out writes into the spare buffer, never into the hidden state
//         it reads (ping-pong buffers)
#include <torch/torch.h>

#include <iostream>
#include <utility>

class ElmanCell {
 public:
  ElmanCell(int64_t in, int64_t hidden)
      : w_ih_(torch::randn({in, hidden}) * 0.5),
        w_hh_(torch::randn({hidden, hidden}) * 0.5),
        b_(torch::randn({hidden}) * 0.1) {}

  // h <- tanh(h W_hh + x W_ih + b), computed in `spare`, then swapped.
  void step(torch::Tensor& h, torch::Tensor& spare, const torch::Tensor& x) const {
    at::mm_out(spare, h, w_hh_);
    spare.addmm_(x, w_ih_).add_(b_).tanh_();
    std::swap(h, spare);
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
  auto spare = torch::empty_like(h);
  auto expected = h.clone();
  for (int t = 0; t < 3; ++t) {
    auto x = torch::randn({4, 8});
    expected = cell.reference(expected, x);
    cell.step(h, spare, x);
  }
  double err = (h - expected).abs().max().item<double>();
  std::cout << "max error in the hidden state: " << err << "\n";
  if (err > 1e-4) {
    std::cout << "HARM: the in-place mm_out produced a wrong hidden state (error " << err << ")\n";
  }
  return 0;
}
