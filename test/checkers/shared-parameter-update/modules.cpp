// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A sink that reports a sharing source leaves nothing for WarnWithoutSink:
// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t-warn -- \
// RUN:   -config='{CheckOptions: [{key: libtorch-shared-parameter-update.WarnWithoutSink, value: true}]}' \
// RUN:   -- %mock_torch

#include <torch/torch.h>

// One module registered under two names.
struct SharedSubImpl : torch::nn::Module {
  SharedSubImpl() {
    a = register_module("a", torch::nn::Linear(4, 4));
    register_module("b", a);
  }
  torch::nn::Linear a{nullptr};
};

void PositiveRegisteredTwice() {
  SharedSubImpl net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'a.weight' twice (also as 'b.weight'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-10]]:9: note: 'a' and 'b' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-10]]:5: note: and here
}

// A constructor that registers its argument, given one module twice.
struct HeadImpl : torch::nn::Module {
  explicit HeadImpl(torch::nn::Linear shared) {
    lin = register_module("lin", shared);
  }
  torch::nn::Linear lin{nullptr};
};

void PositiveTwoParents() {
  torch::nn::Linear shared(4, 4);
  auto h1 = std::make_shared<HeadImpl>(shared);
  auto h2 = std::make_shared<HeadImpl>(shared);
  auto params = h1->parameters();
  auto more = h2->parameters();
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'lin.weight' twice; each step() updates it twice
  // CHECK-NOTES: :[[@LINE-5]]:21: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-5]]:19: note: another starts here
  // CHECK-NOTES: :[[@LINE-16]]:11: note: both reach this registration of 'lin' with the same module
}

void PositiveSequentialTwice() {
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential seq(shared, shared);
  torch::optim::Adam adam(seq->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter '0.weight' twice (also as '1.weight'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-3]]:29: note: '0' and '1' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-4]]:37: note: and here
}

void PositiveModuleListPushBack() {
  torch::nn::Linear shared(4, 4);
  torch::nn::ModuleList list;
  list->push_back(shared);
  list->push_back(shared);
  torch::optim::SGD opt(list->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice (also as '1.weight'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-4]]:9: note: '0' and '1' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-4]]:9: note: and here
}

void PositiveSameModuleListedTwice(torch::nn::Linear &enc) {
  torch::optim::SGD opt({torch::optim::OptimizerParamGroup(enc->parameters()),
                         torch::optim::OptimizerParamGroup(enc->parameters())},
                        torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-3]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice
  // CHECK-NOTES: :[[@LINE-4]]:65: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-4]]:65: note: and again here
}

// A submodule's parameters added again next to its parent's.
struct EncoderDecoderImpl : torch::nn::Module {
  EncoderDecoderImpl() {
    enc = register_module("enc", torch::nn::Linear(4, 4));
    dec = register_module("dec", torch::nn::Linear(4, 4));
  }
  torch::nn::Linear enc{nullptr}, dec{nullptr};
};

void PositiveParentAndChild() {
  auto model = std::make_shared<EncoderDecoderImpl>();
  auto params = model->parameters();
  auto enc = model->enc->parameters();
  params.insert(params.end(), enc.begin(), enc.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'enc.weight' twice (also as 'weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once
  // CHECK-NOTES: :[[@LINE-5]]:24: note: the parameters of 'model' include those of its submodule 'enc'
  // CHECK-NOTES: :[[@LINE-5]]:26: note: and the submodule's are added again here
}

// Fill construction: n handles to one module. The fix constructs a module
// per element.
void PositiveVectorFill() {
  std::vector<torch::nn::Linear> layers(3, torch::nn::Linear(4, 4));
  // CHECK-FIXES: {{^}}  std::vector<torch::nn::Linear> layers;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (std::size_t i = 0; i < 3; ++i){{$}}
  // CHECK-FIXES-NEXT: {{^}}    layers.push_back(torch::nn::Linear(4, 4));{{$}}
  torch::nn::Sequential stack;
  for (auto &layer : layers)
    stack->push_back(layer);
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice; each step() updates it twice; construct a separate module for each element [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-9]]:34: note: every element of this container is a handle to one module
  // CHECK-NOTES: :[[@LINE-4]]:12: note: each element is registered here
  torch::nn::utils::clip_grad_norm_(stack->parameters(), 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter '0.weight' twice; the total norm counts it twice and its gradient is scaled twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-13]]:34: note: every element of this container is a handle to one module
  // CHECK-NOTES: :[[@LINE-8]]:12: note: each element is registered here
}

// The count is evaluated once, before the loop.
int depth();

void PositiveFillCountedOnce() {
  std::vector<std::shared_ptr<torch::nn::LinearImpl>> layers(
      depth(), std::make_shared<torch::nn::LinearImpl>(4, 4));
  // CHECK-FIXES: {{^}}  std::vector<std::shared_ptr<torch::nn::LinearImpl>> layers;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (std::size_t i = 0, count = depth(); i < count; ++i){{$}}
  // CHECK-FIXES-NEXT: {{^}}    layers.push_back(std::make_shared<torch::nn::LinearImpl>(4, 4));{{$}}
  torch::nn::ModuleList list;
  for (const auto &layer : layers)
    list->push_back(layer);
  torch::optim::Adam adam(list->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter '0.weight' twice; each step() updates it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-10]]:55: note: every element of this container is a handle to one module
  // CHECK-NOTES: :[[@LINE-4]]:11: note: each element is registered here
}

// A named handle is the same module however often it is evaluated: no fix.
void PositiveNamedFill(torch::nn::Linear &shared) {
  std::vector<torch::nn::Linear> layers(2, shared);
  // CHECK-FIXES: {{^}}  std::vector<torch::nn::Linear> layers(2, shared);{{$}}
  torch::nn::Sequential stack;
  for (auto &layer : layers)
    stack->push_back(layer);
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice; each step() updates it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-7]]:34: note: every element of this container is a handle to 'shared'
  // CHECK-NOTES: :[[@LINE-4]]:12: note: each element is registered here
}

// Re-evaluating an argument with a side effect, or filling a const
// container, would not be the same program: no fix.
void PositiveFillNoFix(int width) {
  std::vector<torch::nn::Linear> layers(2, torch::nn::Linear(width++, 4));
  // CHECK-FIXES: {{^}}  std::vector<torch::nn::Linear> layers(2, torch::nn::Linear(width++, 4));{{$}}
  const std::vector<torch::nn::Linear> frozen(2, torch::nn::Linear(4, 4));
  // CHECK-FIXES: {{^}}  const std::vector<torch::nn::Linear> frozen(2, torch::nn::Linear(4, 4));{{$}}
  torch::nn::Sequential stack;
  for (auto &layer : layers)
    stack->push_back(layer);
  torch::nn::Sequential frozen_stack;
  for (auto &layer : frozen)
    frozen_stack->push_back(layer);
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice; each step() updates it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-12]]:34: note: every element of this container is a handle to one module
  // CHECK-NOTES: :[[@LINE-7]]:12: note: each element is registered here
  torch::optim::SGD frozen_opt(frozen_stack->parameters(),
                               torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-2]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice; each step() updates it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-15]]:40: note: every element of this container is a handle to one module
  // CHECK-NOTES: :[[@LINE-9]]:19: note: each element is registered here
}

// One element shares with nothing.
void NegativeFillOfOne() {
  std::vector<torch::nn::Linear> layers(1, torch::nn::Linear(4, 4));
  torch::nn::Sequential stack;
  for (auto &layer : layers)
    stack->push_back(layer);
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
}

struct TowerImpl : torch::nn::Module {
  explicit TowerImpl(int n) {
    std::vector<torch::nn::Linear> layers;
    layers.assign(n, torch::nn::Linear(8, 8));
    // CHECK-FIXES: {{^}}    layers.clear();{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (std::size_t i = 0, count = n; i < count; ++i){{$}}
    // CHECK-FIXES-NEXT: {{^}}      layers.push_back(torch::nn::Linear(8, 8));{{$}}
    for (size_t i = 0; i < layers.size(); ++i)
      register_module("layer" + std::to_string(i), layers[i]);
  }
};

void PositiveAssignFill() {
  TowerImpl tower(4);
  torch::optim::SGD opt(tower.parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '"layer" + std::to_string(i).weight' twice; each step() updates it twice
  // CHECK-NOTES: :[[@LINE-13]]:12: note: every element of this container is a handle to one module
  // CHECK-NOTES: :[[@LINE-9]]:7: note: each element is registered here
}

// A module used twice in forward is legitimate reuse: nothing duplicates it
// in parameters().
struct ReuseImpl : torch::nn::Module {
  ReuseImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(fc->forward(x)); }
  torch::nn::Linear fc{nullptr};
};

void NegativeForwardReuse() {
  ReuseImpl net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.1));
}

// Distinct construction in a loop, and deep copies.
void NegativeDistinctLayers() {
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < 3; ++i)
    layers.push_back(torch::nn::Linear(4, 4));
  torch::nn::Sequential stack;
  for (auto &layer : layers)
    stack->push_back(layer);
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
}

void NegativeClone(torch::nn::Linear &base) {
  torch::nn::Linear copy(
      std::dynamic_pointer_cast<torch::nn::LinearImpl>(base->clone()));
  torch::nn::Sequential seq(base, copy);
  torch::optim::SGD opt(seq->parameters(), torch::optim::SGDOptions(0.1));
}

void NegativeTwoParentsDistinct() {
  auto h1 = std::make_shared<HeadImpl>(torch::nn::Linear(4, 4));
  auto h2 = std::make_shared<HeadImpl>(torch::nn::Linear(4, 4));
  torch::nn::Sequential both(h1, h2);
  torch::optim::SGD opt(both->parameters(), torch::optim::SGDOptions(0.1));
}
