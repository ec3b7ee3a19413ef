// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

#include <unordered_set>

// Weight tying: the output projection reuses the embedding's weight.
struct TiedLMImpl : torch::nn::Module {
  TiedLMImpl() {
    emb = register_module("emb", torch::nn::Embedding(100, 16));
    out_weight = register_parameter("out_weight", emb->weight);
  }
  torch::nn::Embedding emb{nullptr};
  torch::Tensor out_weight;
};
TORCH_MODULE(TiedLM);

void PositiveTiedEmbedding() {
  TiedLM model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'emb.weight' twice (also as 'out_weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-12]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-12]]:18: note: and here
}

// A view of a registered tensor, registered again.
struct TransposedImpl : torch::nn::Module {
  TransposedImpl() {
    w = register_parameter("w", torch::randn({3, 3}));
    register_parameter("w_t", w.t());
  }
  torch::Tensor w;
};

void PositiveView() {
  auto net = std::make_shared<TransposedImpl>();
  torch::optim::Adam adam(net->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'w' twice (also as 'w_t'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-10]]:9: note: 'w' and 'w_t' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-10]]:5: note: and here as a view of it
}

// One local tensor registered in two modules of one parent.
struct TwoHeadsImpl : torch::nn::Module {
  TwoHeadsImpl() {
    auto shared = torch::randn({4, 4});
    register_parameter("a", shared);
    register_parameter("b", shared);
  }
};

void PositiveClipGradNorm(TwoHeadsImpl &net) {
  torch::nn::utils::clip_grad_norm_(net.parameters(), 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'a' twice (also as 'b'); the total norm counts it twice and its gradient is scaled twice
  // CHECK-NOTES: :[[@LINE-8]]:5: note: 'a' and 'b' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-8]]:5: note: and here
}

void PositiveAddParamGroup(torch::optim::SGD &opt, TwoHeadsImpl &net) {
  opt.add_param_group(net.parameters());
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'add_param_group' is given a list that holds parameter 'a' twice (also as 'b'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-15]]:5: note: 'a' and 'b' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-15]]:5: note: and here
}

void PositiveListedTwice(torch::nn::Linear &lin) {
  torch::optim::SGD opt({lin->weight, lin->bias, lin->weight},
                        torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-2]]:21: warning: 'SGD' is built from a list that holds parameter 'lin->weight' twice; each step() updates it twice
  // CHECK-NOTES: :[[@LINE-3]]:26: note: 'lin->weight' and 'lin->weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-4]]:50: note: and here
}

// clip_grad_value_ clamps each gradient; clamping twice is clamping once.
void NegativeClipGradValue(TwoHeadsImpl &net) {
  torch::nn::utils::clip_grad_value_(net.parameters(), 1.0);
}

// A de-duplicated list: the loop that builds it is not followed.
void NegativeDeduplicated(TiedLM &model) {
  std::vector<torch::Tensor> unique;
  std::unordered_set<c10::TensorImpl *> seen;
  for (auto &p : model->parameters())
    if (seen.insert(p.unsafeGetTensorImpl()).second)
      unique.push_back(p);
  torch::optim::SGD opt(unique, torch::optim::SGDOptions(0.1));
}

std::vector<torch::Tensor> dedupe(const std::vector<torch::Tensor> &params);

void NegativeHelper(TiedLM &model) {
  torch::optim::SGD opt(dedupe(model->parameters()), torch::optim::SGDOptions(0.1));
}

// Optimizers built on the heap are sinks like those built in place.
void PositiveMakeUnique(TiedLM &model) {
  auto opt = std::make_unique<torch::optim::SGD>(model->parameters(),
                                                 torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-2]]:14: warning: 'SGD' is built from a list that holds parameter 'emb.weight' twice (also as 'out_weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once
  // CHECK-NOTES: :[[@LINE-90]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-90]]:18: note: and here
}

std::shared_ptr<torch::optim::Optimizer> PositiveMakeShared(TwoHeadsImpl &net) {
  return std::make_shared<torch::optim::Adam>(net.parameters());
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'Adam' is built from a list that holds parameter 'a' twice (also as 'b'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-60]]:5: note: 'a' and 'b' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-60]]:5: note: and here
}

torch::optim::Optimizer *PositiveNew(TwoHeadsImpl &net) {
  return new torch::optim::Adam(net.parameters());
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'Adam' is built from a list that holds parameter 'a' twice (also as 'b'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-67]]:5: note: 'a' and 'b' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-67]]:5: note: and here
}

void NegativeMakeUniqueDeduplicated(TiedLM &model) {
  auto opt = std::make_unique<torch::optim::SGD>(dedupe(model->parameters()),
                                                 torch::optim::SGDOptions(0.1));
  // Not an optimizer: a list is only a list.
  auto list = std::make_unique<std::vector<torch::Tensor>>(model->parameters());
}

// Copying values is not tying: two tensors, each registered once.
struct CopiedImpl : torch::nn::Module {
  CopiedImpl() {
    emb = register_module("emb", torch::nn::Embedding(100, 16));
    out = register_module("out", torch::nn::Linear(16, 100));
    torch::NoGradGuard no_grad;
    out->weight.copy_(emb->weight);
  }
  torch::nn::Embedding emb{nullptr};
  torch::nn::Linear out{nullptr};
};

void NegativeValueCopy() {
  CopiedImpl net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.1));
}

// Two tensors from two factory calls, and two instances of one class.
struct PairImpl : torch::nn::Module {
  PairImpl() {
    register_parameter("a", torch::randn({2}));
    register_parameter("b", torch::randn({2}));
  }
};

void NegativeTwoInstances() {
  auto x = std::make_shared<PairImpl>();
  auto y = std::make_shared<PairImpl>();
  auto params = x->parameters();
  auto more = y->parameters();
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}
