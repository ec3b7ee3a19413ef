// CASE: early-stopping loop that remembers the best epoch in a struct whose
//       params member is filled from model->parameters(), then restores it
//       after training
// SOURCE: "best model not saved / state_dict() is a shallow copy" threads on
//         discuss.pytorch.org and Stack Overflow; the PyTorch transfer
//         learning tutorial keeps best_model_wts = copy.deepcopy(...) for
//         this reason
// KIND: bug
// HARM: the "best" parameters are the live parameters: the restore is a
//       no-op and the final model has the last epoch's (worse) val loss
#include <torch/torch.h>

#include <iostream>
#include <limits>
#include <vector>

struct Best {
  double val_loss;
  int epoch;
  std::vector<torch::Tensor> params;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Linear model(torch::nn::LinearOptions(1, 1).bias(false));
  {
    torch::NoGradGuard no_grad;
    model->weight.zero_();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  // Training data follows y = 2x; validation data follows y = x, so the
  // validation loss falls, then rises as training converges.
  auto x_train = torch::randn({64, 1});
  auto y_train = 2.0 * x_train;
  auto x_val = torch::randn({64, 1});
  auto y_val = x_val;

  auto evaluate = [&] {
    torch::NoGradGuard no_grad;
    return torch::mse_loss(model(x_val), y_val).item<double>();
  };

  Best best{std::numeric_limits<double>::infinity(), -1, {}};
  for (int epoch = 0; epoch < 30; ++epoch) {
    opt.zero_grad();
    torch::mse_loss(model(x_train), y_train).backward();
    opt.step();  // BUG(libtorch-inplace-on-view)
    double val = evaluate();
    if (val < best.val_loss) {
      best = Best{val, epoch, model->parameters()};  // BUG(libtorch-inplace-on-view)
    }
  }

  {
    torch::NoGradGuard no_grad;
    auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best.params[i]);  // BUG(libtorch-inplace-on-view)
  }
  double restored = evaluate();
  if (std::abs(restored - best.val_loss) > 1e-6) {
    std::cout << "HARM: restored model has val loss " << restored
              << ", not the best epoch's " << best.val_loss << " (epoch "
              << best.epoch << ")\n";
  } else {
    std::cout << "best epoch restored\n";
  }
  return 0;
}
