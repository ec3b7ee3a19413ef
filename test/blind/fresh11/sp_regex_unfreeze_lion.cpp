// CASE: a fine-tuning script selects trainable parameters with a list of
//       std::regex patterns ("the last encoder layer" and "every bias"),
//       appending each named parameter once per pattern it matches into a
//       c10::List<at::Tensor>; a hand-written Lion optimizer then updates
//       encoder.layer2.bias twice per step
// SOURCE: the kind of code in partial fine-tuning scripts (regex unfreeze
//         rules) paired with hand-ported optimizers such as Lion
// KIND: bug
// HARM: the bias that matches both patterns moves 2 * lr per element
#include <torch/torch.h>
#include <ATen/core/List.h>
#include <iostream>
#include <regex>
#include <unordered_map>

namespace finetune {

c10::List<at::Tensor> select_trainable(torch::nn::Module& model,
                                       const std::vector<std::regex>& rules) {
  c10::List<at::Tensor> out;
  for (const auto& rule : rules)
    for (const auto& item : model.named_parameters())
      if (std::regex_match(item.key(), rule)) out.push_back(item.value());  // BUG(libtorch-shared-parameter-update)
  return out;
}

class Lion {
 public:
  Lion(c10::List<at::Tensor> params, double lr, double b1 = 0.9, double b2 = 0.99)
      : params_(std::move(params)), lr_(lr), b1_(b1), b2_(b2) {}
  void step() {
    torch::NoGradGuard ng;
    for (size_t i = 0; i < params_.size(); ++i) {
      at::Tensor p = params_.get(i);
      auto& m = state_.try_emplace(p.unsafeGetTensorImpl(), torch::zeros_like(p)).first->second;
      auto update = (m * b1_ + p.grad() * (1 - b1_)).sign();
      p.add_(update, -lr_);  // BUG(libtorch-shared-parameter-update)
      m.mul_(b2_).add_(p.grad(), 1 - b2_);
    }
  }
 private:
  c10::List<at::Tensor> params_;
  double lr_, b1_, b2_;
  std::unordered_map<c10::TensorImpl*, torch::Tensor> state_;
};

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() {
    encoder = register_module("encoder", torch::nn::Sequential(
        torch::nn::Linear(4, 8), torch::nn::ReLU(), torch::nn::Linear(8, 8)));
    head = register_module("head", torch::nn::Linear(8, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) { return head->forward(encoder->forward(x)); }
  torch::nn::Sequential encoder{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Classifier);

}  // namespace finetune

int main() {
  torch::manual_seed(0);
  finetune::Classifier model;

  std::vector<std::regex> rules = {std::regex(R"(encoder\.2\..*)"), std::regex(R"(.*\.bias)")};
  auto trainable = finetune::select_trainable(*model, rules);
  const double lr = 1e-3;
  finetune::Lion opt(trainable, lr);  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({16, 4}), y = torch::randn({16, 1});
  torch::mse_loss(model->forward(x), y).backward();
  auto bias = model->encoder[2]->as<torch::nn::Linear>()->bias;
  auto before = bias.detach().clone();
  opt.step();  // BUG(libtorch-shared-parameter-update)
  double moved = (bias.detach() - before).abs().max().item<double>();
  std::cout << "trainable tensors: " << trainable.size() << ", |d bias| = " << moved << "\n";
  if (moved > 1.5 * lr)
    std::cout << "HARM: encoder.2.bias moved " << moved / lr << " * lr in one Lion step\n";
  return 0;
}
