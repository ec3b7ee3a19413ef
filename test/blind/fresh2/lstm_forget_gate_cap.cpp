// CASE: a hand-written LSTM cell in an extension computes its gates with one
//       sigmoid and returns them as narrow() views in a Gates struct; the cell
//       then caps the forget gate in place with clamp_max_ to keep the memory
//       from saturating
// SOURCE: https://github.com/pytorch/pytorch/issues/9391
// KIND: bug
// HARM: backward throws, because sigmoid saved its output and the cap wrote
//       into it
#include <torch/torch.h>

#include <iostream>
#include <tuple>
#include <utility>

struct Gates {
  torch::Tensor input;
  torch::Tensor forget;
  torch::Tensor output;
  torch::Tensor candidate;
};

static Gates compute_gates(const torch::Tensor& x, const torch::Tensor& h,
                           const torch::Tensor& w, const torch::Tensor& b,
                           int64_t hidden) {
  auto z = torch::cat({x, h}, 1).mm(w).add(b);
  auto s = torch::sigmoid(z.narrow(1, 0, 3 * hidden));
  return {s.narrow(1, 0, hidden), s.narrow(1, hidden, hidden),
          s.narrow(1, 2 * hidden, hidden),
          torch::tanh(z.narrow(1, 3 * hidden, hidden))};
}

class CappedLSTMCell {
 public:
  CappedLSTMCell(int64_t in, int64_t hidden, double max_forget)
      : hidden_(hidden),
        max_forget_(max_forget),
        w_(torch::randn({in + hidden, 4 * hidden}).mul_(0.3).requires_grad_()),
        b_(torch::zeros({4 * hidden}).requires_grad_()) {}

  std::pair<torch::Tensor, torch::Tensor> step(const torch::Tensor& x,
                                               const torch::Tensor& h,
                                               const torch::Tensor& c) {
    Gates g = compute_gates(x, h, w_, b_, hidden_);
    g.forget.clamp_max_(max_forget_);  // BUG(libtorch-inplace-on-view)
    auto c2 = g.forget * c + g.input * g.candidate;
    auto h2 = g.output * torch::tanh(c2);
    return {h2, c2};
  }

  const torch::Tensor& weight() const { return w_; }

 private:
  int64_t hidden_;
  double max_forget_;
  torch::Tensor w_;
  torch::Tensor b_;
};

int main() {
  torch::manual_seed(0);
  CappedLSTMCell cell(5, 3, 0.9);
  auto h = torch::zeros({2, 3});
  auto c = torch::zeros({2, 3});
  for (int t = 0; t < 3; ++t) {
    std::tie(h, c) = cell.step(torch::randn({2, 5}), h, c);
  }
  try {
    h.pow(2).sum().backward();
    std::cout << "backward ran; |grad| = " << cell.weight().grad().norm().item<double>() << "\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: backward failed: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
