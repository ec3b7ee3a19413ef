// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Lists concatenated by a function of the translation unit, `+` among them,
// and lists that accumulate by assignment (`params = params + more;`),
// Note [Lists returned by functions] and Note [Lists that accumulate by
// assignment].

#include <torch/torch.h>

#include <vector>

using Params = std::vector<torch::Tensor>;

static Params operator+(Params a, const Params &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Params concat(Params a, const Params &b) {
  for (const auto &p : b)
    a.push_back(p);
  return a;
}

// A concatenation that drops what the first list holds: not followed.
Params merge_unique(Params a, const Params &b) {
  for (const auto &p : b) {
    bool seen = false;
    for (const auto &q : a)
      seen |= p.is_same(q);
    if (!seen)
      a.push_back(p);
  }
  return a;
}

void PositivePlusOfOneModuleTwice(torch::nn::Linear &a) {
  Params all = a->parameters() + a->parameters();
  torch::optim::SGD opt(all, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once
  // CHECK-NOTES: :[[@LINE-3]]:19: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-4]]:37: note: and again here
}

void PositiveHelperOfTiedModules() {
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential body(shared);
  Params params = concat(body->parameters(), shared->parameters());
  torch::optim::Adam opt(params, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter '0.weight' twice (also as 'weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once
  // CHECK-NOTES: :[[@LINE-3]]:32: note: the parameters of 'body' include those of its submodule '0'
  // CHECK-NOTES: :[[@LINE-4]]:54: note: and the submodule's are added again here
}

// `params = params + b->parameters()` in a loop over a container filled with
// one handle: every block is one module.
void PositiveAccumulatedOverFilledBlocks() {
  std::vector<torch::nn::Linear> blocks(3, torch::nn::Linear(8, 8));
  // CHECK-FIXES: {{^}}  std::vector<torch::nn::Linear> blocks;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (std::size_t i = 0; i < 3; ++i){{$}}
  // CHECK-FIXES-NEXT: {{^}}    blocks.push_back(torch::nn::Linear(8, 8));{{$}}
  torch::nn::Linear readout(8, 1);
  Params params = readout->parameters();
  for (auto &b : blocks)
    params = params + b->parameters();
  torch::optim::SGD opt(params, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice; construct a separate module for each element
  // CHECK-NOTES: :[[@LINE-10]]:34: note: every element of this container is a handle to one module
}

// Accumulating through a helper, outside a loop.
void PositiveAccumulatedTwice(torch::nn::Linear &a, torch::nn::Linear &b) {
  Params params = a->parameters();
  params = concat(params, b->parameters());
  params = params + a->parameters();
  torch::optim::SGD opt(params, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice
  // CHECK-NOTES: :[[@LINE-5]]:22: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-4]]:24: note: and again here
}

void NegativeDistinctModules() {
  torch::nn::Linear a(2, 2), b(2, 2);
  Params all = a->parameters() + b->parameters();
  torch::optim::SGD opt(all, 0.1);
  Params params;
  for (auto *m : {a.get(), b.get()})
    params = params + m->parameters();
  torch::optim::SGD opt2(params, 0.1);
  Params both = concat(a->parameters(), b->parameters());
  torch::optim::SGD opt3(both, 0.1);
}

// An assignment that replaces the list rather than adding to it: after the
// loop it holds the last module's parameters only, which is not a list we
// follow.
void NegativeReplacedEachIteration(torch::nn::Linear &a) {
  Params last;
  for (auto *m : {a.get(), a.get()})
    last = m->parameters();
  torch::optim::SGD opt(last, 0.1);
}

void NegativeDeduplicatingHelper(torch::nn::Linear &a) {
  Params params = merge_unique(a->parameters(), a->parameters());
  torch::optim::SGD opt(params, 0.1);
}
