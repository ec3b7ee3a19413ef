// CASE: a classifier derives from an encoder module and, in its constructor,
//       registers the inherited projection a second time under a readable
//       name for the fine-tuning code; a hand-written SGD step over
//       parameters() then moves that projection twice
// SOURCE: the kind of code in libtorch fine-tuning projects where a derived
//         Impl re-exposes a base-class submodule with register_module
// KIND: bug
// HARM: the encoder projection moves by twice the SGD step
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <iostream>

struct EncoderImpl : torch::nn::Module {
  EncoderImpl() { proj = register_module("proj", torch::nn::Linear(4, 4)); }
  virtual ~EncoderImpl() = default;
  virtual torch::Tensor forward(torch::Tensor x) { return torch::relu(proj(x)); }
  torch::nn::Linear proj{nullptr};
};

struct ClassifierImpl : EncoderImpl {
  ClassifierImpl() {
    // expose the pretrained projection under the name used by the freeze config
    register_module("backbone_proj", proj);  // BUG(libtorch-shared-parameter-update)
    head = register_module("head", torch::nn::Linear(4, 3));
  }
  torch::Tensor forward(torch::Tensor x) override { return head(EncoderImpl::forward(x)); }
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Classifier);

namespace finetune {
void sgd_step(std::vector<torch::Tensor>& params, double lr) {
  torch::NoGradGuard no_grad;
  std::for_each(params.begin(), params.end(), [lr](torch::Tensor& p) {
    if (p.grad().defined()) p.add_(p.grad(), -lr);  // BUG(libtorch-shared-parameter-update)
  });
}
}  // namespace finetune

int main() {
  torch::manual_seed(11);
  Classifier model;
  auto x = torch::randn({16, 4});
  auto y = torch::randint(0, 3, {16});
  const double lr = 0.5;

  auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
  loss.backward();

  auto before = model->proj->weight.detach().clone();
  auto g = model->proj->weight.grad().clone();

  std::vector<torch::Tensor> params = model->parameters();  // BUG(libtorch-shared-parameter-update)
  finetune::sgd_step(params, lr);  // BUG(libtorch-shared-parameter-update)

  // how many SGD steps the projection actually moved (1 is right)
  const double steps = ((before - model->proj->weight.detach()) * g).sum().item<double>() /
                       (lr * (g * g).sum().item<double>());
  std::cout << params.size() << " tensors stepped, projection moved " << steps << " steps\n";
  if (std::abs(steps - 1.0) > 1e-3)
    std::cout << "HARM: the encoder projection moved " << steps
              << " SGD steps in one update (it is listed twice)\n";
  return 0;
}
