// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Lists built by a loop over a range of modules hold the concatenation of
// the modules' parameters() (Note [Lists built over a range of modules]).

#include <torch/torch.h>
#include <memory>
#include <unordered_set>
#include <vector>

struct TrunkImpl : torch::nn::Module {
  TrunkImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Trunk);

// Registers the trunk it is given: two heads built on one trunk share it.
struct HeadImpl : torch::nn::Module {
  explicit HeadImpl(Trunk trunk) {
    body = register_module("body", trunk);
    out = register_module("out", torch::nn::Linear(4, 2));
  }
  Trunk body{nullptr};
  torch::nn::Linear out{nullptr};
};
TORCH_MODULE(Head);

// Registers another module's tensor as its own parameter.
struct ProjectionImpl : torch::nn::Module {
  explicit ProjectionImpl(torch::Tensor w) {
    weight = register_parameter("weight", w);
  }
  torch::Tensor weight;
};
TORCH_MODULE(Projection);

// Only reads the trunk it is given: it shares nothing with it.
struct ProbeImpl : torch::nn::Module {
  explicit ProbeImpl(Trunk trunk) {
    out = register_module("out", torch::nn::Linear(trunk->fc->weight.size(0), 2));
  }
  torch::nn::Linear out{nullptr};
};
TORCH_MODULE(Probe);

void PositiveBraceListOfPointers() {
  torch::nn::Embedding embed(10, 4);
  Projection proj(embed->weight);
  std::vector<torch::Tensor> params;
  for (torch::nn::Module *part : {static_cast<torch::nn::Module *>(embed.get()),
                                  static_cast<torch::nn::Module *>(proj.get())}) {
    auto more = part->parameters();
    params.insert(params.end(), more.begin(), more.end());
  }
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once
  // CHECK-NOTES: :[[@LINE-10]]:24: note: 'weight' and 'weight' are the same tensor, registered here
  // CHECK-NOTES: :30:14: note: and here
}

void PositiveLocalVectorNested() {
  Trunk trunk;
  Head policy(trunk), value(trunk);
  std::vector<std::shared_ptr<torch::nn::Module>> parts = {policy.ptr(),
                                                           value.ptr()};
  std::vector<torch::Tensor> all;
  for (const auto &part : parts)
    for (const auto &p : part->parameters())
      all.push_back(p);
  torch::optim::Adam opt(all, torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'body.fc.weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once
  // CHECK-NOTES: :[[@LINE-8]]:60: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-8]]:60: note: another starts here
  // CHECK-NOTES: :19:12: note: both reach this registration of 'body' with the same module
}

// A helper concatenates the modules it is given.
std::vector<torch::Tensor>
gather(const std::vector<std::shared_ptr<torch::nn::Module>> &modules) {
  std::vector<torch::Tensor> out;
  for (const auto &m : modules) {
    auto ps = m->parameters();
    out.insert(out.end(), ps.begin(), ps.end());
  }
  return out;
}

void PositiveHelperOverBraceList(Trunk trunk) {
  Head a(trunk), b(trunk);
  torch::nn::utils::clip_grad_norm_(gather({a.ptr(), b.ptr()}), 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'body.fc.weight' twice; the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or register the module once
  // CHECK-NOTES: :[[@LINE-2]]:45: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-3]]:54: note: another starts here
  // CHECK-NOTES: :19:12: note: both reach this registration of 'body' with the same module
}

void PositiveSameHandleTwice() {
  torch::nn::Linear enc(4, 4);
  auto dec = enc;
  std::vector<torch::Tensor> params;
  for (const auto &m : {enc, dec})
    for (auto &p : m->parameters())
      params.push_back(p);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once
  // CHECK-NOTES: :[[@LINE-5]]:25: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-6]]:30: note: and again here
}

void NegativeDistinctParts() {
  Trunk t1, t2;
  Head policy(t1), value(t2);
  std::vector<torch::Tensor> all;
  for (const auto &part : std::vector<std::shared_ptr<torch::nn::Module>>{
           policy.ptr(), value.ptr()})
    for (const auto &p : part->parameters())
      all.push_back(p);
  torch::optim::Adam opt(all, torch::optim::AdamOptions(1e-3));
}

// A module constructed from another is not a handle to it.
void NegativeConstructedFromAnother() {
  Trunk trunk;
  Probe probe(trunk);
  auto params = trunk->parameters();
  auto more = probe->parameters();
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

void NegativeDeduplicated() {
  Trunk trunk;
  Head policy(trunk), value(trunk);
  std::unordered_set<c10::TensorImpl *> seen;
  std::vector<torch::Tensor> all;
  for (const auto &part : {policy.ptr(), value.ptr()})
    for (const auto &p : part->parameters())
      if (seen.insert(p.unsafeGetTensorImpl()).second)
        all.push_back(p);
  torch::optim::Adam opt(all, torch::optim::AdamOptions(1e-3));
}

// The loop skips the second head: the trunk is added once.
void NegativeSkipsTheSecond() {
  Trunk trunk;
  Head policy(trunk), value(trunk);
  std::vector<torch::Tensor> all;
  for (const auto &part : {policy.ptr(), value.ptr()}) {
    if (part == value.ptr())
      continue;
    auto ps = part->parameters();
    all.insert(all.end(), ps.begin(), ps.end());
  }
  torch::optim::Adam opt(all, torch::optim::AdamOptions(1e-3));
}

// One list, and one optimizer, per module.
void NegativeOneListPerModule() {
  Trunk trunk;
  Head policy(trunk), value(trunk);
  for (const auto &part : {policy.ptr(), value.ptr()}) {
    std::vector<torch::Tensor> own;
    for (const auto &p : part->parameters())
      own.push_back(p);
    torch::optim::SGD opt(own, torch::optim::SGDOptions(0.1));
  }
}
