// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

// Note [Lists that hold a module's parameters]: a member list bound to a
// module's parameters() in its class's constructors is that module's
// parameters, and a function that writes the elements of a list it is given
// writes what the list holds.

#include <torch/torch.h>

#include <vector>

struct TwoLayerImpl : torch::nn::Module {
  TwoLayerImpl() : fc1(4, 8), fc2(8, 1) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc2(fc1(x).tanh()); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(TwoLayer);

// Averages the parameters with a peer's, through data().
class Averager {
public:
  void average(const std::vector<torch::Tensor> &params) {
    for (size_t i = 0; i < params.size(); ++i)
      params[i].data().copy_((params[i] + peer_[i]) / 2);
      // CHECK-NOTES: :[[@LINE-1]]:24: warning: 'copy_' writes through 'data()' into the parameters of a 'TwoLayerImpl' between the forward of 'model_' that saved them and the backward that needs them; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
      // CHECK-NOTES: :[[@LINE+24]]:11: note: 'average' is called here, between the forward and the backward
      // CHECK-NOTES: :[[@LINE+22]]:25: note: the forward of 'model_' saves them for backward here
      // CHECK-NOTES: :[[@LINE+23]]:5: note: the backward that needs them runs here
  }
  void shrink(std::vector<torch::Tensor> &params) {
    for (auto &p : params)
      p.data().mul_(0.5);
      // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'mul_' writes through 'data()' into the parameters of a 'TwoLayerImpl' between the forward of 'model_' that saved them and the backward that needs them; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
      // CHECK-NOTES: :[[@LINE+34]]:11: note: 'shrink' is called here, between the forward and the backward
      // CHECK-NOTES: :[[@LINE+32]]:25: note: the forward of 'model_' saves them for backward here
      // CHECK-NOTES: :[[@LINE+33]]:5: note: the backward that needs them runs here
  }

private:
  std::vector<torch::Tensor> peer_;
};

class Trainer {
public:
  explicit Trainer(TwoLayer model) : model_(model), params_(model_->parameters()) {}

  // The averaging runs between the forward and the backward.
  void PositiveAverageBeforeBackward(const torch::Tensor &x) {
    auto loss = model_->forward(x).sum();
    sync_.average(params_);
    loss.backward();
  }

  // A loop of the method over the member list.
  void PositiveLoopOverMemberList(const torch::Tensor &x) {
    auto loss = model_->forward(x).sum();
    for (auto &p : params_)
      p.data().clamp_(-1, 1);
      // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'clamp_' writes through 'data()' into the parameters of a 'TwoLayerImpl' between the forward of 'model_' that saved them and the backward that needs them; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
      // CHECK-NOTES: :[[@LINE-4]]:25: note: the forward of 'model_' saves them for backward here
      // CHECK-NOTES: :[[@LINE+1]]:5: note: the backward that needs them runs here
    loss.backward();
  }

  // Through a range-for in the helper.
  void PositiveHelperLoop(const torch::Tensor &x) {
    auto loss = model_->forward(x).sum();
    sync_.shrink(params_);
    loss.backward();
  }

  // After the backward: nothing saved is needed any more.
  void NegativeAverageAfterBackward(const torch::Tensor &x) {
    auto loss = model_->forward(x).sum();
    loss.backward();
    sync_.average(params_);
  }

  // A list of other tensors.
  void NegativeOtherList(const torch::Tensor &x) {
    auto loss = model_->forward(x).sum();
    sync_.average(scratch_);
    loss.backward();
  }

private:
  TwoLayer model_;
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> scratch_;
  Averager sync_;
};
