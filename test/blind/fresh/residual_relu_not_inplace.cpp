// CASE: a pre-activation residual block whose ReLU is explicitly
//       inplace(false), applied to the block input the skip connection holds
// SOURCE: the fix given in discuss.pytorch.org threads on "nn.ReLU(inplace=True)
//         changes my input" in residual blocks
// KIND: near-miss
// WHY-OK: the ReLU returns a new tensor, so the skip connection still adds
//         the untouched block input
#include <torch/torch.h>

#include <iostream>

struct PreActBlockImpl : torch::nn::Module {
  explicit PreActBlockImpl(int64_t dim) {
    fc1 = register_module("fc1", torch::nn::Linear(dim, dim));
    fc2 = register_module("fc2", torch::nn::Linear(dim, dim));
    act = register_module("act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(false)));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto identity = x;
    auto out = act(x);
    out = fc1(out);
    out = act(out);
    out = fc2(out);
    return out + identity;
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::ReLU act{nullptr};
};
TORCH_MODULE(PreActBlock);

int main() {
  torch::manual_seed(0);
  torch::nn::Linear stem(6, 16);
  PreActBlock block(16);
  auto input = torch::randn({8, 6});

  auto h = stem(input);
  auto expected_h = h.detach().clone();
  auto y = block(h);

  torch::Tensor expected;
  {
    torch::NoGradGuard no_grad;
    auto r = torch::relu(block->fc1(torch::relu(expected_h)));
    expected = block->fc2(r) + expected_h;
  }
  double diff = (y.detach() - expected).abs().max().item<double>();
  std::cout << (diff < 1e-6 ? "ok: " : "MISMATCH: ")
            << "residual block output matches (max diff " << diff << ")\n";
  y.sum().backward();
  return 0;
}
