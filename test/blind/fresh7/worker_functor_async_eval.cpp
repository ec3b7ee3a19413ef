// CASE: a hold-out evaluator is a function object holding the linear model's
//       weight and bias handles; it is handed to std::async and waits for its
//       shard, while the training loop applies a hand-written SGD update to
//       the same tensors in place
// SOURCE: the kind of code in small libtorch regression trainers that overlap
//         validation with the next update by launching a callable struct
// KIND: bug
// HARM: the validation loss reported for step k is the loss of the weights
//       after step k+1
#include <torch/torch.h>

#include <cmath>
#include <future>
#include <iostream>

struct HoldoutEval {
  torch::Tensor weight;
  torch::Tensor bias;
  torch::Tensor x;
  torch::Tensor y;
  std::shared_future<void> shard_loaded;

  double operator()() const {
    shard_loaded.wait();
    torch::NoGradGuard no_grad;
    auto pred = torch::addmm(bias, x, weight.t());
    return (pred - y).pow(2).mean().item<double>();
  }
};

int main() {
  torch::manual_seed(3);
  torch::nn::Linear model(4, 1);
  auto x_train = torch::randn({64, 4});
  auto y_train = x_train.sum(1, true) * 2.0 + 1.0;
  auto x_val = torch::randn({16, 4});
  auto y_val = x_val.sum(1, true) * 2.0 + 1.0;
  const double lr = 0.1;

  auto loss = torch::mse_loss(model(x_train), y_train);
  loss.backward();

  // what the evaluator should see: the weights as they are now
  double expected;
  {
    torch::NoGradGuard no_grad;
    auto pred = torch::addmm(model->bias.clone(), x_val, model->weight.clone().t());
    expected = (pred - y_val).pow(2).mean().item<double>();
  }

  std::promise<void> shard;
  auto val_loss = std::async(std::launch::async,  // BUG(libtorch-worker-missing-clone)
                             HoldoutEval{model->weight, model->bias, x_val, y_val,  // BUG(libtorch-worker-missing-clone)
                                         shard.get_future().share()});

  {
    torch::NoGradGuard no_grad;
    for (auto& p : model->parameters()) {
      p.sub_(lr * p.grad());  // BUG(libtorch-worker-missing-clone)
      p.grad().zero_();
    }
  }
  shard.set_value();  // the validation shard arrives from disk

  const double reported = val_loss.get();
  std::cout << "validation loss " << reported << " (expected " << expected << ")\n";
  if (std::abs(reported - expected) > 1e-6)
    std::cout << "HARM: validation loss of the pre-update weights reported as " << reported
              << " instead of " << expected << "\n";
  return 0;
}
