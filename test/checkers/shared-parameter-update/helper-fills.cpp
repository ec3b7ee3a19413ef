// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A helper given the list by non-const reference appends what it inserts,
// with its module parameters standing for the modules passed (Note [Lists
// filled by a helper]).

#include <torch/torch.h>

#include <algorithm>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    enc = register_module("enc", torch::nn::Linear(4, 4));
    head = register_module("head", torch::nn::Linear(4, 2));
  }
  torch::nn::Linear enc{nullptr}, head{nullptr};
};
TORCH_MODULE(Net);

void addParams(std::vector<torch::Tensor> &out, torch::nn::Module &m) {
  auto ps = m.parameters();
  out.insert(out.end(), ps.begin(), ps.end());
}

// The whole model, then its encoder again.
void PositiveHelperCalledTwice(Net &model) {
  std::vector<torch::Tensor> params;
  addParams(params, *model);
  addParams(params, *model->enc);
  torch::optim::Adam opt(params);
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'enc.weight' twice (also as 'weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: the parameters of 'model' include those of its submodule 'enc'
  // CHECK-NOTES: :[[@LINE-4]]:3: note: and the submodule's are added again here
}

// A helper that pushes one tensor, after the module's own list.
void addWeight(std::vector<torch::Tensor> &out, torch::nn::Linear &lin) {
  out.push_back(lin->weight);
}

void PositivePushedByHelper(torch::nn::Linear &lin) {
  std::vector<torch::Tensor> params = lin->parameters();
  addWeight(params, lin);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice (also as 'lin->weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-4]]:44: note: the list gets 'weight' here
  // CHECK-NOTES: :[[@LINE-9]]:7: note: and again here
}

// A helper that calls another helper with the list.
void addBoth(std::vector<torch::Tensor> &out, Net &model) {
  addParams(out, *model->head);
  addParams(out, *model);
}

void PositiveNestedHelpers(Net &model) {
  std::vector<torch::Tensor> params;
  addBoth(params, model);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice (also as 'head.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-8]]:3: note: the parameters of 'model' include those of its submodule 'head'
  // CHECK-NOTES: :[[@LINE-10]]:3: note: and the submodule's are added again here
}

// A method of a collector object that fills the caller's list.
struct Collector {
  void add(std::vector<torch::Tensor> &out, torch::nn::Module &m) {
    for (auto &p : m.parameters())
      out.push_back(p);
  }
};

void PositiveCollectorMethod(Net &model) {
  Collector c;
  std::vector<torch::Tensor> params;
  c.add(params, *model->head);
  c.add(params, *model);
  torch::optim::Adam opt(params);
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'weight' twice (also as 'head.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-3]]:5: note: the parameters of 'model' include those of its submodule 'head'
  // CHECK-NOTES: :[[@LINE-5]]:5: note: and the submodule's are added again here
}

// Negative: distinct modules.
void NegativeDistinctModules(Net &model) {
  std::vector<torch::Tensor> params;
  addParams(params, *model->enc);
  addParams(params, *model->head);
  torch::optim::Adam opt(params);
}

// Negative: a helper that de-duplicates the list by its tensors.
void dedupe(std::vector<torch::Tensor> &ps) {
  std::vector<torch::Tensor> unique;
  for (auto &p : ps)
    if (std::none_of(unique.begin(), unique.end(), [&](const torch::Tensor &q) {
          return q.is_same(p);
        }))
      unique.push_back(p);
  ps = unique;
}

void NegativeDedupedByHelper(Net &model) {
  std::vector<torch::Tensor> params;
  addParams(params, *model);
  addParams(params, *model->enc);
  dedupe(params);
  torch::optim::Adam opt(params);
}

// Negative: a function with no body here may do anything to the list.
void normalizeList(std::vector<torch::Tensor> &ps);

void NegativeOpaqueHelper(Net &model) {
  std::vector<torch::Tensor> params = model->parameters();
  auto more = model->enc->parameters();
  params.insert(params.end(), more.begin(), more.end());
  normalizeList(params);
  torch::optim::Adam opt(params);
}

// Negative: a helper that only reads the list.
int64_t countElements(const std::vector<torch::Tensor> &ps) {
  int64_t n = 0;
  for (auto &p : ps)
    n += p.numel();
  return n;
}

void NegativeReadOnlyHelper(Net &model) {
  std::vector<torch::Tensor> params;
  addParams(params, *model->enc);
  countElements(params);
  addParams(params, *model->head);
  torch::optim::Adam opt(params);
}
