// CASE: fine-tuning with gradual unfreezing: the optimizer is built from the
//       whole model, and at the unfreeze epoch the backbone is added again
//       with add_param_group to give it its own learning rate
// SOURCE: https://github.com/rll-research/url_benchmark/issues/11 (encoder
//         parameters updated twice per iteration by two optimizer entries);
//         Python's add_param_group rejects this ("some parameters appear in
//         more than one parameter group"), libtorch 1.13 does not
// KIND: bug
// HARM: each backbone weight is stepped with both learning rates
#include <torch/torch.h>

#include <cstdio>
#include <memory>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() {
    backbone = register_module("backbone", torch::nn::Sequential(torch::nn::Linear(10, 16), torch::nn::ReLU()));
    head = register_module("head", torch::nn::Linear(16, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) { return head(backbone->forward(x)); }
  torch::nn::Sequential backbone{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Classifier);

int main() {
  torch::manual_seed(14);
  Classifier model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));  // BUG(libtorch-shared-parameter-update)
  auto x = torch::randn({20, 10});
  auto y = torch::randint(3, {20});

  const int unfreeze_epoch = 1;
  for (int epoch = 0; epoch < 2; ++epoch) {
    if (epoch == unfreeze_epoch) {
      auto backbone_group = torch::optim::OptimizerParamGroup(
          model->backbone->parameters(), std::make_unique<torch::optim::SGDOptions>(0.01));
      opt.add_param_group(backbone_group);  // BUG(libtorch-shared-parameter-update)
    }
    opt.zero_grad();
    torch::cross_entropy_loss(model(x), y).backward();
    auto w = model->backbone->parameters()[0];
    auto before = w.detach().clone();
    auto g = w.grad().clone();
    opt.step();  // BUG(libtorch-shared-parameter-update)
    if (epoch == unfreeze_epoch) {
      auto expected = before - 0.1 * g;  // one step, in one group
      const double err = (w.detach() - expected).abs().max().item<double>();
      std::printf("epoch %d backbone error %.6g\n", epoch, err);
      if (err > 1e-7) std::printf("HARM: backbone stepped by both parameter groups (error %.6g)\n", err);
    }
  }
  return 0;
}
