// CASE: multi-task regression heads share a low-rank basis: the trunk makes
//       one basis tensor and passes it to every LowRankHead constructor,
//       which registers it as its own parameter; model->parameters() lists
//       the basis once per head and torch::optim::SGD (with weight decay)
//       applies its update once per listing
// SOURCE: the kind of code in multi-task / LoRA-style shared-basis heads
//         (tensors passed into module constructors and registered there)
// KIND: bug
// HARM: the shared basis takes one SGD step per head in each opt.step()
#include <torch/torch.h>
#include <iostream>
#include <vector>

namespace mtl {

struct LowRankHeadImpl : torch::nn::Module {
  LowRankHeadImpl(torch::Tensor basis, int64_t rank) {
    basis_ = register_parameter("basis", basis);  // BUG(libtorch-shared-parameter-update)
    coef_ = register_parameter("coef", torch::randn({rank, 1}) * 0.1);
  }
  torch::Tensor forward(const torch::Tensor& h) {
    return h.matmul(basis_).matmul(coef_);
  }
  torch::Tensor basis_, coef_;
};
TORCH_MODULE(LowRankHead);

struct MultiTaskImpl : torch::nn::Module {
  MultiTaskImpl(int64_t in, int64_t rank, int tasks) {
    trunk = register_module("trunk", torch::nn::Linear(in, in));
    auto basis = torch::randn({in, rank}) * 0.1;
    for (int t = 0; t < tasks; ++t)
      heads.push_back(register_module("head" + std::to_string(t), LowRankHead(basis, rank)));  // BUG(libtorch-shared-parameter-update)
  }
  std::vector<torch::Tensor> forward(const torch::Tensor& x) {
    auto h = torch::relu(trunk->forward(x));
    std::vector<torch::Tensor> outs;
    for (auto& head : heads) outs.push_back(head->forward(h));
    return outs;
  }
  torch::nn::Linear trunk{nullptr};
  std::vector<LowRankHead> heads;
};
TORCH_MODULE(MultiTask);

}  // namespace mtl

int main() {
  torch::manual_seed(0);
  const int tasks = 3;
  const double lr = 0.1, wd = 1e-2;
  mtl::MultiTask model(6, 2, tasks);
  torch::optim::SGD opt(model->parameters(),  // BUG(libtorch-shared-parameter-update)
                        torch::optim::SGDOptions(lr).weight_decay(wd));
  auto x = torch::randn({20, 6});
  std::vector<torch::Tensor> ys = {torch::randn({20, 1}), torch::randn({20, 1}), torch::randn({20, 1})};

  auto outs = model->forward(x);
  auto loss = torch::zeros({});
  for (int t = 0; t < tasks; ++t) loss = loss + torch::mse_loss(outs[t], ys[t]);
  opt.zero_grad();
  loss.backward();

  auto basis = model->heads[0]->basis_;
  auto expected = basis.detach() - lr * (basis.grad() + wd * basis.detach());
  opt.step();  // BUG(libtorch-shared-parameter-update)
  double err = (basis.detach() - expected).abs().max().item<double>();
  std::cout << "max deviation of the basis from one SGD step: " << err << "\n";
  if (err > 1e-6)
    std::cout << "HARM: the shared basis was stepped " << tasks << " times (deviation "
              << err << ")\n";
  return 0;
}
