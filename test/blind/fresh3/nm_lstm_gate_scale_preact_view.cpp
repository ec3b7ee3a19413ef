// CASE: a fused hand-written LSTM cell doubles the cell-candidate block of
//       its pre-activations in place through a narrow() view (addmm output,
//       which autograd does not save), applies one sigmoid, and builds the
//       tanh block out of place (2*s - 1) from a view of the sigmoid output
// SOURCE: fused-gate LSTM cells written by hand for libtorch with the
//       tanh-from-sigmoid trick
// KIND: near-miss
// WHY-OK: the in-place write goes to a tensor no backward function saved;
//       the sigmoid output is only read; gradients match an unfused cell
#include <torch/torch.h>

#include <iostream>

namespace {

constexpr int64_t kIn = 4, kHid = 3;

void double_candidate_block(torch::Tensor& pre) {
  auto g = pre.narrow(1, 2 * kHid, kHid);
  g.mul_(2);
}

std::pair<torch::Tensor, torch::Tensor> fused_cell(const torch::Tensor& x, const torch::Tensor& h, const torch::Tensor& c,
                                                   const torch::Tensor& w, const torch::Tensor& b) {
  auto pre = torch::addmm(b, torch::cat({x, h}, 1), w);
  double_candidate_block(pre);
  auto act = torch::sigmoid(pre);
  auto parts = act.chunk(4, 1);
  auto g = parts[2] * 2 - 1;
  auto c2 = parts[1] * c + parts[0] * g;
  return {parts[3] * torch::tanh(c2), c2};
}

std::pair<torch::Tensor, torch::Tensor> plain_cell(const torch::Tensor& x, const torch::Tensor& h, const torch::Tensor& c,
                                                   const torch::Tensor& w, const torch::Tensor& b) {
  auto parts = torch::addmm(b, torch::cat({x, h}, 1), w).chunk(4, 1);
  auto c2 = torch::sigmoid(parts[1]) * c + torch::sigmoid(parts[0]) * torch::tanh(parts[2]);
  return {torch::sigmoid(parts[3]) * torch::tanh(c2), c2};
}

template <typename Cell>
torch::Tensor grad_of_w(Cell cell) {
  torch::manual_seed(25);
  auto w = (torch::randn({kIn + kHid, 4 * kHid}) * 0.3).requires_grad_();
  auto b = torch::zeros({4 * kHid}, torch::requires_grad());
  auto x = torch::randn({2, 5, kIn});
  auto h = torch::zeros({2, kHid}), c = torch::zeros({2, kHid});
  for (int64_t t = 0; t < 5; ++t) std::tie(h, c) = cell(x.select(1, t), h, c, w, b);
  h.pow(2).sum().backward();
  return w.grad().clone();
}

}  // namespace

int main() {
  try {
    auto fused = grad_of_w(fused_cell);
    auto plain = grad_of_w(plain_cell);
    auto err = (fused - plain).abs().max().item<float>();
    std::cout << "gradient difference fused vs plain cell: " << err << "\n";
    if (err > 1e-5f) std::cout << "HARM: the fused cell's gradient is wrong\n";
  } catch (const std::exception& e) {
    std::cout << "HARM: backward failed: " << e.what() << "\n";
  }
  return 0;
}
