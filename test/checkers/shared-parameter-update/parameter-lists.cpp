// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Parameter lists are multisets of tensors: libtorch keeps every copy a list
// is given, and an optimizer steps a tensor once per copy.

#include <set>
#include <torch/torch.h>

struct EncoderHeadImpl : torch::nn::Module {
  EncoderHeadImpl() {
    encoder = register_module("encoder", torch::nn::Linear(4, 4));
    head = register_module("head", torch::nn::Linear(4, 2));
  }
  torch::nn::Linear encoder{nullptr}, head{nullptr};
};
TORCH_MODULE(EncoderHead);

// A list built step by step: push_back of a tensor the list already holds.
void PositivePushBackTensor(torch::nn::Linear &lin) {
  std::vector<torch::Tensor> params = lin->parameters();
  params.push_back(lin->weight);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice (also as 'lin->weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the tensor once
  // CHECK-NOTES: :[[@LINE-4]]:44: note: the list gets 'weight' here
  // CHECK-NOTES: :[[@LINE-4]]:10: note: and again here
}

// Distinct tensors of one module, each pushed once.
void NegativePushBackDistinct(torch::nn::Linear &lin) {
  std::vector<torch::Tensor> params;
  params.push_back(lin->weight);
  params.emplace_back(lin->bias);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

void PositiveEmplaceBackTwice(torch::nn::Linear &lin) {
  std::vector<torch::Tensor> params;
  params.emplace_back(lin->weight);
  params.emplace_back(lin->bias);
  params.emplace_back(lin->weight);
  torch::optim::Adam opt(params);
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'lin->weight' twice; each step() updates it twice
  // CHECK-NOTES: :[[@LINE-5]]:10: note: the list gets 'lin->weight' here
  // CHECK-NOTES: :[[@LINE-4]]:10: note: and again here
}

// A range-for that copies a module's parameters, then the same module's
// parameters inserted again.
void PositiveLoopCopyAndInsert(EncoderHead &model) {
  std::vector<torch::Tensor> params;
  for (auto &p : model->parameters())
    params.push_back(p);
  auto head = model->head->parameters();
  params.insert(params.end(), head.begin(), head.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'head.weight' twice (also as 'weight'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-6]]:25: note: the parameters of 'model' include those of its submodule 'head'
  // CHECK-NOTES: :[[@LINE-5]]:28: note: and the submodule's are added again here
}

// A filtered copy is not followed: which part it keeps is not known.
void NegativeFilteredLoop(EncoderHead &model) {
  std::vector<torch::Tensor> decay, no_decay;
  for (auto &item : model->named_parameters()) {
    if (item.key().find("bias") != std::string::npos)
      continue;
    decay.push_back(item.value());
  }
  for (auto &item : model->named_parameters()) {
    if (item.key().find("bias") == std::string::npos)
      continue;
    no_decay.push_back(item.value());
  }
  torch::optim::SGD opt({torch::optim::OptimizerParamGroup(decay),
                         torch::optim::OptimizerParamGroup(no_decay)},
                        torch::optim::SGDOptions(0.1));
}

// `assign` replaces what the list held.
void NegativeAssignReplaces(EncoderHead &model) {
  std::vector<torch::Tensor> params = model->parameters();
  auto head = model->head->parameters();
  params.assign(head.begin(), head.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// Parameter groups grown with emplace_back: one group holds the model, the
// other its submodule, so the submodule is stepped twice.
void PositiveOverlappingGroups(EncoderHead &model) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model->parameters());
  groups.emplace_back(model->encoder->parameters());
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'encoder.weight' twice (also as 'weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once
  // CHECK-NOTES: :[[@LINE-4]]:30: note: the parameters of 'model' include those of its submodule 'encoder'
  // CHECK-NOTES: :[[@LINE-4]]:39: note: and the submodule's are added again here
}

// Sibling submodules do not overlap.
void NegativeSiblingGroups(EncoderHead &model) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model->encoder->parameters());
  groups.push_back(torch::optim::OptimizerParamGroup(model->head->parameters()));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
}

// Two instances of one class are two models.
void NegativeTwoInstances() {
  EncoderHead a, b;
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(a->parameters());
  groups.emplace_back(b->parameters());
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
}

void PositiveAddParamGroupOverlap(EncoderHead &model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  std::vector<torch::Tensor> head = model->head->parameters();
  head.insert(head.end(), model->parameters().begin(), model->parameters().end());
  opt.add_param_group(head);
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'add_param_group' is given a list that holds parameter 'weight' twice (also as 'head.weight'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-3]]:34: note: the parameters of 'model' include those of its submodule 'head'
  // CHECK-NOTES: :[[@LINE-5]]:50: note: and the submodule's are added again here
}

// A list returned by a function of the translation unit.
std::vector<torch::Tensor> encoderAndModel(EncoderHead &model) {
  std::vector<torch::Tensor> params = model->encoder->parameters();
  auto all = model->parameters();
  params.insert(params.end(), all.begin(), all.end());
  return params;
}

void PositiveReturnedList(EncoderHead &model) {
  torch::optim::SGD opt(encoderAndModel(model), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice (also as 'encoder.weight'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-8]]:21: note: the parameters of 'model' include those of its submodule 'encoder'
  // CHECK-NOTES: :[[@LINE-10]]:55: note: and the submodule's are added again here
}

// A de-duplicating helper keeps its list unknown.
std::vector<torch::Tensor> uniqueOf(std::vector<torch::Tensor> in) {
  std::vector<torch::Tensor> out;
  for (auto &p : in) {
    bool seen = false;
    for (auto &q : out)
      seen = seen || q.is_same(p);
    if (!seen)
      out.push_back(p);
  }
  return out;
}

void NegativeDeduplicatingHelper(EncoderHead &model) {
  auto params = model->parameters();
  auto enc = model->encoder->parameters();
  params.insert(params.end(), enc.begin(), enc.end());
  torch::optim::SGD opt(uniqueOf(params), torch::optim::SGDOptions(0.1));
}

// Two models built by one helper are distinct.
std::vector<torch::Tensor> paramsOf(EncoderHead &model) {
  return model->parameters();
}

void NegativeHelperOnTwoModels(EncoderHead &a, EncoderHead &b) {
  auto params = paramsOf(a);
  auto more = paramsOf(b);
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

void PositiveHelperOnOneModelTwice(EncoderHead &a) {
  auto params = paramsOf(a);
  auto more = paramsOf(a);
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'encoder.weight' twice; each step() updates it twice
  // CHECK-NOTES: :[[@LINE-5]]:17: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-5]]:15: note: and again here
}

// A copy that de-duplicates by TensorImpl is not followed.
void NegativeDeduplicatingLoop(EncoderHead &model) {
  auto all = model->parameters();
  auto enc = model->encoder->parameters();
  all.insert(all.end(), enc.begin(), enc.end());
  std::vector<torch::Tensor> unique;
  std::set<c10::TensorImpl *> seen;
  for (auto &p : all)
    if (seen.insert(p.unsafeGetTensorImpl()).second)
      unique.push_back(p);
  torch::optim::SGD opt(unique, torch::optim::SGDOptions(0.1));
}

// The parameters of two sibling submodules, copied one by one.
void NegativeSiblingCopies(EncoderHead &model) {
  std::vector<torch::Tensor> params;
  for (auto &p : model->encoder->parameters())
    params.push_back(p);
  for (auto &p : model->head->parameters())
    params.push_back(p);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// An erase makes the list unknown.
void NegativeErased(EncoderHead &model) {
  auto params = model->parameters();
  params.push_back(model->encoder->weight);
  params.erase(params.begin());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}
