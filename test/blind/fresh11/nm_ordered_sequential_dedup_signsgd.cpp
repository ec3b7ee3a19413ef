// CASE: an iterative-refinement decoder reuses one update Linear under a new
//       name per iteration in a Sequential built from an
//       OrderedDict<std::string, AnyModule>; the hand-written signSGD
//       optimizer sorts its list by TensorImpl* and drops duplicates with
//       std::unique before stepping
// SOURCE: the kind of code in weight-shared refinement decoders and
//         hand-rolled sign-based optimizers
// KIND: near-miss
// WHY-OK: after sort + unique each tensor is stepped once per step
#include <torch/torch.h>
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace refine {

torch::nn::Sequential make_decoder(torch::nn::Linear update, int iters) {
  torch::OrderedDict<std::string, torch::nn::AnyModule> stages;
  for (int t = 0; t < iters; ++t) {
    stages.insert("update_" + std::to_string(t), torch::nn::AnyModule(update));
    stages.insert("act_" + std::to_string(t), torch::nn::AnyModule(torch::nn::Tanh()));
  }
  return torch::nn::Sequential(std::move(stages));
}

std::vector<torch::Tensor> unique_tensors(std::vector<torch::Tensor> ps) {
  auto key = [](const torch::Tensor& t) { return t.unsafeGetTensorImpl(); };
  std::sort(ps.begin(), ps.end(), [&](const auto& a, const auto& b) {
    return std::less<c10::TensorImpl*>()(key(a), key(b));
  });
  ps.erase(std::unique(ps.begin(), ps.end(),
                       [](const auto& a, const auto& b) { return a.is_same(b); }),
           ps.end());
  return ps;
}

class SignSGD {
 public:
  SignSGD(std::vector<torch::Tensor> params, double lr)
      : params_(unique_tensors(std::move(params))), lr_(lr) {}
  void zero_grad() {
    for (auto& p : params_)
      if (p.grad().defined()) p.mutable_grad().zero_();
  }
  void step() {
    torch::NoGradGuard ng;
    for (auto& p : params_)
      if (p.grad().defined()) p.sub_(p.grad().sign(), lr_);
  }
 private:
  std::vector<torch::Tensor> params_;
  double lr_;
};

}  // namespace refine

int main() {
  torch::manual_seed(0);
  const double lr = 1e-2;
  torch::nn::Linear update(8, 8);
  auto decoder = refine::make_decoder(update, 3);
  refine::SignSGD opt(decoder->parameters(), lr);

  auto x = torch::randn({32, 8});
  auto y = torch::randn({32, 8}).tanh();
  opt.zero_grad();
  torch::mse_loss(decoder->forward(x), y).backward();
  auto before = update->weight.detach().clone();
  opt.step();
  double moved = (update->weight.detach() - before).abs().max().item<double>();
  std::cout << "max |dW| = " << moved << " (lr = " << lr << ")\n";
  if (moved > lr * 1.5)
    std::cout << "HARM: the shared weight moved " << moved / lr << " * lr\n";
  return 0;
}
