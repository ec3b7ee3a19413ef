// CASE: a multi-task head shares one in-place ReLU member; it applies it to
//       the trunk features for the auxiliary branch after the main classifier
//       has already consumed those features
// SOURCE: https://discuss.pytorch.org/t/whats-the-difference-between-nn-relu-and-nn-relu-inplace-true/948
//         ("may not always be a valid operation (because the original input
//         is destroyed)"): here a layer already saved that input
// KIND: bug
// HARM: backward throws "modified by an inplace operation": the classifier's
//       linear saved the features and the in-place ReLU rewrote them
#include <torch/torch.h>

#include <cstdio>

struct MultiTaskImpl : torch::nn::Module {
  MultiTaskImpl() {
    trunk = register_module("trunk", torch::nn::Linear(12, 24));
    cls_head = register_module("cls_head", torch::nn::Linear(24, 3));
    aux_head = register_module("aux_head", torch::nn::Linear(24, 1));
    act = register_module("act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  }
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) {
    auto feat = trunk(x);
    auto logits = cls_head(feat);  // BUG(libtorch-detached-write)
    auto aux = aux_head(act(feat));  // BUG(libtorch-detached-write)
    return {logits, aux};
  }
  torch::nn::Linear trunk{nullptr}, cls_head{nullptr}, aux_head{nullptr};
  torch::nn::ReLU act{nullptr};
};
TORCH_MODULE(MultiTask);

int main() {
  torch::manual_seed(18);
  MultiTask net;
  torch::optim::SGD opt(net->parameters(), 0.1);
  auto x = torch::randn({16, 12});
  auto y = torch::randint(3, {16});
  auto r = torch::randn({16, 1});
  try {
    opt.zero_grad();
    auto [logits, aux] = net(x);
    auto loss = torch::cross_entropy_loss(logits, y) + torch::mse_loss(aux, r);
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::printf("step ran, loss %.4f\n", loss.item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
