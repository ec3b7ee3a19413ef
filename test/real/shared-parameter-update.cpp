// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %real_torch

#include <torch/torch.h>

#include <functional>

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
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'emb.weight' twice (also as 'out_weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
}

void PositiveDuplicatedList(torch::nn::Linear &enc, torch::nn::Linear &dec) {
  auto params = enc->parameters();
  auto more = enc->parameters();
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice
  torch::optim::SGD ok(dec->parameters(), torch::optim::SGDOptions(0.1));
}

// The fixed file is parsed again against the real headers.
void PositiveVectorFill() {
  std::vector<torch::nn::Linear> layers(3, torch::nn::Linear(4, 4));
  // CHECK-FIXES: {{^}}  std::vector<torch::nn::Linear> layers;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (std::size_t i = 0; i < 3; ++i){{$}}
  // CHECK-FIXES-NEXT: {{^}}    layers.push_back(torch::nn::Linear(4, 4));{{$}}
  torch::nn::Sequential stack;
  for (auto &layer : layers)
    stack->push_back(layer);
  torch::optim::SGD opt(stack->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice; each step() updates it twice
  torch::nn::utils::clip_grad_norm_(stack->parameters(), 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter '0.weight' twice; the total norm counts it twice and its gradient is scaled twice
}

struct TowerImpl : torch::nn::Module {
  explicit TowerImpl(int64_t n) {
    std::vector<torch::nn::Linear> layers;
    layers.assign(n, torch::nn::Linear(8, 8));
    // CHECK-FIXES: {{^}}    layers.clear();{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (std::size_t i = 0, count = n; i < count; ++i){{$}}
    // CHECK-FIXES-NEXT: {{^}}      layers.push_back(torch::nn::Linear(8, 8));{{$}}
    for (size_t i = 0; i < layers.size(); ++i)
      register_module("layer" + std::to_string(i), layers[i]);
  }
};

void PositiveAssignFill() {
  auto tower = std::make_shared<TowerImpl>(4);
  auto opt = std::make_unique<torch::optim::SGD>(tower->parameters(),
                                                 torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-2]]:14: warning: 'SGD' is built from a list that holds parameter '"layer" + std::to_string(i).weight' twice; each step() updates it twice; construct a separate module for each element
}

void PositiveHolderCopy(const torch::Tensor &x) {
  torch::nn::Linear online(4, 4);
  auto target = online;
  // CHECK-FIXES: auto target = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(online->clone()));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-3]]:17: warning: 'SGD' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
  target(x);
}

// A target network as a by-value member initialised from the online one.
struct Agent {
  explicit Agent(const torch::nn::Linear &net) : online(net), target(net) {}
  // CHECK-FIXES: explicit Agent(const torch::nn::Linear &net) : online(net), target(std::dynamic_pointer_cast<torch::nn::LinearImpl>(net->clone())) {}
  void learn() {
    for (auto &p : online->parameters())
      p.data().sub_(p.grad(), 0.01);
    // CHECK-MESSAGES: :[[@LINE-5]]:63: warning: 'sub_' updates the parameters of 'online', and 'target' is a copy of its ModuleHolder, not of the module: 'target' changes with every update
  }
  torch::Tensor act(const torch::Tensor &x) { return target(x); }
  torch::nn::Linear online, target;
};

// A copy a helper returns, and one stored in a container.
torch::nn::Linear sameLinear(torch::nn::Linear layer) { return layer; }

void PositiveHelperCopy(const torch::Tensor &x) {
  torch::nn::Linear online(4, 4);
  torch::nn::Linear slow = sameLinear(online);
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-2]]:28: warning: 'SGD' updates the parameters of 'online', and 'slow' is a copy of its ModuleHolder, not of the module: 'slow' changes with every update
  slow(x);
}

void PositiveStoredCopy(const torch::Tensor &x) {
  torch::nn::Linear online(4, 4);
  std::vector<torch::nn::Linear> snapshots;
  snapshots.push_back(online);
  // CHECK-FIXES: snapshots.push_back(torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(online->clone())));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-3]]:23: warning: 'SGD' updates the parameters of 'online', and 'snapshots' holds a copy of its ModuleHolder, not of the module: its element changes with every update
  snapshots.back()(x);
}

void NegativeStoredClone(const torch::Tensor &x) {
  torch::nn::Linear online(4, 4);
  std::vector<torch::nn::Linear> snapshots;
  snapshots.push_back(torch::nn::Linear(
      std::dynamic_pointer_cast<torch::nn::LinearImpl>(online->clone())));
  torch::optim::SGD opt(online->parameters(), torch::optim::SGDOptions(0.1));
  snapshots.back()(x);
}

// Parts of a model concatenated by a loop over their handles.
struct TiedOutImpl : torch::nn::Module {
  explicit TiedOutImpl(torch::Tensor w) {
    weight = register_parameter("weight", w);
  }
  torch::Tensor weight;
};
TORCH_MODULE(TiedOut);

void PositiveLoopOverParts() {
  torch::nn::Embedding embed(10, 4);
  TiedOut out(embed->weight);
  std::vector<torch::Tensor> params;
  for (torch::nn::Module *part :
       std::vector<torch::nn::Module *>{embed.get(), out.get()}) {
    auto more = part->parameters();
    params.insert(params.end(), more.begin(), more.end());
  }
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice
}

void NegativeLoopOverDistinctParts() {
  torch::nn::Embedding embed(10, 4);
  TiedOut out(torch::randn({10, 4}));
  std::vector<torch::Tensor> params;
  for (torch::nn::Module *part :
       std::vector<torch::nn::Module *>{embed.get(), out.get()}) {
    auto more = part->parameters();
    params.insert(params.end(), more.begin(), more.end());
  }
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// Note [Ties by assignment]: tying to another module's registered tensor.
void NegativeTieByAssignment(torch::nn::Linear &lin, torch::nn::Embedding &emb) {
  lin->weight = emb->weight;
}

void PositiveMemberAssignment(torch::nn::Linear &lin, torch::nn::Embedding &emb) {
  lin->weight = emb->weight.clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it
}

void NegativeDistinct(const torch::Tensor &x) {
  torch::nn::Linear online(4, 4);
  torch::nn::Linear target(
      std::dynamic_pointer_cast<torch::nn::LinearImpl>(online->clone()));
  torch::nn::Sequential seq(torch::nn::Linear(4, 4), torch::nn::Linear(4, 4));
  torch::optim::SGD opt(seq->parameters(), torch::optim::SGDOptions(0.1));
  torch::optim::SGD opt2(online->parameters(), torch::optim::SGDOptions(0.1));
  target(x);
  for (auto &p : seq->parameters())
    p.uniform_(-0.1, 0.1);
}

// Assigning a member the tensor it already holds: the loader's helper copies
// the checkpoint's values in place and returns its argument.
torch::Tensor assign(torch::Tensor left, const torch::Tensor &right) {
  torch::NoGradGuard no_grad;
  left.copy_(right);
  return left;
}

void NegativeLoadCheckpoint(torch::nn::Linear &lin, torch::nn::Embedding &emb,
                            const torch::Tensor &w) {
  lin->weight = assign(lin->weight, w.t().contiguous());
  emb->weight = assign(emb->weight, w);
}

void PositiveAssignOtherModulesWeight(torch::nn::Linear &lin,
                                      torch::nn::Linear &other) {
  lin->weight = other->weight.t();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it: 'LinearImpl' computes with the new tensor, but parameters(), to() and serialization still see the one registered as 'weight'
}

// Parameter lists are multisets: each way of building one, against the real
// std::vector and OptimizerParamGroup.
struct EncoderHeadImpl : torch::nn::Module {
  EncoderHeadImpl()
      : encoder(register_module("encoder", torch::nn::Linear(4, 4))),
        head(register_module("head", torch::nn::Linear(4, 2))) {}
  torch::nn::Linear encoder, head;
};
TORCH_MODULE(EncoderHead);

// A group added later that the optimizer already holds.
void PositiveAddedGroupAlreadyHeld(EncoderHead &model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  opt.add_param_group(torch::optim::OptimizerParamGroup(
      model->encoder->parameters(),
      std::make_unique<torch::optim::SGDOptions>(0.01)));
  // CHECK-MESSAGES: :[[@LINE-3]]:7: warning: 'add_param_group' adds parameter 'weight', which the optimizer already holds (as 'encoder.weight') in an earlier group
}

void NegativeAddedGroupDisjoint(EncoderHead &model) {
  torch::optim::SGD opt(model->head->parameters(), torch::optim::SGDOptions(0.1));
  opt.add_param_group(torch::optim::OptimizerParamGroup(
      model->encoder->parameters(),
      std::make_unique<torch::optim::SGDOptions>(0.01)));
}

// A recursive parameters() in a loop over modules().
void PositiveRecursiveModulesLoop(EncoderHead &model) {
  torch::NoGradGuard no_grad;
  for (const auto &m : model->modules())
    for (auto &p : m->parameters())
      // CHECK-FIXES: for (auto &p : m->parameters(false))
      p.sub_(p.grad(), 0.01);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'sub_' updates parameter 'encoder.weight' in place 2 times per pass over modules(): 'parameters' recurses into submodules
}

void NegativeOwnParametersModulesLoop(EncoderHead &model) {
  torch::NoGradGuard no_grad;
  for (const auto &m : model->modules())
    for (auto &p : m->parameters(/*recurse=*/false))
      p.sub_(p.grad(), 0.01);
}

void PositivePushBackTensor(torch::nn::Linear &lin) {
  std::vector<torch::Tensor> params = lin->parameters();
  params.push_back(lin->weight);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice (also as 'lin->weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the tensor once
}

void PositiveOverlappingGroups(EncoderHead &model) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model->parameters());
  groups.emplace_back(model->encoder->parameters(),
                      std::make_unique<torch::optim::AdamOptions>(1e-4));
  torch::optim::Adam opt(groups, torch::optim::AdamOptions(1e-3));
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'encoder.weight' twice (also as 'weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once
}

// Note [Lists that accumulate by assignment]: `params = params + more`, with
// a `+` of the translation unit.
static std::vector<torch::Tensor> operator+(std::vector<torch::Tensor> a,
                                            const std::vector<torch::Tensor> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void PositiveAccumulatedByPlus(EncoderHead &model) {
  std::vector<torch::Tensor> params = model->parameters();
  for (auto *m : {model->encoder.get(), model->head.get()})
    params = params + m->parameters();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'encoder.weight' twice (also as 'weight'); each step() updates it twice
}

void NegativeAccumulatedDisjoint(EncoderHead &model) {
  std::vector<torch::Tensor> params;
  for (auto *m : {model->encoder.get(), model->head.get()})
    params = params + m->parameters();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

void NegativeSiblingGroups(EncoderHead &model) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model->encoder->parameters());
  groups.emplace_back(model->head->parameters());
  torch::optim::Adam opt(groups, torch::optim::AdamOptions(1e-3));
}

std::vector<torch::Tensor> encoderAndModel(EncoderHead &model) {
  std::vector<torch::Tensor> params = model->encoder->parameters();
  for (auto &p : model->parameters())
    params.push_back(p);
  return params;
}

void PositiveReturnedList(EncoderHead &model) {
  torch::optim::SGD opt(encoderAndModel(model), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice (also as 'encoder.weight'); each step() updates it twice
}

void PositiveHandlesPushedInALoop(int depth) {
  torch::NoGradGuard no_grad;
  torch::nn::Linear shared(4, 4);
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < depth; ++i)
    layers.push_back(shared);
  for (auto &layer : layers)
    for (auto &p : layer->parameters())
      p.sub_(p.grad() * 0.1);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'sub_' updates parameter 'weight' in place twice per pass over 'layers'; its elements hold it twice; construct a separate module for each element
}

void NegativeFreshHandlesInALoop(int depth) {
  torch::NoGradGuard no_grad;
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < depth; ++i)
    layers.push_back(torch::nn::Linear(4, 4));
  for (auto &layer : layers)
    for (auto &p : layer->parameters())
      p.sub_(p.grad() * 0.1);
}

std::unique_ptr<torch::optim::SGD> makeOptimizer(torch::nn::Sequential &model) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model->parameters());
  return std::make_unique<torch::optim::SGD>(groups,
                                             torch::optim::SGDOptions(0.1));
}

void PositiveHelperSink() {
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential model(shared, shared);
  auto opt = makeOptimizer(model);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'makeOptimizer' gives 'SGD' a list that holds parameter '0.weight' twice (also as '1.weight'); each step() updates it twice
}

void PositiveReplaceModule() {
  EncoderHead model;
  model->replace_module("head", model->encoder);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'encoder.weight' twice (also as 'head.weight'); each step() updates it twice
}

void NegativeReplaceModuleFresh(EncoderHead &model) {
  model->replace_module("head", torch::nn::Linear(4, 2));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
}

void PositiveRegisterParameterOfAnother(EncoderHead &model,
                                        torch::nn::Linear &decoder) {
  decoder->register_parameter("tied", model->encoder->weight);
  auto params = model->parameters();
  auto more = decoder->parameters();
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'encoder.weight' twice (also as 'tied'); each step() updates it twice
}

// Reparametrisation (Note [Reparametrised members]): weight normalisation
// recomputes the registered weight from g and v on every forward.
struct WeightNormLinearImpl : torch::nn::LinearImpl {
  WeightNormLinearImpl(int64_t in, int64_t out) : torch::nn::LinearImpl(in, out) {
    g = register_parameter("g", torch::ones({out, 1}));
    v = register_parameter("v", torch::randn({out, in}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    weight = g * (v / v.norm(2, 1, true));
    return torch::nn::LinearImpl::forward(x);
  }
  torch::Tensor g, v;
};

struct ResettingImpl : torch::nn::Module {
  ResettingImpl() { bias = register_parameter("bias", torch::zeros({4})); }
  torch::Tensor forward(const torch::Tensor &x) {
    bias = torch::zeros({4});
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: assigning 'bias' does not re-register it
    return x + bias;
  }
  torch::Tensor bias;
};

// An optimizer written in the file (Note [Optimizers of the translation
// unit]): it keeps the list it is built from and steps each entry in place.
class MomentumSGD {
public:
  MomentumSGD(std::vector<torch::Tensor> params, double lr)
      : params_(std::move(params)), lr_(lr) {
    for (auto &p : params_)
      velocity_.push_back(torch::zeros_like(p));
  }
  void step() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      velocity_[i].mul_(0.9).add_(params_[i].grad());
      params_[i].sub_(lr_ * velocity_[i]);
    }
  }

private:
  std::vector<torch::Tensor> params_, velocity_;
  double lr_;
};

void PositiveUserOptimizer() {
  TiedLM model;
  MomentumSGD opt(model->parameters(), 0.1);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'MomentumSGD' is built from a list that holds parameter 'emb.weight' twice (also as 'out_weight'); each step() updates it twice
  opt.step();
}

// An average that writes only its own copies of the entries.
class ParameterAverage {
public:
  explicit ParameterAverage(std::vector<torch::Tensor> params)
      : params_(std::move(params)) {
    for (auto &p : params_)
      average_.push_back(p.detach().clone());
  }
  void update() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i)
      average_[i].lerp_(params_[i], 0.01);
  }

private:
  std::vector<torch::Tensor> params_, average_;
};

void NegativeAverageOfTiedModel() {
  TiedLM model;
  ParameterAverage average(model->parameters());
  average.update();
}

// Note [Lists collected over modules()]: weight-decay groups split by name
// from named_modules() x named_parameters().
struct NestedImpl : torch::nn::Module {
  NestedImpl() : inner(register_module("inner", EncoderHead())) {}
  EncoderHead inner;
};
TORCH_MODULE(Nested);

void PositiveDecayGroupsOverNamedModules(Nested &model) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto &item : model->named_modules())
    for (const auto &param : item.value()->named_parameters()) {
      // CHECK-FIXES: for (const auto &param : item.value()->named_parameters(false)) {
      if (param.key().find("bias") != std::string::npos)
        no_decay.push_back(param.value());
      else
        decay.push_back(param.value());
    }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay);
  groups.emplace_back(no_decay);
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from parameters collected over named_modules(): 'named_parameters' recurses into submodules, so 'decay' holds parameter 'inner.encoder.weight' 3 times
}

void NegativeOwnParametersOverNamedModules(Nested &model) {
  std::vector<torch::Tensor> params;
  for (const auto &item : model->named_modules())
    for (const auto &param : item.value()->named_parameters(false))
      params.push_back(param.value());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// Note [Groups added on every pass of a loop].
void PositiveGrowingGroup(Nested &model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> unfrozen;
  for (auto *part : {model->inner->encoder.ptr().get(), model->inner->head.ptr().get()}) {
    auto params = part->parameters();
    unfrozen.insert(unfrozen.end(), params.begin(), params.end());
    opt.add_param_group(torch::optim::OptimizerParamGroup(unfrozen));
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'add_param_group' is given 'unfrozen' on every pass of the loop, and 'unfrozen' keeps what earlier passes put in it
  }
}

std::vector<torch::Tensor> firstParts(EncoderHead &model, int count) {
  std::vector<torch::Tensor> params;
  for (int k = 0; k < count; ++k)
    for (auto &p : model->children()[k]->parameters())
      params.push_back(p);
  return params;
}

void PositiveHelperPrefixGroup(EncoderHead &model, torch::optim::SGD &opt) {
  for (int stage = 1; stage <= 2; ++stage)
    opt.add_param_group(torch::optim::OptimizerParamGroup(firstParts(model, stage)));
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'add_param_group' is given the list 'firstParts' returns for 'stage' on every pass of the loop, and the list grows with 'stage'
}

void NegativeOnePartPerPass(EncoderHead &model, torch::optim::SGD &opt) {
  for (auto &child : model->children())
    opt.add_param_group(torch::optim::OptimizerParamGroup(child->parameters()));
}

// Note [A member assigned another member's handle].
class TargetByAssignment {
public:
  TargetByAssignment() : opt_(online_->parameters(), torch::optim::SGDOptions(0.1)) {
    target_ = online_;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'SGD' updates the parameters of 'online_', and 'target_' is a copy of its ModuleHolder, not of the module
  }
  torch::Tensor bootstrap(const torch::Tensor &x) { return target_(x); }

private:
  torch::nn::Linear online_{4, 2};
  torch::nn::Linear target_{nullptr};
  torch::optim::SGD opt_;
};

// Note [Lists grown with a prefix on every pass].
void PositivePrefixGrownList(std::vector<torch::nn::Linear> &layers,
                             torch::nn::Linear &head) {
  std::vector<torch::Tensor> trainable = head->parameters();
  for (size_t stage = 0; stage < layers.size(); ++stage) {
    for (size_t j = 0; j <= stage; ++j) {
      auto p = layers[j]->parameters();
      trainable.insert(trainable.end(), p.begin(), p.end());
    }
    torch::optim::SGD opt(trainable, 0.02);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'SGD' is built from 'trainable', which the loop over 'stage' grows on every pass with the elements from the same start up to 'stage'
    opt.step();
  }
}

void NegativeOneLayerPerStage(std::vector<torch::nn::Linear> &layers) {
  std::vector<torch::Tensor> trainable;
  for (size_t stage = 0; stage < layers.size(); ++stage) {
    auto p = layers[stage]->parameters();
    trainable.insert(trainable.end(), p.begin(), p.end());
    torch::optim::SGD opt(trainable, 0.02);
    opt.step();
  }
}

// Note [Lists filtered by parameter name]: LayerNorm's "weight" ends in
// "weight" and its module's name holds "norm".
struct NormedBlockImpl : torch::nn::Module {
  NormedBlockImpl() {
    fc = register_module("fc", torch::nn::Linear(8, 8));
    norm = register_module("norm", torch::nn::LayerNorm(
                                       torch::nn::LayerNormOptions({8})));
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(NormedBlock);

static bool has_suffix(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void PositiveDecaySplitByTwoTests() {
  NormedBlock model;
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto &item : model->named_parameters()) {
    if (has_suffix(item.key(), "weight"))
      decay.push_back(item.value());
    if (has_suffix(item.key(), "bias") ||
        item.key().find("norm") != std::string::npos)
      no_decay.push_back(item.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                 torch::optim::AdamWOptions(1e-3).weight_decay(0.1)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions(1e-3).weight_decay(0.0)));
  torch::optim::AdamW opt(groups, torch::optim::AdamWOptions(1e-3));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'AdamW' is built from a list that holds parameter 'norm.weight' twice; each step() updates it twice
}

void NegativeDecaySplitByElse() {
  NormedBlock model;
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto &item : model->named_parameters()) {
    if (has_suffix(item.key(), "bias") ||
        item.key().find("norm") != std::string::npos)
      no_decay.push_back(item.value());
    else
      decay.push_back(item.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay);
  groups.emplace_back(no_decay);
  torch::optim::AdamW opt(groups, torch::optim::AdamWOptions(1e-3));
}

// A list filled by a helper given it by reference (Note [Lists filled by a
// helper]), and a module registered again by a derived class (Note
// [Modules built by a base class]).
struct RealEncoderImpl : torch::nn::Module {
  RealEncoderImpl() { proj = register_module("proj", torch::nn::Linear(4, 4)); }
  torch::nn::Linear proj{nullptr};
};

struct RealClassifierImpl : RealEncoderImpl {
  RealClassifierImpl() { register_module("backbone_proj", proj); }
};
TORCH_MODULE(RealClassifier);

void PositiveInheritedModuleRegisteredAgain() {
  RealClassifier model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'proj.weight' twice (also as 'backbone_proj.weight'); each step() updates it twice
}

void appendParameters(std::vector<torch::Tensor> &out, torch::nn::Module &m) {
  auto ps = m.parameters();
  out.insert(out.end(), ps.begin(), ps.end());
}

TORCH_MODULE(RealEncoder);

void PositiveListFilledByHelper() {
  RealEncoder encoder;
  std::vector<torch::Tensor> params;
  appendParameters(params, *encoder);
  appendParameters(params, *encoder->proj);
  torch::optim::Adam opt(params);
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'proj.weight' twice
}

// Note [Modules copied by their copy constructor], on the real Module.
struct TwinCriticImpl : torch::nn::Module {
  TwinCriticImpl() { fc = register_module("fc", torch::nn::Linear(4, 1)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(TwinCritic);

void PositiveCopiedModuleObject() {
  TwinCritic q1;
  TwinCritic q2(std::make_shared<TwinCriticImpl>(*q1));
  std::vector<torch::Tensor> both = q1->parameters();
  for (const auto &p : q2->parameters())
    both.push_back(p);
  torch::optim::SGD opt(both, torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'fc.weight' twice; each step() updates it twice
}

// Note [Modules built over a given tensor], on the real Embedding.
struct GloveImpl : torch::nn::Module {
  explicit GloveImpl(const torch::Tensor &table) {
    auto options = torch::nn::EmbeddingFromPretrainedOptions().freeze(false);
    src = register_module("src", torch::nn::Embedding::from_pretrained(table, options));
    tgt = register_module("tgt", torch::nn::Embedding::from_pretrained(table, options));
  }
  torch::nn::Embedding src{nullptr}, tgt{nullptr};
};
TORCH_MODULE(Glove);

void PositiveTwoEmbeddingsOverOneTable(torch::Tensor table) {
  Glove model(table);
  torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'src.weight' twice (also as 'tgt.weight'); the total norm counts it twice
}

struct FrozenGloveImpl : torch::nn::Module {
  explicit FrozenGloveImpl(const torch::Tensor &table) {
    src = register_module("src", torch::nn::Embedding::from_pretrained(table));
    tgt = register_module("tgt", torch::nn::Embedding::from_pretrained(table));
  }
  torch::nn::Embedding src{nullptr}, tgt{nullptr};
};
TORCH_MODULE(FrozenGlove);

void NegativeFrozenEmbeddings(torch::Tensor table) {
  FrozenGlove model(table);
  torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
}

// Note [References to tensors], on the real std::reference_wrapper.
struct RefStreamImpl : torch::nn::Module {
  explicit RefStreamImpl(torch::nn::Linear shared) {
    trunk = register_module("trunk", shared);
    head = register_module("head", torch::nn::Linear(4, 1));
  }
  torch::nn::Linear trunk{nullptr}, head{nullptr};
};
TORCH_MODULE(RefStream);

void PositiveReferenceListNamesTheTrunkTwice(double lr) {
  torch::nn::Linear features(4, 4);
  RefStream value(features), advantage(features);
  const std::vector<std::reference_wrapper<torch::Tensor>> trainable{
      value->trunk->weight, value->head->weight, advantage->trunk->weight};
  torch::NoGradGuard no_grad;
  for (torch::Tensor &p : trainable)
    p.sub_(lr * p.grad());
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'sub_' updates parameter 'value->trunk->weight' in place twice per pass over the list
}
