// CASE: a trainer overlaps validation with the next batch's data loading:
//       it launches std::async on the model's parameters() (handles, no
//       clone) and prepares the next batch meanwhile, but it waits for the
//       validation future before the optimizer steps those tensors
// SOURCE: the kind of code in libtorch training loops that run validation
//       on a side thread while the main thread loads data
// KIND: near-miss
// WHY-OK: eval.get() happens before opt.step(); no write to the parameters
//       runs while the validation task can still read them
#include <torch/torch.h>

#include <future>
#include <iostream>
#include <vector>

namespace {

float validate(std::vector<torch::Tensor> params, torch::Tensor x, torch::Tensor y) {
  torch::NoGradGuard no_grad;
  auto pred = torch::nn::functional::linear(x, params[0], params[1]);
  return (pred - y).pow(2).mean().item<float>();
}

}  // namespace

int main() {
  torch::manual_seed(21);
  torch::nn::Linear model(4, 1);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto val_x = torch::randn({32, 4});
  auto val_y = val_x.sum(1, true);

  auto x = torch::randn({16, 4});
  int wrong = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto loss = (model->forward(x) - x.sum(1, true)).pow(2).mean();
    opt.zero_grad();
    loss.backward();

    float expected = validate({model->weight.detach().clone(), model->bias.detach().clone()}, val_x, val_y);
    auto eval = std::async(std::launch::async, validate, model->parameters(), val_x, val_y);
    auto next_x = torch::randn({16, 4});  // load the next batch meanwhile
    float got = eval.get();
    opt.step();

    std::cout << "epoch " << epoch << ": val loss " << got << " (expected " << expected << ")\n";
    wrong += got != expected;
    x = next_x;
  }
  if (wrong) std::cout << "HARM: validation saw parameters from after the step\n";
  return 0;
}
