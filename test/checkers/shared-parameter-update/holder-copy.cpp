// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

// A target network that is meant to lag behind the online one.
void PositiveTargetNetwork(const torch::Tensor &x) {
  Net online;
  auto target = online;
  // CHECK-FIXES: auto target = Net(std::dynamic_pointer_cast<NetImpl>(online->clone()));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
  // CHECK-NOTES: :[[@LINE-4]]:17: note: 'target' shares the module of 'online' from here
  opt.step();
  target->forward(x);
}

void PositiveEmaLoop(torch::nn::Linear online) {
  torch::nn::Linear ema = online;
  // CHECK-FIXES: torch::nn::Linear ema = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(online->clone()));
  online->forward(torch::ones({4}));
  for (auto &p : ema->parameters())
    p.mul_(0.99);
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'mul_' updates the parameters of 'online', and 'ema' is a copy of its ModuleHolder, not of the module: 'ema' changes with every update
  // CHECK-NOTES: :[[@LINE-6]]:27: note: 'ema' shares the module of 'online' from here
}

// Deep copies and separately built models are independent.
void NegativeClone(const torch::Tensor &x) {
  Net online;
  Net target(std::dynamic_pointer_cast<NetImpl>(online->clone()));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  target->forward(x);
}

void NegativeSeparateModels(const torch::Tensor &x) {
  auto online = std::make_shared<NetImpl>();
  auto target = std::make_shared<NetImpl>();
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  target->forward(x);
}

// The copy is the only handle used afterwards: a rename, not two models.
void NegativeRename() {
  Net built;
  auto model = built;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
}

// FIXME: should warn: a by-value member initialised from another model.
struct Agent {
  explicit Agent(Net net) : online(net), target(net) {}
  void train() {
    torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
    target->forward(torch::ones({4}));
  }
  Net online, target;
};
