// CASE: an MLP uses one ReLU(ReLUOptions().inplace(true)) member after each
//       hidden linear layer, on the linear layer's fresh output
// SOURCE: the common ResNet/MLP idiom `nn.ReLU(inplace=True)` after a layer
// KIND: near-miss
// WHY-OK: a linear layer saves its input and weight, not its output; the
//         in-place ReLU rewrites a tensor nobody saved, then saves its own
//         result for the next layer, which sees the same version
#include <torch/torch.h>

#include <cstdio>

struct MLPImpl : torch::nn::Module {
  MLPImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(12, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, 32));
    out = register_module("out", torch::nn::Linear(32, 3));
    act = register_module("act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto h = act(fc1(x));
    h = act(fc2(h));
    return out(h);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
  torch::nn::ReLU act{nullptr};
};
TORCH_MODULE(MLP);

int main() {
  torch::manual_seed(18);
  MLP net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  auto x = torch::randn({16, 12});
  auto y = torch::randint(3, {16});
  try {
    opt.zero_grad();
    auto loss = torch::cross_entropy_loss(net(x), y);
    loss.backward();
    const double g = net->fc1->weight.grad().abs().sum().item<double>();
    opt.step();
    std::printf("step ran, loss %.4f, fc1 grad mass %.4f\n", loss.item<float>(), g);
    if (!(g > 0)) std::printf("HARM: no gradient reached fc1\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
