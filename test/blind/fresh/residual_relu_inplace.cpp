// CASE: a pre-activation residual block whose first ReLU is in-place and is
//       applied to the block input that the skip connection still holds
// SOURCE: discuss.pytorch.org threads "nn.ReLU(inplace=True) changes my
//         input" / residual connections broken by inplace ReLU
// KIND: bug
// HARM: the skip connection adds relu(x) instead of x: the block output is
//       silently wrong (no autograd error)
#include <torch/torch.h>

#include <iostream>

struct PreActBlockImpl : torch::nn::Module {
  explicit PreActBlockImpl(int64_t dim) {
    fc1 = register_module("fc1", torch::nn::Linear(dim, dim));
    fc2 = register_module("fc2", torch::nn::Linear(dim, dim));
    act = register_module("act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));  // BUG(libtorch-inplace-on-view)
  }
  torch::Tensor forward(torch::Tensor x) {
    auto identity = x;  // BUG(libtorch-inplace-on-view)
    auto out = act(x);  // BUG(libtorch-inplace-on-view)
    out = fc1(out);
    out = act(out);
    out = fc2(out);
    return out + identity;  // BUG(libtorch-inplace-on-view)
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
  auto y = block(h);  // BUG(libtorch-inplace-on-view)

  // What the block is meant to compute, from an untouched copy of its input.
  torch::Tensor expected;
  {
    torch::NoGradGuard no_grad;
    auto r = torch::relu(block->fc1(torch::relu(expected_h)));
    expected = block->fc2(r) + expected_h;
  }
  double diff = (y.detach() - expected).abs().max().item<double>();
  if (diff > 1e-6) {
    std::cout << "HARM: residual block output off by " << diff
              << " (the skip path carried relu(x))\n";
  } else {
    std::cout << "block output matches\n";
  }
  y.sum().backward();  // trains without complaint
  return 0;
}
