// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- \
// RUN:   -config='{CheckOptions: [{key: libtorch-shared-parameter-update.IsolationHelper, value: torchalias}]}' \
// RUN:   -- %mock_torch
// RUN: %check_clang_tidy -check-suffix=SOURCE %s libtorch-shared-parameter-update %t-source -- \
// RUN:   -config='{CheckOptions: [{key: libtorch-shared-parameter-update.WarnWithoutSink, value: true}]}' \
// RUN:   -- %mock_torch -DNO_SINK

#include <torch/torch.h>
// CHECK-FIXES: #include <torch/torch.h>
// CHECK-FIXES-NEXT: #include <torchalias/parameters.h>

struct TiedImpl : torch::nn::Cloneable<TiedImpl> {
  TiedImpl() { reset(); }
  void reset() override {
    emb = register_module("emb", torch::nn::Embedding(10, 4));
    register_parameter("out_weight", emb->weight);
    // CHECK-NOTES-SOURCE: :[[@LINE-1]]:5: warning: 'TiedImpl' holds parameter 'emb.weight' twice (also as 'out_weight'); an optimizer built from its parameters() would update it twice
    // CHECK-NOTES-SOURCE: :[[@LINE-3]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
    // CHECK-NOTES-SOURCE: :[[@LINE-3]]:5: note: and here
  }
  torch::nn::Embedding emb{nullptr};
};
TORCH_MODULE(Tied);

#ifndef NO_SINK
void PositiveWrapped(Tied &model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'emb.weight' twice (also as 'out_weight'); each step() updates it twice [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-14]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-14]]:5: note: and here
  // CHECK-FIXES: torch::optim::SGD opt(torchalias::unique_parameters(model->parameters()), torch::optim::SGDOptions(0.1));
}

void PositiveWrappedFactory(Tied &model) {
  auto opt = std::make_unique<torch::optim::SGD>(model->parameters(),
                                                 torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-2]]:14: warning: 'SGD' is built from a list that holds parameter 'emb.weight' twice (also as 'out_weight'); each step() updates it twice [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-23]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-23]]:5: note: and here
  // CHECK-FIXES: auto opt = std::make_unique<torch::optim::SGD>(torchalias::unique_parameters(model->parameters()),
}

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

void PositiveDeepClone() {
  Net online;
  auto target = online;
  // CHECK-FIXES: auto target = torchalias::deep_clone(online);
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-3]]:17: warning: 'SGD' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
  // CHECK-NOTES: :[[@LINE-2]]:21: note: 'SGD' updates the parameters of 'online' here
  target->fc->forward(torch::ones({4}));
}

struct Agent {
  explicit Agent(Net net) : online(net), target(net) {}
  // CHECK-FIXES: explicit Agent(Net net) : online(net), target(torchalias::deep_clone(net)) {}
  void train() {
    torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
    // CHECK-NOTES: :[[@LINE-4]]:42: warning: 'SGD' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
    // CHECK-NOTES: :[[@LINE-5]]:42: note: both 'target' and 'online' are copies of 'net'
    // CHECK-NOTES: :[[@LINE-3]]:23: note: 'SGD' updates the parameters of 'online' here
    target->fc->forward(torch::ones({4}));
  }
  Net online, target;
};
#endif

// A fill construction with no sink in sight: reported only with
// WarnWithoutSink.
void BuildStack(int depth) {
  std::vector<torch::nn::Linear> layers;
  layers.assign(depth, torch::nn::Linear(4, 4));
  // CHECK-NOTES-SOURCE: :[[@LINE-1]]:10: warning: every element of 'layers' is a handle to one module; an optimizer built from the elements' parameters would update it once per element; construct a separate module for each element
  // CHECK-FIXES-SOURCE: {{^}}  layers.clear();{{$}}
  // CHECK-FIXES-SOURCE-NEXT: {{^}}  for (std::size_t i = 0, count = depth; i < count; ++i){{$}}
  // CHECK-FIXES-SOURCE-NEXT: {{^}}    layers.push_back(torch::nn::Linear(4, 4));{{$}}
  // CHECK-FIXES: {{^}}  layers.assign(depth, torch::nn::Linear(4, 4));{{$}}
}

// One element, and handles that hold no module, share nothing.
void NegativeFills() {
  std::vector<torch::nn::Linear> one(1, torch::nn::Linear(4, 4));
  std::vector<torch::nn::Linear> empty(3, nullptr);
  std::vector<int> numbers(3, 0);
}
