// RUN: %check_clang_tidy %s libtorch-from-blob-escape %t -- -- %mock_torch

// A from_blob tensor passed to a method of this translation unit escapes only
// if the method keeps it (Note [Escapes]): stores it, returns it or captures
// it. A method that copies it into storage keeps nothing.

#include <torch/torch.h>

#include <functional>
#include <vector>

class Rollout {
public:
  // Copies its arguments into preallocated storage.
  void insert(const torch::Tensor &reward, const torch::Tensor &mask) {
    rewards_[step_].copy_(reward);
    masks_.select(0, step_).copy_(mask);
  }
  // Keeps its argument: stored in a member container.
  void push(const torch::Tensor &reward) { history_.push_back(reward); }
  // Keeps its argument through a member assignment, via a helper.
  void remember(const torch::Tensor &t) { set_last(t); }
  void set_last(const torch::Tensor &t) { last_ = t; }
  // Keeps its argument in a callback that may run later.
  void defer(const torch::Tensor &t) {
    callback_ = [t] { return t.sum(); };
  }

private:
  int step_ = 0;
  torch::Tensor rewards_, masks_, last_;
  std::vector<torch::Tensor> history_;
  std::function<torch::Tensor()> callback_;
};

void NegativeCopiedByCallee(std::vector<Rollout> &storages) {
  for (int i = 0; i < 3; ++i) {
    std::vector<float> rewards{1};
    std::vector<float> masks{1};
    storages[i].insert(torch::from_blob(rewards.data(), {1, 1}),
                       torch::from_blob(masks.data(), {1, 1}));
  }
}

void PositiveKeptByCallee(std::vector<Rollout> &storages) {
  for (int i = 0; i < 3; ++i) {
    std::vector<float> rewards{1};
    storages[i].push(torch::from_blob(rewards.data(), {1, 1}));
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: a from_blob tensor wraps local buffer 'rewards' and is stored in 'storages', which outlives the buffer [libtorch-from-blob-escape]
    // CHECK-FIXES: storages[i].push(torch::from_blob(rewards.data(), {1, 1}).clone());
  }
}

void PositiveKeptThroughHelper(Rollout &rollout) {
  std::vector<float> buf(4);
  auto t = torch::from_blob(buf.data(), {4});
  // CHECK-FIXES: auto t = torch::from_blob(buf.data(), {4}).clone();
  rollout.remember(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: from_blob tensor 't' wraps local buffer 'buf' and is stored in 'rollout', which outlives the buffer
}

void PositiveCapturedByCallee(Rollout &rollout) {
  float raw[4] = {1, 2, 3, 4};
  rollout.defer(torch::from_blob(raw, {4}));
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: a from_blob tensor wraps local buffer 'raw' and is stored in 'rollout', which outlives the buffer
  // CHECK-FIXES: rollout.defer(torch::from_blob(raw, {4}).clone());
}

// Negative: a standard container local to the buffer's scope.
void NegativeLocalContainer() {
  std::vector<float> buf(4);
  std::vector<torch::Tensor> batch;
  batch.push_back(torch::from_blob(buf.data(), {4}));
}
