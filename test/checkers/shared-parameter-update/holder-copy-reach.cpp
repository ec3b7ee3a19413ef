// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

// ModuleHolder copies made through helpers, containers and local lists.

#include <torch/torch.h>
#include <deque>
#include <vector>

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

// Helpers that give back the handle they are given, a deep copy, a new
// module, and one or the other.
Net shareWeights(Net source) { return source; }

Net snapshotOf(const Net &model) {
  Net kept = model;
  return kept;
}

Net deepCopy(const Net &model) {
  return Net(std::dynamic_pointer_cast<NetImpl>(model->clone()));
}

Net freshNet() { return Net(); }

Net maybeDeep(Net model, bool deep) {
  if (deep)
    return Net(std::dynamic_pointer_cast<NetImpl>(model->clone()));
  return model;
}

void PositiveHelperReturnsArgument(const torch::Tensor &x) {
  Net online;
  auto lagging = shareWeights(online);
  // CHECK-FIXES: auto lagging = Net(std::dynamic_pointer_cast<NetImpl>(shareWeights(online)->clone()));
  torch::optim::Adam opt(online->parameters(), torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-3]]:18: warning: 'Adam' updates the parameters of 'online', and 'lagging' is a copy of its ModuleHolder, not of the module: 'lagging' changes with every update
  // CHECK-NOTES: :[[@LINE-2]]:22: note: 'Adam' updates the parameters of 'online' here
  // CHECK-NOTES: :19:32: note: the ModuleHolder returned here is the one given as an argument
  opt.step();
  lagging->forward(x);
}

void PositiveHelperReturnsLocalCopy(const torch::Tensor &x) {
  Net online;
  Net frozen = snapshotOf(online);
  for (int step = 0; step < 3; ++step) {
    for (auto &p : online->parameters())
      p.sub_(p.grad(), 0.01);
    // CHECK-NOTES: :[[@LINE-4]]:16: warning: 'sub_' updates the parameters of 'online', and 'frozen' is a copy of its ModuleHolder, not of the module: 'frozen' changes with every update
    // CHECK-NOTES: :[[@LINE-2]]:9: note: 'sub_' updates the parameters of 'online' here
    // CHECK-NOTES: :23:3: note: the ModuleHolder returned here is the one given as an argument
    frozen->forward(x);
  }
}

// Two sinks reach one copy: one finding, at the copy, with one fix-it.
void PositiveVectorOfCopies(const torch::Tensor &x) {
  Net online;
  std::vector<Net> history;
  history.push_back(online);
  // CHECK-FIXES: history.push_back(Net(std::dynamic_pointer_cast<NetImpl>(online->clone())));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-3]]:21: warning: 'SGD' updates the parameters of 'online', and 'history' holds a copy of its ModuleHolder, not of the module: its element changes with every update
  // CHECK-NOTES: :[[@LINE-2]]:21: note: 'SGD' updates the parameters of 'online' here
  opt.step();
  for (auto &p : online->parameters())
    p.mul_(0.9);
  history.back()->forward(x);
}

// The element updated, the original used after.
void PositiveDequeIndexed(const torch::Tensor &x) {
  Net online;
  std::deque<Net> pool;
  pool.emplace_back(online);
  // CHECK-FIXES: pool.emplace_back(Net(std::dynamic_pointer_cast<NetImpl>(online->clone())));
  auto params = pool[0]->parameters();
  for (auto &p : params)
    p.mul_(0.5);
  // CHECK-NOTES: :[[@LINE-5]]:21: warning: 'mul_' updates the parameters of 'online', and 'pool' holds a copy of its ModuleHolder, not of the module: its element changes with every update
  // CHECK-NOTES: :[[@LINE-2]]:7: note: 'mul_' updates the parameters of 'online' here
  online->forward(x);
}

// A soft update through lists kept in locals.
struct SoftUpdater {
  explicit SoftUpdater(Net net) : online_(net), target_(online_) {}
  // CHECK-FIXES: explicit SoftUpdater(Net net) : online_(net), target_(std::dynamic_pointer_cast<NetImpl>(online_->clone())) {}
  void sync(double tau) {
    torch::NoGradGuard guard;
    auto to = target_->parameters();
    auto from = online_->parameters();
    for (size_t i = 0; i < to.size(); ++i)
      to[i].copy_(from[i] * tau + to[i] * (1 - tau));
    // CHECK-NOTES: :[[@LINE-8]]:49: warning: 'copy_' updates the parameters of 'online_', and 'target_' is a copy of its ModuleHolder, not of the module: 'target_' changes with every update
    // CHECK-NOTES: :[[@LINE-2]]:13: note: 'copy_' updates the parameters of 'online_' here
  }
  torch::Tensor act(const torch::Tensor &x) { return online_->forward(x); }
  Net online_, target_;
};

void NegativeHelperClones(const torch::Tensor &x) {
  Net online;
  auto lagging = deepCopy(online);
  torch::optim::Adam opt(online->parameters(), torch::optim::AdamOptions(1e-3));
  opt.step();
  lagging->forward(x);
}

void NegativeHelperBuildsNew(const torch::Tensor &x) {
  Net online;
  Net other = freshNet();
  torch::optim::Adam opt(online->parameters(), torch::optim::AdamOptions(1e-3));
  opt.step();
  other->forward(x);
}

// Not every return gives back the argument.
void NegativeHelperSometimesClones(const torch::Tensor &x) {
  Net online;
  Net other = maybeDeep(online, true);
  torch::optim::Adam opt(online->parameters(), torch::optim::AdamOptions(1e-3));
  opt.step();
  other->forward(x);
}

void NegativeVectorOfClones(const torch::Tensor &x) {
  Net online;
  std::vector<Net> history;
  history.push_back(Net(std::dynamic_pointer_cast<NetImpl>(online->clone())));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  opt.step();
  history.back()->forward(x);
}

// The container's element is used only before the update.
void NegativeContainerUnusedAfter(const torch::Tensor &x) {
  Net online;
  std::vector<Net> history;
  history.push_back(online);
  history.back()->forward(x);
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  opt.step();
}

// The list kept in a local is rebound to another module's parameters.
void NegativeListReassigned(Net online, Net target) {
  auto to = online->parameters();
  auto alias = online;
  to = target->parameters();
  for (auto &p : to)
    p.mul_(0.5);
  alias->forward(torch::ones({4}));
}
