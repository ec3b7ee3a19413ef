// CASE: ULMFiT-style gradual unfreezing: at each stage the trainer makes the
//       top `depth` layers trainable and pushes their parameters into
//       opt.param_groups()[0].params(), but it remembers how deep it has
//       already unfrozen and pushes only the newly unfrozen layers
// SOURCE: the kind of code in C++ fine-tuning scripts that port fastai's
//         freeze_to()/gradual unfreezing onto torch::optim
// KIND: near-miss
// WHY-OK: every layer enters the group once, so SGD moves each parameter by
//         lr * grad per step

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <vector>

struct ClassifierImpl : torch::nn::Module {
  explicit ClassifierImpl(int64_t dim) {
    for (int i = 0; i < 3; ++i)
      layers.push_back(register_module("layer" + std::to_string(i), torch::nn::Linear(dim, dim)));
    head = register_module("head", torch::nn::Linear(dim, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (auto& layer : layers) x = torch::relu(layer->forward(x));
    return head->forward(x);
  }
  std::vector<torch::nn::Linear> layers;
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Classifier);

class GradualUnfreezer {
 public:
  GradualUnfreezer(Classifier model, torch::optim::Optimizer& opt) : model_(model), opt_(opt) {
    for (auto& layer : model_->layers)
      for (auto& p : layer->parameters()) p.requires_grad_(false);
  }

  // Makes the top `depth` backbone layers trainable.
  void freeze_to(int depth) {
    auto& group = opt_.param_groups()[0];
    const int n = static_cast<int>(model_->layers.size());
    for (int d = unfrozen_; d < depth && d < n; ++d) {
      for (auto& p : model_->layers[n - 1 - d]->parameters()) {
        p.requires_grad_(true);
        group.params().push_back(p);
      }
    }
    unfrozen_ = std::max(unfrozen_, std::min(depth, n));
  }

 private:
  Classifier model_;
  torch::optim::Optimizer& opt_;
  int unfrozen_ = 0;
};

int main() {
  torch::manual_seed(0);
  const int64_t dim = 8;
  const double lr = 0.05;
  Classifier model(dim);
  torch::optim::SGD opt(model->head->parameters(), torch::optim::SGDOptions(lr));
  GradualUnfreezer unfreezer(model, opt);

  auto x = torch::randn({32, dim});
  auto y = torch::randint(0, 2, {32});
  double ratio = 0.0;
  for (int stage = 1; stage <= 3; ++stage) {
    unfreezer.freeze_to(stage);
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
      loss.backward();
      torch::Tensor& top = model->layers.back()->weight;
      torch::Tensor before = top.detach().clone();
      torch::Tensor grad = top.grad().clone();
      opt.step();
      ratio = ((before - top.detach()).norm() / (lr * grad).norm()).item<double>();
    }
    std::printf("stage %d: top layer moved %.2f x lr*grad per step, %zu tensors in the group\n",
                stage, ratio, opt.param_groups()[0].params().size());
    if (ratio > 1.5)
      std::printf("HARM: the top layer moves %.2f x lr*grad per step\n", ratio);
  }
  return 0;
}
