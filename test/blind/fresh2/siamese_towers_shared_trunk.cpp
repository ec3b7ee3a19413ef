// CASE: a Siamese matcher builds two towers around one shared trunk Linear
//       (the same holder registered in both towers) and collects the
//       optimizer's parameter list by concatenating each tower's parameters()
//       in a range-for loop over a std::vector of towers
// SOURCE: https://github.com/pytorch/pytorch/issues/40967
// KIND: bug
// HARM: the shared trunk is in the list twice, so every SGD step moves it
//       twice as far as the learning rate says
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct TowerImpl : torch::nn::Module {
  explicit TowerImpl(torch::nn::Linear shared_trunk)
      : trunk(register_module("trunk", shared_trunk)),
        head(register_module("head", torch::nn::Linear(8, 4))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return head(torch::relu(trunk(x)));
  }

  torch::nn::Linear trunk;
  torch::nn::Linear head;
};
TORCH_MODULE(Tower);

static std::vector<torch::Tensor> trainable(const std::vector<Tower>& towers) {
  std::vector<torch::Tensor> params;
  for (const auto& tower : towers) {
    auto p = tower->parameters();
    params.insert(params.end(), p.begin(), p.end());  // BUG(libtorch-shared-parameter-update)
  }
  return params;
}

int main() {
  torch::manual_seed(0);
  torch::nn::Linear trunk(16, 8);
  std::vector<Tower> towers{Tower(trunk), Tower(trunk)};
  const double lr = 0.1;
  torch::optim::SGD opt(trainable(towers), torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto a = torch::randn({6, 16});
  auto b = torch::randn({6, 16});
  auto same = torch::tensor({1.0f, 0.0f, 1.0f, 0.0f, 1.0f, 0.0f});
  auto d = (towers[0]->forward(a) - towers[1]->forward(b)).pow(2).sum(1);
  auto loss = (same * d + (1 - same) * torch::relu(1.0 - d)).mean();

  opt.zero_grad();
  loss.backward();
  auto before = trunk->weight.detach().clone();
  auto step = lr * trunk->weight.grad().detach();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  auto moved = (before - trunk->weight.detach()).norm().item<double>();
  auto wanted = step.norm().item<double>();
  std::cout << "trunk moved " << moved << ", one SGD step is " << wanted << "\n";
  if (moved > 1.5 * wanted) {
    std::cout << "HARM: the shared trunk was stepped " << moved / wanted
              << " times per optimizer step\n";
  }
  return 0;
}
