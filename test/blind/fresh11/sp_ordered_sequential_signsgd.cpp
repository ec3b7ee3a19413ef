// CASE: an iterative-refinement decoder (RAFT-style "apply the same update
//       block T times") is assembled as a Sequential from an
//       OrderedDict<std::string, AnyModule> that inserts one Linear under a
//       new name per iteration; a hand-written signSGD step over
//       decoder->parameters() then moves the shared weight once per listing
// SOURCE: the kind of code in weight-shared refinement decoders and
//         hand-rolled sign-based optimizers (signSGD / Lion ports)
// KIND: bug
// HARM: the shared refinement weight moves T * lr per element per step
#include <torch/torch.h>
#include <iostream>
#include <string>
#include <vector>

namespace refine {

torch::nn::Sequential make_decoder(torch::nn::Linear update, int iters) {
  torch::OrderedDict<std::string, torch::nn::AnyModule> stages;
  for (int t = 0; t < iters; ++t) {
    stages.insert("update_" + std::to_string(t), torch::nn::AnyModule(update));  // BUG(libtorch-shared-parameter-update)
    stages.insert("act_" + std::to_string(t), torch::nn::AnyModule(torch::nn::Tanh()));
  }
  return torch::nn::Sequential(std::move(stages));
}

class SignSGD {
 public:
  SignSGD(std::vector<torch::Tensor> params, double lr) : params_(std::move(params)), lr_(lr) {}
  void zero_grad() {
    for (auto& p : params_)
      if (p.grad().defined()) p.mutable_grad().zero_();
  }
  void step() {
    torch::NoGradGuard ng;
    for (auto& p : params_)
      if (p.grad().defined()) p.sub_(p.grad().sign(), lr_);  // BUG(libtorch-shared-parameter-update)
  }
 private:
  std::vector<torch::Tensor> params_;
  double lr_;
};

}  // namespace refine

int main() {
  torch::manual_seed(0);
  const int iters = 3;
  const double lr = 1e-2;
  torch::nn::Linear update(8, 8);
  auto decoder = refine::make_decoder(update, iters);
  refine::SignSGD opt(decoder->parameters(), lr);  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({32, 8});
  auto y = torch::randn({32, 8}).tanh();
  opt.zero_grad();
  torch::mse_loss(decoder->forward(x), y).backward();

  auto before = update->weight.detach().clone();
  opt.step();
  double moved = (update->weight.detach() - before).abs().max().item<double>();
  std::cout << "listed parameters: " << decoder->parameters().size()
            << ", max |dW| = " << moved << " (lr = " << lr << ")\n";
  if (moved > lr * 1.5)
    std::cout << "HARM: one signSGD step moved the shared weight by " << moved / lr
              << " * lr\n";
  return 0;
}
