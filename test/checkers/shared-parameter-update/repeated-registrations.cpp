// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

#include <set>
#include <string>
#include <vector>

// Note [Registrations repeated by a loop]: every layer registers the module
// it is given.
struct HopImpl : torch::nn::Module {
  HopImpl(int64_t dim, torch::nn::Linear self)
      : neigh(register_module("neigh", torch::nn::Linear(dim, dim))),
        self(register_module("self", self)) {}
  torch::nn::Linear neigh, self;
};
TORCH_MODULE(Hop);

// Each pass builds a new layer around the same member module.
struct StackImpl : torch::nn::Module {
  StackImpl(int64_t dim, int64_t depth) : root(torch::nn::Linear(dim, dim)) {
    for (int64_t i = 0; i < depth; ++i)
      hops.push_back(register_module("hop" + std::to_string(i), Hop(dim, root)));
  }
  torch::nn::Linear root;
  std::vector<Hop> hops;
};
TORCH_MODULE(Stack);

void PositiveLayerPerPassAroundSharedMember() {
  Stack net(8, 3);
  torch::optim::Adam opt(net->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter '"hop" + std::to_string(i).self.weight' twice; each step() updates it twice; register the shared module in one place only [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-11]]:22: note: every iteration of the loop registers a new module here, built from 'root', and each holds that same module
}

// A constructor parameter, shared by a while loop's layers, built with
// make_shared.
struct TowerImpl : torch::nn::Module {
  TowerImpl(torch::nn::Linear trunk, int n) {
    int i = 0;
    while (i < n) {
      register_module("hop" + std::to_string(i), std::make_shared<HopImpl>(4, trunk));
      ++i;
    }
  }
};
TORCH_MODULE(Tower);

void PositiveMakeSharedPerPassAroundParameter() {
  Tower tower(torch::nn::Linear(4, 4), 2);
  torch::optim::SGD opt(tower->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '"hop" + std::to_string(i).self.weight' twice; each step() updates it twice; register the shared module in one place only [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-11]]:7: note: every iteration of the loop registers a new module here, built from 'trunk', and each holds that same module
}

// One handle registered under a new name on every pass.
struct UnrolledImpl : torch::nn::Module {
  explicit UnrolledImpl(int steps) : cell(torch::nn::Linear(4, 4)) {
    for (int t = 0; t < steps; ++t)
      register_module("step" + std::to_string(t), cell);
  }
  torch::nn::Linear cell;
};
TORCH_MODULE(Unrolled);

void PositiveOneHandleRegisteredPerPass() {
  Unrolled net(4);
  torch::nn::utils::clip_grad_norm_(net->parameters(), 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter '"step" + std::to_string(t).weight' twice; the total norm counts it twice and its gradient is scaled twice; construct a separate module for each element [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-10]]:7: note: every iteration of the loop registers 'cell' here, a handle to the same module
}

// A tensor argument the layer registers as its own parameter.
struct ScaleImpl : torch::nn::Module {
  ScaleImpl(torch::Tensor gain) : gain(register_parameter("gain", gain)) {}
  torch::Tensor gain;
};
TORCH_MODULE(Scale);

struct ScalesImpl : torch::nn::Module {
  explicit ScalesImpl(int n) {
    shared_gain = torch::ones({4});
    for (int i = 0; i < n; ++i)
      register_module("scale" + std::to_string(i), Scale(shared_gain));
  }
  torch::Tensor shared_gain;
};
TORCH_MODULE(Scales);

void PositiveLayerPerPassAroundSharedTensor() {
  Scales net(3);
  torch::optim::Adam opt(net->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter '"scale" + std::to_string(i).gain' twice; each step() updates it twice; register the shared module in one place only [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-10]]:7: note: every iteration of the loop registers a new module here, built from 'shared_gain', and each holds that same tensor
}

// Each pass builds a new layer around a new module: nothing is shared.
struct FreshStackImpl : torch::nn::Module {
  explicit FreshStackImpl(int64_t depth) {
    for (int64_t i = 0; i < depth; ++i)
      register_module("hop" + std::to_string(i), Hop(8, torch::nn::Linear(8, 8)));
  }
};
TORCH_MODULE(FreshStack);

// A layer that uses the module it is given without registering it.
struct ReaderImpl : torch::nn::Module {
  ReaderImpl(torch::nn::Linear read) : read(read) {
    own = register_module("own", torch::nn::Linear(4, 4));
  }
  torch::nn::Linear read;
  torch::nn::Linear own{nullptr};
};
TORCH_MODULE(Reader);

struct ReadersImpl : torch::nn::Module {
  explicit ReadersImpl(int n) : shared(torch::nn::Linear(4, 4)) {
    for (int i = 0; i < n; ++i)
      register_module("reader" + std::to_string(i), Reader(shared));
  }
  torch::nn::Linear shared;
};
TORCH_MODULE(Readers);

// A different module on every pass.
struct PerPassImpl : torch::nn::Module {
  explicit PerPassImpl(std::vector<torch::nn::Linear> roots) {
    for (size_t i = 0; i < roots.size(); ++i)
      register_module("hop" + std::to_string(i), Hop(4, roots[i]));
  }
};
TORCH_MODULE(PerPass);

void NegativeNothingSharedAcrossPasses(std::vector<torch::nn::Linear> roots) {
  FreshStack fresh(3);
  torch::optim::Adam a(fresh->parameters());
  Readers readers(3);
  torch::optim::Adam b(readers->parameters());
  PerPass per_pass(roots);
  torch::optim::Adam c(per_pass->parameters());
}

// Note [Own parameters collected over modules()]: modules() walks a shared
// module once per parent, so its own parameters are collected twice.
struct TwinImpl : torch::nn::Module {
  TwinImpl() : shared(torch::nn::Linear(4, 4)) {
    register_module("left", Hop(4, shared));
    register_module("right", Hop(4, shared));
  }
  torch::nn::Linear shared;
};
TORCH_MODULE(Twin);

void PositiveOwnParametersOverModules() {
  Twin net;
  std::vector<torch::Tensor> flat;
  for (const auto &m : net->modules(/*include_self=*/false))
    for (const auto &p : m->parameters(/*recurse=*/false))
      flat.push_back(p);
  torch::optim::SGD opt(flat, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'left.self.weight' twice (also as 'right.self.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-15]]:5: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-15]]:5: note: another starts here
  // CHECK-NOTES: :[[@LINE-151]]:14: note: both reach this registration of 'self' with the same module
}

// The same walk in a helper that returns the list.
std::vector<torch::Tensor> own_parameters(const torch::nn::Module &net) {
  std::vector<torch::Tensor> flat;
  for (const auto &m : net.modules(false))
    for (const auto &p : m->parameters(false))
      flat.push_back(p);
  return flat;
}

void PositiveOwnParametersFromHelper() {
  Twin net;
  torch::optim::Adam opt(own_parameters(*net));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'left.self.weight' twice (also as 'right.self.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-33]]:5: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-33]]:5: note: another starts here
  // CHECK-NOTES: :[[@LINE-169]]:14: note: both reach this registration of 'self' with the same module
}

void NegativeOwnParametersOfATree() {
  Stack unused(4, 1);
  FreshStack net(3);
  std::vector<torch::Tensor> flat;
  for (const auto &m : net->modules())
    for (const auto &p : m->parameters(false))
      flat.push_back(p);
  torch::optim::SGD opt(flat, torch::optim::SGDOptions(0.1));
}

void NegativeOwnParametersDeduplicated() {
  Twin net;
  std::vector<torch::Tensor> flat;
  std::set<c10::TensorImpl *> seen;
  for (const auto &m : net->modules(false))
    for (const auto &p : m->parameters(false))
      if (seen.insert(p.unsafeGetTensorImpl()).second)
        flat.push_back(p);
  torch::optim::SGD opt(flat, torch::optim::SGDOptions(0.1));
}

void NegativeListPerModule() {
  Twin net;
  for (const auto &m : net->modules(false)) {
    std::vector<torch::Tensor> own;
    for (const auto &p : m->parameters(false))
      own.push_back(p);
    torch::optim::SGD opt(own, torch::optim::SGDOptions(0.1));
  }
}
