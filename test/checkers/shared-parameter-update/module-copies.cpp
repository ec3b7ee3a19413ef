// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Note [Modules copied by their copy constructor] and Note [Modules built
// over a given tensor]: a module object copied by the compiler's copy
// constructor holds the same tensors, and an Embedding given its weight
// registers that tensor itself.

#include <torch/torch.h>

#include <memory>
#include <vector>

struct CriticImpl : torch::nn::Module {
  CriticImpl(int64_t in, int64_t hidden) {
    fc = register_module("fc", torch::nn::Linear(in, hidden));
    out = register_module("out", torch::nn::Linear(hidden, 1));
  }
  torch::Tensor forward(const torch::Tensor &x) { return out(fc(x)); }
  torch::nn::Linear fc{nullptr}, out{nullptr};
};
TORCH_MODULE(Critic);

std::vector<torch::Tensor> joined(std::vector<torch::Tensor> a,
                                  const std::vector<torch::Tensor> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A twin critic made by copying the first one's module object.
void PositiveTwinByMakeShared() {
  Critic q1(4, 8);
  Critic q2(std::make_shared<CriticImpl>(*q1));
  torch::optim::SGD opt(joined(q1->parameters(), q2->parameters()),
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'fc.weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-2]]:36: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-3]]:54: note: and again here
                        torch::optim::SGDOptions(0.1));
}

// The copy registered as a second submodule of one model.
struct TwinImpl : torch::nn::Module {
  explicit TwinImpl(Critic first) {
    a = register_module("a", first);
    b = register_module("b", std::make_shared<CriticImpl>(*first));
  }
  Critic a{nullptr};
  std::shared_ptr<CriticImpl> b;
};
TORCH_MODULE(Twin);

void PositiveRegisteredCopy() {
  Twin twin(Critic(4, 8));
  torch::optim::Adam opt(twin->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'a.fc.weight' twice (also as 'b.fc.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-12]]:9: note: 'a' and 'b' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-12]]:9: note: and here
}

// clone() copies the tensors.
void NegativeClone() {
  Critic q1(4, 8);
  Critic q2(std::dynamic_pointer_cast<CriticImpl>(q1->clone()));
  torch::optim::SGD opt(joined(q1->parameters(), q2->parameters()),
                        torch::optim::SGDOptions(0.1));
}

// A class with a copy constructor of its own may copy deeply.
struct DeepImpl : torch::nn::Module {
  DeepImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  DeepImpl(const DeepImpl &other);
  torch::nn::Linear fc{nullptr};
};

void NegativeOwnCopyConstructor() {
  auto d1 = std::make_shared<DeepImpl>();
  auto d2 = std::make_shared<DeepImpl>(*d1);
  torch::optim::SGD opt(joined(d1->parameters(), d2->parameters()),
                        torch::optim::SGDOptions(0.1));
}

// Two embeddings over one pretrained table, left trainable.
struct Seq2SeqImpl : torch::nn::Module {
  explicit Seq2SeqImpl(const torch::Tensor &table) {
    auto options = torch::nn::EmbeddingFromPretrainedOptions().freeze(false);
    src = register_module("src",
                          torch::nn::Embedding::from_pretrained(table, options));
    tgt = register_module("tgt",
                          torch::nn::Embedding::from_pretrained(table, options));
  }
  torch::nn::Embedding src{nullptr}, tgt{nullptr};
};
TORCH_MODULE(Seq2Seq);

void PositiveFromPretrained(torch::Tensor table) {
  Seq2Seq model(table);
  torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'src.weight' twice (also as 'tgt.weight'); the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-12]]:27: note: 'src.weight' and 'tgt.weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-11]]:27: note: and here
}

// One tensor given to two embeddings through their options.
void PositiveOptionsWeight(torch::Tensor table) {
  torch::nn::Embedding enc(torch::nn::EmbeddingOptions(10, 4)._weight(table));
  torch::nn::Embedding dec(torch::nn::EmbeddingOptions(10, 4)._weight(table));
  torch::optim::SGD opt(joined(enc->parameters(), dec->parameters()),
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-4]]:24: note: 'weight' and 'weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-4]]:24: note: and here
                        torch::optim::SGDOptions(0.1));
}

// from_pretrained freezes its weight by default: nothing steps it.
struct FrozenImpl : torch::nn::Module {
  explicit FrozenImpl(const torch::Tensor &table) {
    src = register_module("src", torch::nn::Embedding::from_pretrained(table));
    tgt = register_module("tgt", torch::nn::Embedding::from_pretrained(table));
  }
  torch::nn::Embedding src{nullptr}, tgt{nullptr};
};
TORCH_MODULE(Frozen);

void NegativeFrozen(torch::Tensor table) {
  Frozen model(table);
  torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
}

// Each embedding over a table of its own.
void NegativeTwoTables(torch::Tensor a, torch::Tensor b) {
  auto options = torch::nn::EmbeddingFromPretrainedOptions().freeze(false);
  auto enc = torch::nn::Embedding::from_pretrained(a, options);
  auto dec = torch::nn::Embedding::from_pretrained(b, options);
  torch::optim::SGD opt(joined(enc->parameters(), dec->parameters()),
                        torch::optim::SGDOptions(0.1));
}

// A target network copied from the online module object: it holds the same
// tensors, so it moves with every step.
void PositiveTargetByObjectCopy(const torch::Tensor &x) {
  Critic online(4, 8);
  Critic target(std::make_shared<CriticImpl>(*online));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'SGD' updates the parameters of 'online', and 'target' is a copy of its module object, which holds the same parameter tensors: 'target' changes with every update [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE+1]]:21: note: 'SGD' updates the parameters of 'online' here
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  opt.step();
  target->forward(x);
}

// The same with a clone: a module of its own.
void NegativeTargetByClone(const torch::Tensor &x) {
  Critic online(4, 8);
  Critic target(std::dynamic_pointer_cast<CriticImpl>(online->clone()));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  opt.step();
  target->forward(x);
}
