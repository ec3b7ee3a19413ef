// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

void PositiveLibraryMember(torch::nn::Linear &lin, const torch::Tensor &w) {
  lin->weight = w * 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it: 'LinearImpl' computes with the new tensor, but parameters(), to() and serialization still see the one registered as 'weight' [libtorch-shared-parameter-update]
}

struct ScaleImpl : torch::nn::Module {
  ScaleImpl() { scale = register_parameter("scale", torch::ones({1})); }
  torch::Tensor scale;
  torch::Tensor cache;
};

void PositiveUserMember(ScaleImpl &m, const torch::Tensor &s) {
  m.scale = s;
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: assigning 'scale' does not re-register it: 'ScaleImpl' computes with the new tensor, but parameters(), to() and serialization still see the one registered as 'scale'
}

// Note [Ties by assignment]: a tie to another module's registered tensor,
// directly or through a call that returns its argument. The optimizer steps
// the tied tensor through the other module; the stale one gets no gradient.
void NegativeTieToRegistered(torch::nn::Linear &lin, torch::nn::Embedding &emb,
                             ScaleImpl &m) {
  lin->weight = emb->weight;
  lin->bias = m.scale;
}

// A view of another module's tensor: to() gives that tensor new storage, and
// the view keeps the old one.
void PositiveTieToAView(torch::nn::Linear &lin, torch::nn::Linear &other) {
  lin->weight = other->weight.t();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it
}

// Members that are not registered parameters, and the constructor binding
// the member it registers.
void NegativeUnregistered(ScaleImpl &m, const torch::Tensor &c) { m.cache = c; }

// Copying values keeps the registered tensor.
void NegativeValueCopy(torch::nn::Linear &lin, torch::nn::Embedding &emb) {
  torch::NoGradGuard no_grad;
  lin->weight.copy_(emb->weight);
}

// Assigning a member the tensor it already holds (Note [Assigning a member
// the tensor it holds]): a helper that copies into its argument and returns
// it, in-place operators, and chains of both.
torch::Tensor assign(torch::Tensor left, const torch::Tensor &right) {
  torch::NoGradGuard no_grad;
  left.copy_(right);
  return left;
}
torch::Tensor doubled(const torch::Tensor &t) { return t * 2; }

struct BlockImpl : torch::nn::Module {
  BlockImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::nn::Linear fc{nullptr};
};

void NegativeAssignHelper(torch::nn::Linear &lin, ScaleImpl &m,
                          torch::nn::ModuleHolder<BlockImpl> &block,
                          const torch::Tensor &w) {
  lin->weight = assign(lin->weight, w);
  lin->bias = assign(assign(lin->bias, w), w);
  m.scale = assign(m.scale, w);
  block->fc->weight = assign(block->fc->weight, w.t());
  torch::NoGradGuard no_grad;
  m.scale = m.scale.copy_(w);
}

void PositiveAssignOtherTensor(torch::nn::Linear &lin, torch::nn::Embedding &emb,
                               const torch::Tensor &w) {
  lin->weight = assign(w, emb->weight);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it
  lin->weight = assign(emb->weight, w);
  lin->weight = doubled(lin->weight);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it
  lin->weight = lin->weight.t();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it
}

// Reparametrisation (Note [Reparametrised members]): a method recomputing a
// registered member from the module's other registered members, as weight
// and spectral normalisation do on every forward.
struct WeightNormLinearImpl : torch::nn::LinearImpl {
  WeightNormLinearImpl(int64_t in, int64_t out) : torch::nn::LinearImpl(in, out) {
    g = register_parameter("g", torch::ones({out, 1}));
    v = register_parameter("v", torch::randn({out, in}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    weight = g * v / v.norm();
    return torch::nn::LinearImpl::forward(x);
  }
  torch::Tensor g, v;
};

struct SpectralNormImpl : torch::nn::Module {
  SpectralNormImpl() {
    weight_orig = register_parameter("weight_orig", torch::randn({4, 4}));
    u = register_buffer("u", torch::randn({4}));
    weight = register_parameter("weight", torch::randn({4, 4}), false);
  }
  torch::Tensor forward(const torch::Tensor &x) {
    auto sigma = u.matmul(weight_orig).norm();
    weight = weight_orig / sigma;
    return x.matmul(weight);
  }
  torch::Tensor weight_orig, u, weight;
};

// Positive: a fresh value that no registered member feeds, and one computed
// from the member itself only: the optimizer keeps stepping the registered
// tensor the module no longer uses.
struct ResettingImpl : torch::nn::Module {
  ResettingImpl() {
    bias = register_parameter("bias", torch::zeros({4}));
    scale = register_parameter("scale", torch::ones({4}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    bias = torch::zeros({4});
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: assigning 'bias' does not re-register it
    scale = scale * 2;
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: assigning 'scale' does not re-register it
    return x * scale + bias;
  }
  torch::Tensor bias, scale;
};
