// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Note [Dictionaries of modules]: a ModuleDict registers each pair's module
// under its key, so one module under two keys is registered twice.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

using Pairs = std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>>;

// A relation and its inverse share a transform.
struct RelationalImpl : torch::nn::Module {
  explicit RelationalImpl(const std::vector<std::string> &relations) {
    Pairs table;
    for (const auto &rel : relations) {
      torch::nn::Linear w(4, 4);
      table.emplace_back(rel, w.ptr());
      table.emplace_back(rel + "_inv", w.ptr());
    }
    transforms = register_module("transforms", torch::nn::ModuleDict(table));
  }
  torch::nn::ModuleDict transforms{nullptr};
};
TORCH_MODULE(Relational);

void PositiveRelationAndInverse(const std::vector<std::string> &relations) {
  Relational net(relations);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'transforms.rel.weight' twice (also as 'transforms.rel + "_inv".weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-13]]:13: note: 'rel' and 'rel + "_inv"' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-13]]:13: note: and here
}

// A brace list of pairs, and pairs made by std::make_pair.
void PositiveBraceListAndMadePairs() {
  torch::nn::Linear shared(4, 4);
  torch::nn::ModuleDict heads(Pairs{{"click", shared.ptr()}, {"buy", shared.ptr()}});
  torch::optim::Adam a(heads->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'click.weight' twice (also as 'buy.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-3]]:37: note: 'click' and 'buy' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-4]]:62: note: and here

  torch::nn::Linear trunk(4, 4), head(4, 2);
  Pairs parts;
  parts.push_back(std::make_pair("trunk", trunk.ptr()));
  parts.push_back(std::make_pair("head", head.ptr()));
  parts.push_back(std::make_pair("encoder", trunk.ptr()));
  torch::nn::ModuleDict dict(parts);
  torch::nn::utils::clip_grad_norm_(dict->parameters(), 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'trunk.weight' twice (also as 'encoder.weight'); the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-6]]:9: note: 'trunk' and 'encoder' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-5]]:9: note: and here
}

// The same key again replaces the module: it is registered once.
void NegativeSameKeyReplaces() {
  torch::nn::Linear shared(4, 4);
  torch::nn::ModuleDict heads(Pairs{{"click", shared.ptr()}, {"click", shared.ptr()}});
  torch::optim::Adam a(heads->parameters());
}

// Keys that may be equal: the second may replace the first.
void NegativeKeysNotKnownToDiffer(const std::string &first, const std::string &second) {
  torch::nn::Linear shared(4, 4);
  Pairs table;
  table.emplace_back(first, shared.ptr());
  table.emplace_back(second, shared.ptr());
  torch::nn::ModuleDict dict(table);
  torch::optim::Adam a(dict->parameters());
}

// A module per relation.
struct SeparateImpl : torch::nn::Module {
  explicit SeparateImpl(const std::vector<std::string> &relations) {
    Pairs table;
    for (const auto &rel : relations) {
      torch::nn::Linear w(4, 4), inverse(4, 4);
      table.emplace_back(rel, w.ptr());
      table.emplace_back(rel + "_inv", inverse.ptr());
    }
    transforms = register_module("transforms", torch::nn::ModuleDict(table));
  }
  torch::nn::ModuleDict transforms{nullptr};
};
TORCH_MODULE(Separate);

void NegativeSeparateModules(const std::vector<std::string> &relations) {
  Separate net(relations);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
}
