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
  // CHECK-NOTES: :[[@LINE-3]]:17: warning: 'SGD' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
  // CHECK-NOTES: :[[@LINE-2]]:21: note: 'SGD' updates the parameters of 'online' here
  opt.step();
  target->forward(x);
}

void PositiveEmaLoop(torch::nn::Linear online) {
  torch::nn::Linear ema = online;
  // CHECK-FIXES: torch::nn::Linear ema = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(online->clone()));
  for (auto &p : ema->parameters())
    p.mul_(0.99);
  // CHECK-NOTES: :[[@LINE-4]]:27: warning: 'mul_' updates the parameters of 'online', and 'ema' is a copy of its ModuleHolder, not of the module: 'ema' changes with every update
  // CHECK-NOTES: :[[@LINE-2]]:7: note: 'mul_' updates the parameters of 'online' here
  online->forward(torch::ones({4}));
}

// Within a training loop, a use before the update comes after it on the
// next iteration.
void PositiveUseEarlierInLoop(const torch::Tensor &x) {
  Net online;
  auto target = online;
  // CHECK-FIXES: auto target = Net(std::dynamic_pointer_cast<NetImpl>(online->clone()));
  for (int step = 0; step < 10; ++step) {
    target->forward(x);
    for (auto &p : online->parameters())
      p.sub_(p.grad());
    // CHECK-NOTES: :[[@LINE-6]]:17: warning: 'sub_' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
    // CHECK-NOTES: :[[@LINE-2]]:9: note: 'sub_' updates the parameters of 'online' here
  }
}

// The copy is given a module of its own before it is used.
void NegativeReassignedCopy(const torch::Tensor &x) {
  Net online;
  auto target = online;
  target = Net(std::dynamic_pointer_cast<NetImpl>(online->clone()));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  target->forward(x);
}

// The other handle is only read before the update: nothing sees a changed
// module through it.
void NegativeUsedOnlyBefore(const torch::Tensor &x) {
  Net online;
  auto target = online;
  target->forward(x);
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  opt.step();
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

// By-value members initialised from one model are two handles to it.
struct Agent {
  explicit Agent(Net net) : online(net), target(net) {}
  // CHECK-FIXES: explicit Agent(Net net) : online(net), target(std::dynamic_pointer_cast<NetImpl>(net->clone())) {}
  void train() {
    torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
    // CHECK-NOTES: :[[@LINE-4]]:42: warning: 'SGD' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
    // CHECK-NOTES: :[[@LINE-5]]:42: note: both 'target' and 'online' are copies of 'net'
    // CHECK-NOTES: :[[@LINE-3]]:23: note: 'SGD' updates the parameters of 'online' here
    target->forward(torch::ones({4}));
  }
  Net online, target;
};

// The update and the use in two methods; the copy made from the member.
struct TargetFromOnline {
  explicit TargetFromOnline(const Net &net) : online(net), target(online) {}
  // CHECK-FIXES: explicit TargetFromOnline(const Net &net) : online(net), target(std::dynamic_pointer_cast<NetImpl>(online->clone())) {}
  void update() {
    for (auto &p : online->parameters())
      p.sub_(p.grad());
    // CHECK-NOTES: :[[@LINE-5]]:60: warning: 'sub_' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
    // CHECK-NOTES: :[[@LINE-2]]:9: note: 'sub_' updates the parameters of 'online' here
  }
  torch::Tensor act(const torch::Tensor &x) { return target->forward(x); }
  Net online, target;
};

// A deep copy, and two separately constructed models.
struct ClonedAgent {
  explicit ClonedAgent(Net net)
      : online(net), target(std::dynamic_pointer_cast<NetImpl>(net->clone())) {}
  void train() {
    torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
    target->forward(torch::ones({4}));
  }
  Net online, target;
};

struct SeparateAgent {
  SeparateAgent() : online(Net()), target(Net()) {}
  void train() {
    torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
    target->forward(torch::ones({4}));
  }
  Net online, target;
};

struct ReassignedAgent {
  explicit ReassignedAgent(Net net) : online(net), target(net) {
    target = Net(std::dynamic_pointer_cast<NetImpl>(net->clone()));
  }
  void train() {
    torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
    target->forward(torch::ones({4}));
  }
  Net online, target;
};

// The second member is never used: nothing treats it as a model.
struct UnusedCopy {
  explicit UnusedCopy(Net net) : online(net), spare(net) {}
  void train() {
    torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  }
  Net online, spare;
};
