// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A member assigned another member's ModuleHolder in a body copies the
// handle, as a member initializer does (Note [A member assigned another
// member's handle]).

#include <torch/torch.h>

struct PolicyImpl : torch::nn::Cloneable<PolicyImpl> {
  PolicyImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Policy);

// The target network is made in the constructor's body.
class Learner {
public:
  Learner() : opt_(online_->parameters(), torch::optim::SGDOptions(0.1)) {
    target_ = online_;
    // CHECK-FIXES: target_ = Policy(std::dynamic_pointer_cast<PolicyImpl>(online_->clone()));
    target_->eval();
  }
  // CHECK-NOTES: :[[@LINE-4]]:5: warning: 'SGD' updates the parameters of 'online_', and 'target_' is a copy of its ModuleHolder, not of the module: 'target_' changes with every update
  // CHECK-NOTES: :[[@LINE-6]]:15: note: 'SGD' updates the parameters of 'online_' here
  torch::Tensor bootstrap(const torch::Tensor &x) {
    return target_->forward(x).detach();
  }

private:
  Policy online_;
  Policy target_{nullptr};
  torch::optim::SGD opt_;
};

// A hard sync in one method, a soft update in another.
class SoftSync {
public:
  void sync() { this->target_ = this->online_; }
  // CHECK-FIXES: void sync() { this->target_ = Policy(std::dynamic_pointer_cast<PolicyImpl>(this->online_->clone())); }
  void blend(double tau) {
    torch::NoGradGuard no_grad;
    auto to = target_->parameters();
    auto from = online_->parameters();
    for (size_t i = 0; i < to.size(); ++i)
      to[i].mul_(1 - tau).add_(from[i], tau);
  }
  // CHECK-NOTES: :[[@LINE-9]]:17: warning: 'add_' updates the parameters of 'online_', and 'target_' is a copy of its ModuleHolder, not of the module: 'target_' changes with every update
  // CHECK-NOTES: :[[@LINE-3]]:27: note: 'add_' updates the parameters of 'online_' here
  torch::Tensor act(const torch::Tensor &x) { return online_->forward(x); }

private:
  Policy online_, target_;
};

// The copy is given a module of its own elsewhere: a member that selects.
class Selector {
public:
  Selector() : opt_(a_->parameters(), torch::optim::SGDOptions(0.1)) {}
  void useFirst() { current_ = a_; }
  void useSecond() { current_ = b_; }
  torch::Tensor act(const torch::Tensor &x) { return current_->forward(x); }

private:
  Policy a_, b_, current_;
  torch::optim::SGD opt_;
};

// A deep copy is no copy of the handle.
class DeepCopy {
public:
  DeepCopy() : opt_(online_->parameters(), torch::optim::SGDOptions(0.1)) {
    target_ = Policy(std::dynamic_pointer_cast<PolicyImpl>(online_->clone()));
  }
  torch::Tensor bootstrap(const torch::Tensor &x) { return target_->forward(x); }

private:
  Policy online_;
  Policy target_{nullptr};
  torch::optim::SGD opt_;
};

// The original is rebound afterwards: the two handles part again.
class Rebound {
public:
  Rebound() : opt_(online_->parameters(), torch::optim::SGDOptions(0.1)) {
    target_ = online_;
  }
  void restart() { online_ = Policy(); }
  torch::Tensor bootstrap(const torch::Tensor &x) { return target_->forward(x); }

private:
  Policy online_;
  Policy target_{nullptr};
  torch::optim::SGD opt_;
};

// The copy is never used as a model of its own.
class Unused {
public:
  Unused() : opt_(online_->parameters(), torch::optim::SGDOptions(0.1)) {
    alias_ = online_;
  }

private:
  Policy online_;
  Policy alias_{nullptr};
  torch::optim::SGD opt_;
};
