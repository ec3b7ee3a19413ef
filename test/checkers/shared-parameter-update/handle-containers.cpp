// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Containers of module handles walked directly in a manual update loop:
// each element is the module its handle names, registered or not.

#include <torch/torch.h>

void PositivePushBackInLoop(int depth) {
  torch::NoGradGuard no_grad;
  torch::nn::Linear shared(4, 4);
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < depth; ++i)
    layers.push_back(shared);
  for (auto &layer : layers)
    for (auto &p : layer->parameters())
      p.sub_(p.grad());
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'sub_' updates parameter 'weight' in place twice per pass over 'layers'; its elements hold it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-5]]:12: note: every iteration of the loop adds 'shared' here, a handle to the same module
}

// A module constructed in the loop body is a new module each time.
void NegativeFreshEachIteration(int depth) {
  torch::NoGradGuard no_grad;
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < depth; ++i)
    layers.push_back(torch::nn::Linear(4, 4));
  for (int i = 0; i < depth; ++i) {
    torch::nn::Linear layer(4, 4);
    layers.push_back(layer);
  }
  for (auto &layer : layers)
    for (auto &p : layer->parameters())
      p.sub_(p.grad());
}

// A handle reassigned in the loop names a new module each time.
void NegativeReassignedHandle(int depth) {
  torch::NoGradGuard no_grad;
  torch::nn::Linear layer(nullptr);
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < depth; ++i) {
    layer = torch::nn::Linear(4, 4);
    layers.push_back(layer);
  }
  for (auto &l : layers)
    for (auto &p : l->parameters())
      p.sub_(p.grad());
}

void PositiveFillIterated() {
  torch::NoGradGuard no_grad;
  std::vector<torch::nn::Linear> filled(3, torch::nn::Linear(4, 4));
  // CHECK-FIXES: {{^}}  std::vector<torch::nn::Linear> filled;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (std::size_t i = 0; i < 3; ++i){{$}}
  // CHECK-FIXES-NEXT: {{^}}    filled.push_back(torch::nn::Linear(4, 4));{{$}}
  for (auto &layer : filled)
    for (auto &p : layer->parameters())
      p.add_(p.grad(), -0.1);
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'add_' updates parameter 'weight' in place twice per pass over 'filled'; its elements hold it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-8]]:34: note: every element of this container is a handle to one module
}

void NegativeFillOfOne() {
  torch::NoGradGuard no_grad;
  std::vector<torch::nn::Linear> layers(1, torch::nn::Linear(4, 4));
  for (auto &layer : layers)
    for (auto &p : layer->parameters())
      p.add_(p.grad(), -0.1);
}

// Pushing one handle in a loop into a Sequential registers it once per
// iteration.
void PositiveSequentialPushBackInLoop(int depth) {
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential stack;
  for (int i = 0; i < depth; ++i)
    stack->push_back(shared);
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice; each step() updates it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-3]]:12: note: every iteration of the loop adds 'shared' here, a handle to the same module
}

void NegativeSequentialFreshInLoop(int depth) {
  torch::nn::Sequential stack;
  for (int i = 0; i < depth; ++i)
    stack->push_back(torch::nn::Linear(4, 4));
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
}
