// CASE: a fused hand-written LSTM cell applies one sigmoid to all four gate
//       blocks, then turns the cell-candidate block into tanh in place
//       (tanh(x) = 2*sigmoid(2x) - 1) through a narrow() view of the sigmoid
//       output, in a helper that "fixes up" the gates
// SOURCE: fused-gate LSTM cells written by hand for libtorch (one
//       addmm + one activation over [B, 4H], as in cuDNN-style kernels)
//       with the tanh-from-sigmoid trick applied in place; cf.
//       https://github.com/Blealtan/efficient-kan/issues/22 (in-place write
//       to an AsStrided view of a saved output)
// KIND: bug
// HARM: backward() throws because the sigmoid output it saved was modified
#include <torch/torch.h>

#include <iostream>

namespace {

constexpr int64_t kIn = 4, kHid = 3;

// gates: sigmoid of [i | f | 2*g | o]; rewrites the g block to tanh(g).
void sigmoid_block_to_tanh(torch::Tensor& gates) {
  auto g = gates.narrow(1, 2 * kHid, kHid);  // BUG(libtorch-inplace-on-view)
  g.mul_(2).sub_(1);  // BUG(libtorch-inplace-on-view)
}

struct FusedCellImpl : torch::nn::Module {
  FusedCellImpl() {
    w = register_parameter("w", torch::randn({kIn + kHid, 4 * kHid}) * 0.3);
    b = register_parameter("b", torch::zeros({4 * kHid}));
    // scale applied to the pre-activation so the g block gets 2x
    scale = register_buffer("scale", torch::ones({4 * kHid}));
    scale.narrow(0, 2 * kHid, kHid).fill_(2.0);
  }

  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x, const torch::Tensor& h, const torch::Tensor& c) {
    auto pre = torch::addmm(b, torch::cat({x, h}, 1), w) * scale;
    auto gates = torch::sigmoid(pre);
    sigmoid_block_to_tanh(gates);  // BUG(libtorch-inplace-on-view)
    auto parts = gates.chunk(4, 1);
    auto c2 = parts[1] * c + parts[0] * parts[2];
    return {parts[3] * torch::tanh(c2), c2};
  }

  torch::Tensor w, b, scale;
};
TORCH_MODULE(FusedCell);

}  // namespace

int main() {
  torch::manual_seed(12);
  FusedCell cell;
  auto x = torch::randn({2, 5, kIn});
  auto h = torch::zeros({2, kHid}), c = torch::zeros({2, kHid});
  try {
    for (int64_t t = 0; t < 5; ++t) std::tie(h, c) = cell->forward(x.select(1, t), h, c);
    auto loss = h.pow(2).sum();
    loss.backward();
    std::cout << "grad norm " << cell->w.grad().norm().item<float>() << "\n";
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::cout << "HARM: backward through the fused cell failed: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
