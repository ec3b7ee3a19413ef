// CASE: a Trainer that holds a reference to the model and, inside its step,
//       rescales every weight matrix through detach() (a cheap spectral-norm
//       bound) after the forward and before backward
// SOURCE: the kind of code in training utilities that enforce a Lipschitz
//         bound by rescaling weights each step; the error is the one of the
//         "modified by an inplace operation" threads on discuss.pytorch.org
// KIND: bug
// HARM: backward throws "modified by an inplace operation": detach() shares
//       the version counter, so the rescale invalidates the saved weights
#include <torch/torch.h>

#include <iostream>
#include <string>

class Trainer {
 public:
  Trainer(torch::nn::Sequential& model, double lr)
      : model_(model), opt_(model->parameters(), torch::optim::SGDOptions(lr)) {}

  double train_step(const torch::Tensor& x, const torch::Tensor& y) {
    opt_.zero_grad();
    auto pred = model_->forward(x);  // BUG(libtorch-detached-write)
    auto loss = torch::mse_loss(pred, y);
    constrain();  // BUG(libtorch-detached-write)
    loss.backward();  // BUG(libtorch-detached-write)
    opt_.step();
    return loss.item<double>();
  }

 private:
  // Frobenius norm bounds the spectral norm: keep it at most 1.
  void constrain() {
    for (auto& p : model_->parameters()) {
      if (p.dim() != 2) continue;
      auto w = p.detach();
      w.div_(w.norm().clamp_min(1.0));  // BUG(libtorch-detached-write)
    }
  }

  torch::nn::Sequential& model_;
  torch::optim::SGD opt_;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(6, 12), torch::nn::ReLU(),
                              torch::nn::Linear(12, 3));
  Trainer trainer(model, 0.05);
  auto x = torch::randn({20, 6});
  auto y = torch::randn({20, 3});
  try {
    for (int epoch = 0; epoch < 3; ++epoch) trainer.train_step(x, y);
    std::cout << "training ran\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
