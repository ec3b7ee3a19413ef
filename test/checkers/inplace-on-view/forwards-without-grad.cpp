// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch
// A module's forward that the file only runs with grad disabled records no
// graph, so its writes break no saved tensor (Note [Forwards run only
// without grad]).

#include <torch/torch.h>

#include <vector>

// Called below with grad, in a training step.
struct TrainedBlockImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) {
    auto branch = torch::relu(fc->forward(x));
    branch.view({branch.size(0), -1}).mul_(keep);
    // CHECK-NOTES: :[[@LINE-1]]:39: warning: 'mul_' writes in place into local 'branch', which 'relu' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-inplace-on-view]
    // CHECK-NOTES: :[[@LINE-2]]:12: note: view of local 'branch' created here by 'view'
    // CHECK-NOTES: :[[@LINE-4]]:19: note: 'relu' saves its result for backward here
    return x + branch;
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor keep;
};
TORCH_MODULE(TrainedBlock);

// Called only under InferenceMode, directly or through a helper that is.
struct ServedBlockImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) {
    auto branch = torch::relu(fc->forward(x));
    branch.view({branch.size(0), -1}).mul_(keep);
    return x + branch;
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor keep;
};
TORCH_MODULE(ServedBlock);

// Never called here: a library's module, which its users train.
struct LibraryBlockImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) {
    auto branch = torch::relu(fc->forward(x));
    branch.view({branch.size(0), -1}).mul_(keep);
    // CHECK-NOTES: :[[@LINE-1]]:39: warning: 'mul_' writes in place into local 'branch', which 'relu' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-inplace-on-view]
    // CHECK-NOTES: :[[@LINE-2]]:12: note: view of local 'branch' created here by 'view'
    // CHECK-NOTES: :[[@LINE-4]]:19: note: 'relu' saves its result for backward here
    return x + branch;
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor keep;
};

void trainStep(TrainedBlock &block, const torch::Tensor &x) {
  block->forward(x).sum().backward();
}

void evaluate(TrainedBlock &block, const torch::Tensor &x) {
  torch::NoGradGuard guard;
  block(x);
}

torch::Tensor sample(ServedBlock &block, const torch::Tensor &x) {
  return block->forward(x);
}

std::vector<torch::Tensor> monteCarlo(ServedBlock &block, const torch::Tensor &x) {
  torch::InferenceMode guard;
  std::vector<torch::Tensor> draws;
  for (int i = 0; i < 8; ++i)
    draws.push_back(block(x));
  return draws;
}

torch::Tensor predict(ServedBlock &block, const torch::Tensor &x) {
  torch::NoGradGuard guard;
  return sample(block, x);
}
