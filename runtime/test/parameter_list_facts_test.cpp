// How parameter lists come to hold one tensor twice, and what libtorch's
// optimizers do with such a list. Each fact here is stated by a message of
// libtorch-shared-parameter-update.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace {

struct EncoderHeadImpl : torch::nn::Module {
  EncoderHeadImpl()
      : encoder(register_module("encoder", torch::nn::Linear(3, 3))),
        head(register_module("head", torch::nn::Linear(3, 1))) {}
  torch::nn::Linear encoder, head;
};
TORCH_MODULE(EncoderHead);

size_t occurrences(const std::vector<at::Tensor> &list, const at::Tensor &t) {
  size_t count = 0;
  for (const auto &p : list)
    count += p.unsafeGetTensorImpl() == t.unsafeGetTensorImpl();
  return count;
}

// One SGD step with lr 1 on a list whose gradients are all ones: each tensor
// moves by minus its number of occurrences.
void step_with_unit_gradients(torch::optim::Optimizer &opt,
                              const std::vector<at::Tensor> &params) {
  for (const auto &p : params)
    p.mutable_grad() = torch::ones_like(p);
  opt.step();
}

TEST(ParameterListFacts, ModelParametersIncludeItsSubmodules) {
  EncoderHead model;
  std::vector<at::Tensor> all = model->parameters();
  for (const auto &p : model->encoder->parameters())
    EXPECT_EQ(occurrences(all, p), 1u);
  for (const auto &p : model->head->parameters())
    EXPECT_EQ(occurrences(all, p), 1u);
  EXPECT_EQ(all.size(), model->encoder->parameters().size() +
                            model->head->parameters().size());
}

TEST(ParameterListFacts, SiblingSubmodulesDoNotOverlap) {
  EncoderHead model;
  for (const auto &p : model->encoder->parameters())
    EXPECT_EQ(occurrences(model->head->parameters(), p), 0u);
}

TEST(ParameterListFacts, OverlappingGroupsStepATensorTwice) {
  torch::NoGradGuard no_grad;
  EncoderHead model;
  at::Tensor weight = model->encoder->weight;
  at::Tensor before = weight.clone();
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model->parameters());
  groups.emplace_back(model->encoder->parameters());
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(1.0));
  for (auto &group : opt.param_groups())
    for (auto &p : group.params())
      p.mutable_grad() = torch::ones_like(p);
  opt.step();
  EXPECT_TRUE(torch::allclose(weight, before - 2));
}

TEST(ParameterListFacts, ListBuiltStepByStepKeepsEveryCopy) {
  torch::NoGradGuard no_grad;
  torch::nn::Linear lin(3, 3);
  std::vector<at::Tensor> params;
  params.push_back(lin->weight);
  params.emplace_back(lin->bias);
  auto more = lin->parameters();
  params.insert(params.end(), more.begin(), more.end());
  EXPECT_EQ(occurrences(params, lin->weight), 2u);
  at::Tensor before = lin->weight.clone();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(1.0));
  step_with_unit_gradients(opt, params);
  EXPECT_TRUE(torch::allclose(lin->weight, before - 2));
}

TEST(ParameterListFacts, ReplaceModuleSharesTheModule) {
  EncoderHead model;
  model->replace_module("head", model->encoder);
  std::vector<at::Tensor> all = model->parameters();
  EXPECT_EQ(occurrences(all, model->encoder->weight), 2u);
}

TEST(ParameterListFacts, HandlesPushedInALoopAreOneModule) {
  torch::NoGradGuard no_grad;
  torch::nn::Linear shared(3, 3);
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < 3; ++i)
    layers.push_back(shared);
  at::Tensor before = shared->weight.clone();
  for (auto &layer : layers)
    for (auto &p : layer->parameters())
      p.sub_(torch::ones_like(p));
  EXPECT_TRUE(torch::allclose(shared->weight, before - 3));

  std::vector<torch::nn::Linear> filled(2, torch::nn::Linear(3, 3));
  EXPECT_EQ(filled[0]->weight.unsafeGetTensorImpl(),
            filled[1]->weight.unsafeGetTensorImpl());
}

TEST(ParameterListFacts, FreshModulePushedInALoopIsDistinct) {
  std::vector<torch::nn::Linear> layers;
  for (int i = 0; i < 2; ++i)
    layers.push_back(torch::nn::Linear(3, 3));
  EXPECT_NE(layers[0]->weight.unsafeGetTensorImpl(),
            layers[1]->weight.unsafeGetTensorImpl());
}

// A module whose constructor registers the trunk it is given.
struct HeadImpl : torch::nn::Module {
  explicit HeadImpl(torch::nn::Linear trunk)
      : body(register_module("body", trunk)),
        out(register_module("out", torch::nn::Linear(3, 1))) {}
  torch::nn::Linear body, out;
};
TORCH_MODULE(Head);

TEST(ParameterListFacts, LoopOverModulesConcatenatesTheirParameters) {
  torch::nn::Linear trunk(3, 3);
  Head policy(trunk), value(trunk);
  std::vector<at::Tensor> all;
  for (const std::shared_ptr<torch::nn::Module> &part :
       {std::shared_ptr<torch::nn::Module>(policy.ptr()),
        std::shared_ptr<torch::nn::Module>(value.ptr())}) {
    auto more = part->parameters();
    all.insert(all.end(), more.begin(), more.end());
  }
  EXPECT_EQ(occurrences(all, trunk->weight), 2u);
  EXPECT_EQ(occurrences(all, policy->out->weight), 1u);
}

TEST(ParameterListFacts, AddParamGroupAcceptsAHeldParameter) {
  torch::NoGradGuard no_grad;
  EncoderHead model;
  at::Tensor weight = model->encoder->weight;
  at::Tensor before = weight.clone();
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(1.0));
  opt.add_param_group(
      torch::optim::OptimizerParamGroup(model->encoder->parameters()));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  for (auto &group : opt.param_groups())
    for (auto &p : group.params())
      p.mutable_grad() = torch::ones_like(p);
  opt.step();
  EXPECT_TRUE(torch::allclose(weight, before - 2));
}

TEST(ParameterListFacts, RecursiveParametersInAModulesLoopRepeat) {
  auto root = std::make_shared<torch::nn::Module>();
  EncoderHead inner = root->register_module("inner", EncoderHead());
  std::vector<at::Tensor> visited, own;
  for (const auto &m : root->modules()) {
    for (const auto &p : m->parameters())
      visited.push_back(p);
    for (const auto &p : m->parameters(false))
      own.push_back(p);
  }
  // The root, 'inner' and 'inner.encoder' each visit the encoder's weight.
  EXPECT_EQ(occurrences(visited, inner->encoder->weight), 3u);
  EXPECT_EQ(occurrences(own, inner->encoder->weight), 1u);
  EXPECT_EQ(own.size(), root->parameters().size());
}

// Note [Modules copied by their copy constructor]: the implicit copy of a
// module object copies the handles of its parameters and submodules, so
// the copy lists the very tensors of the original; clone() copies them.
TEST(ParameterListFacts, ACopiedModuleObjectListsTheSameTensors) {
  EncoderHead original;
  auto copy = std::make_shared<EncoderHeadImpl>(*original);
  std::vector<at::Tensor> params = original->parameters();
  std::vector<at::Tensor> copied = copy->parameters();
  ASSERT_EQ(copied.size(), params.size());
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_EQ(copied[i].unsafeGetTensorImpl(), params[i].unsafeGetTensorImpl());
  EXPECT_EQ(copy->encoder.get(), original->encoder.get());
  auto cloned = std::dynamic_pointer_cast<torch::nn::LinearImpl>(
      original->encoder->clone());
  EXPECT_NE(cloned->weight.unsafeGetTensorImpl(),
            original->encoder->weight.unsafeGetTensorImpl());

  // Both lists given to one optimizer: each tensor is stepped twice.
  for (const auto &p : copied)
    params.push_back(p);
  at::Tensor before = original->encoder->weight.detach().clone();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(1.0));
  step_with_unit_gradients(opt, params);
  EXPECT_TRUE(torch::allclose(original->encoder->weight, before - 2));
}

// Note [Modules built over a given tensor]: an Embedding given its weight
// registers that tensor itself; from_pretrained gives it that way and
// freezes it unless told freeze(false).
TEST(ParameterListFacts, AnEmbeddingRegistersTheWeightItIsGiven) {
  at::Tensor table = torch::randn({5, 3});
  auto trainable = torch::nn::EmbeddingFromPretrainedOptions().freeze(false);
  auto src = torch::nn::Embedding::from_pretrained(table, trainable);
  auto tgt = torch::nn::Embedding::from_pretrained(table, trainable);
  EXPECT_EQ(src->weight.unsafeGetTensorImpl(), table.unsafeGetTensorImpl());
  EXPECT_EQ(tgt->weight.unsafeGetTensorImpl(), table.unsafeGetTensorImpl());
  EXPECT_TRUE(table.requires_grad());

  at::Tensor other = torch::randn({5, 3});
  torch::nn::Embedding viaOptions(
      torch::nn::EmbeddingOptions(5, 3)._weight(other));
  EXPECT_EQ(viaOptions->weight.unsafeGetTensorImpl(),
            other.unsafeGetTensorImpl());

  at::Tensor frozenTable = torch::randn({5, 3});
  auto frozen = torch::nn::Embedding::from_pretrained(frozenTable);
  EXPECT_EQ(frozen->weight.unsafeGetTensorImpl(),
            frozenTable.unsafeGetTensorImpl());
  EXPECT_FALSE(frozen->weight.requires_grad());
}

// Note [References to tensors]: a vector of reference_wrappers naming one
// tensor through two modules holds it twice, and a loop over it steps it
// twice.
TEST(ParameterListFacts, AReferenceListNamingATensorTwiceStepsItTwice) {
  torch::nn::Linear trunk(3, 3);
  EncoderHead first, second;
  first->encoder = first->replace_module("encoder", trunk);
  second->encoder = second->replace_module("encoder", trunk);
  const std::vector<std::reference_wrapper<at::Tensor>> trainable{
      first->encoder->weight, second->encoder->weight};
  EXPECT_EQ(trainable[0].get().unsafeGetTensorImpl(),
            trainable[1].get().unsafeGetTensorImpl());
  at::Tensor before = trunk->weight.detach().clone();
  {
    torch::NoGradGuard no_grad;
    for (at::Tensor &p : trainable)
      p.sub_(1.0);
  }
  EXPECT_TRUE(torch::allclose(trunk->weight, before - 2));
}

// Note [Ties by assignment]: `head->weight = embed->weight` does not
// register the embedding's tensor with the head; the head's list keeps the
// tensor its constructor registered, which then gets no gradient, and SGD
// skips it. The tied tensor is stepped once, with both uses' gradient.
TEST(ParameterListFacts, TieByAssignmentStepsTheTiedTensorOnce) {
  torch::nn::Embedding embed(5, 3);
  torch::nn::Linear head(torch::nn::LinearOptions(3, 5).bias(false));
  at::Tensor stale = head->weight;
  head->weight = embed->weight;
  std::vector<at::Tensor> params = embed->parameters();
  for (const auto &p : head->parameters())
    params.push_back(p);
  EXPECT_EQ(occurrences(params, embed->weight), 1u);
  EXPECT_EQ(occurrences(params, stale), 1u);

  torch::optim::SGD opt(params, torch::optim::SGDOptions(1.0));
  opt.zero_grad();
  at::Tensor logits = head(embed(torch::tensor({0, 1, 2})));
  logits.sum().backward();
  EXPECT_FALSE(stale.grad().defined());
  at::Tensor before_tied = embed->weight.detach().clone();
  at::Tensor before_stale = stale.detach().clone();
  at::Tensor expected = before_tied - embed->weight.grad();
  opt.step();
  EXPECT_TRUE(torch::allclose(embed->weight.detach(), expected));
  EXPECT_TRUE(torch::equal(stale.detach(), before_stale));
  EXPECT_FALSE(torch::equal(embed->weight.detach(), before_tied));
}

// Note [Ties by assignment]: to() replaces a registered tensor's data in
// place, so a member tied to it follows; a view made before does not.
TEST(ParameterListFacts, ToMovesATiedTensorButNotAViewOfIt) {
  torch::nn::Linear source(3, 3);
  torch::nn::Linear tied(3, 3), viewed(3, 3);
  tied->weight = source->weight;
  viewed->weight = source->weight.t();
  source->to(torch::kFloat64);
  EXPECT_EQ(tied->weight.scalar_type(), torch::kFloat64);
  EXPECT_EQ(viewed->weight.scalar_type(), torch::kFloat32);
}

// Note [One tensor under two names in two optimizers]: registering one
// tensor under two names makes one parameter that each optimizer steps.
TEST(ParameterListFacts, OneTensorUnderTwoNamesIsSteppedByBothOptimizers) {
  torch::NoGradGuard no_grad;
  auto module = std::make_shared<torch::nn::Module>();
  at::Tensor pretrained = torch::zeros({2});
  at::Tensor actor = module->register_parameter("actor", pretrained);
  at::Tensor critic = module->register_parameter("critic", pretrained);
  EXPECT_TRUE(actor.is_same(critic));
  torch::optim::SGD actor_opt(std::vector<at::Tensor>{actor}, torch::optim::SGDOptions(1.0));
  torch::optim::SGD critic_opt(std::vector<at::Tensor>{critic}, torch::optim::SGDOptions(1.0));
  actor.mutable_grad() = torch::ones_like(actor);
  actor_opt.step();
  EXPECT_TRUE(torch::allclose(critic, torch::full({2}, -1.0)));
  critic_opt.step();
  EXPECT_TRUE(torch::allclose(actor, torch::full({2}, -2.0)));
}

// Note [Lists collected over modules()]: named_modules() yields the root and
// every submodule, and named_parameters() recurses, so a parameter is
// collected once per module on its path; a split by the parameter's name
// sends every visit to the same list.
TEST(ParameterListFacts, NamedModulesTimesNamedParametersRepeatsNestedOnes) {
  auto root = std::make_shared<torch::nn::Module>();
  EncoderHead inner = root->register_module("inner", EncoderHead());
  std::vector<at::Tensor> decay, no_decay, own, without_root;
  for (const auto &item : root->named_modules()) {
    for (const auto &param : item.value()->named_parameters()) {
      if (param.key().find("bias") != std::string::npos)
        no_decay.push_back(param.value());
      else
        decay.push_back(param.value());
    }
    for (const auto &param : item.value()->named_parameters(false))
      own.push_back(param.value());
  }
  for (const auto &item : root->named_modules("", /*include_self=*/false))
    for (const auto &param : item.value()->named_parameters())
      without_root.push_back(param.value());
  EXPECT_EQ(occurrences(decay, inner->encoder->weight), 3u);
  EXPECT_EQ(occurrences(no_decay, inner->encoder->bias), 3u);
  EXPECT_EQ(occurrences(decay, inner->encoder->bias), 0u);
  EXPECT_EQ(occurrences(without_root, inner->encoder->weight), 2u);
  EXPECT_EQ(occurrences(own, inner->encoder->weight), 1u);
  // The optimizer built from the two groups steps the weight three times.
  torch::NoGradGuard no_grad;
  at::Tensor before = inner->encoder->weight.clone();
  torch::optim::SGD opt({torch::optim::OptimizerParamGroup(decay),
                         torch::optim::OptimizerParamGroup(no_decay)},
                        torch::optim::SGDOptions(1.0));
  for (const auto &p : root->parameters())
    p.mutable_grad() = torch::ones_like(p);
  opt.step();
  EXPECT_TRUE(torch::allclose(inner->encoder->weight, before - 3));
}

// Note [Walks over modules]: Module::apply calls its function on the root
// and then on every submodule, so a recursive parameters() inside it lists a
// nested weight once per module on its path, as modules() does.
TEST(ParameterListFacts, ApplyTimesRecursiveParametersRepeatsNestedOnes) {
  auto root = std::make_shared<torch::nn::Module>();
  EncoderHead inner = root->register_module("inner", EncoderHead());
  std::vector<at::Tensor> collected, own;
  std::vector<std::string> names;
  root->apply([&](const std::string &name, torch::nn::Module &m) {
    names.push_back(name);
    for (const auto &p : m.parameters())
      collected.push_back(p);
    for (const auto &p : m.parameters(/*recurse=*/false))
      own.push_back(p);
  });
  EXPECT_EQ(names.front(), "");
  EXPECT_EQ(occurrences(collected, inner->encoder->weight), 3u);
  EXPECT_EQ(occurrences(own, inner->encoder->weight), 1u);
}

// Note [Groups added on every pass of a loop]: add_param_group accepts a
// group that repeats earlier groups' tensors, and each group steps them, so
// a list that grows from pass to pass steps the first part once per pass.
TEST(ParameterListFacts, GrowingGroupAddedEachPassStepsEarlyPartsPerPass) {
  torch::NoGradGuard no_grad;
  EncoderHead model;
  at::Tensor encoder_before = model->encoder->weight.clone();
  at::Tensor head_before = model->head->weight.clone();
  torch::optim::SGD opt(std::vector<at::Tensor>{}, torch::optim::SGDOptions(1.0));
  std::vector<at::Tensor> unfrozen;
  for (auto *part : {model->encoder.ptr().get(), model->head.ptr().get()}) {
    auto params = part->parameters();
    unfrozen.insert(unfrozen.end(), params.begin(), params.end());
    opt.add_param_group(torch::optim::OptimizerParamGroup(unfrozen));
  }
  ASSERT_EQ(opt.param_groups().size(), 3u);
  for (const auto &p : model->parameters())
    p.mutable_grad() = torch::ones_like(p);
  opt.step();
  EXPECT_TRUE(torch::allclose(model->encoder->weight, encoder_before - 2));
  EXPECT_TRUE(torch::allclose(model->head->weight, head_before - 1));
}

// Note [Objects that hold modules]: an object that is not a module but gives
// its actor and critic one encoder makes the concatenation of their lists
// hold the encoder's tensors twice, so a soft update over it blends them
// twice; a loop that skips what it has seen blends them once (Note [Loops
// that skip what they have seen]).
struct Agent {
  Agent()
      : encoder(3, 3), actor(encoder, torch::nn::Linear(3, 1)),
        critic(encoder, torch::nn::Linear(3, 1)) {}
  torch::nn::Linear encoder;
  torch::nn::Sequential actor, critic;
  std::vector<at::Tensor> all_parameters() const {
    auto ps = actor->parameters();
    auto qs = critic->parameters();
    ps.insert(ps.end(), qs.begin(), qs.end());
    return ps;
  }
};

TEST(ParameterListFacts, AHolderOfModulesSharingOneSoftUpdatesItTwice) {
  Agent online, target;
  torch::NoGradGuard no_grad;
  for (auto &p : target.all_parameters())
    p.zero_();
  for (auto &p : online.all_parameters())
    p.fill_(1.0);
  auto targets = target.all_parameters();
  ASSERT_EQ(occurrences(targets, target.encoder->weight), 2u);
  auto sources = online.all_parameters();
  const double tau = 0.5;
  for (size_t i = 0; i < targets.size(); ++i)
    targets[i].mul_(1.0 - tau).add_(sources[i], tau);
  // Twice: 0 -> 0.5 -> 0.75, where once gives 0.5.
  EXPECT_TRUE(torch::allclose(target.encoder->weight,
                              torch::full_like(target.encoder->weight, 0.75)));

  Agent deduplicated;
  for (auto &p : deduplicated.all_parameters())
    p.zero_();
  std::vector<const void *> seen;
  for (auto &p : deduplicated.all_parameters()) {
    if (std::find(seen.begin(), seen.end(), p.unsafeGetTensorImpl()) != seen.end())
      continue;
    seen.push_back(p.unsafeGetTensorImpl());
    p.mul_(1.0 - tau).add_(torch::ones_like(p), tau);
  }
  EXPECT_TRUE(torch::allclose(deduplicated.encoder->weight,
                              torch::full_like(deduplicated.encoder->weight, 0.5)));
}

// Note [Lists filtered by parameter name]: named_parameters() spells each
// name as the registration path joined by dots, with a library module's own
// names last; tests on those names that are not exclusive put one tensor in
// two groups, and the optimizer steps it once per group.
struct NormedBlockImpl : torch::nn::Module {
  NormedBlockImpl()
      : fc(register_module("fc", torch::nn::Linear(4, 4))),
        norm(register_module("norm", torch::nn::LayerNorm(
                                         torch::nn::LayerNormOptions({4})))) {}
  torch::nn::Linear fc;
  torch::nn::LayerNorm norm;
};
TORCH_MODULE(NormedBlock);

TEST(ParameterListFacts, NamesThatPassTwoTestsAreSteppedOncePerGroup) {
  torch::NoGradGuard no_grad;
  NormedBlock model;
  std::vector<std::string> names;
  for (const auto &item : model->named_parameters())
    names.push_back(item.key());
  EXPECT_EQ(names, (std::vector<std::string>{"fc.weight", "fc.bias",
                                             "norm.weight", "norm.bias"}));

  std::vector<at::Tensor> decay, no_decay;
  for (const auto &item : model->named_parameters()) {
    const std::string &name = item.key();
    if (name.size() >= 6 && name.compare(name.size() - 6, 6, "weight") == 0)
      decay.push_back(item.value());
    if (name.find("norm") != std::string::npos)
      no_decay.push_back(item.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay);
  groups.emplace_back(no_decay);
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(1.0));
  at::Tensor gain = model->norm->weight, before = gain.clone();
  at::Tensor fc_weight = model->fc->weight, fc_before = fc_weight.clone();
  for (auto &group : opt.param_groups())
    for (auto &p : group.params())
      p.mutable_grad() = torch::ones_like(p);
  opt.step();
  EXPECT_TRUE(torch::allclose(gain, before - 2));
  EXPECT_TRUE(torch::allclose(fc_weight, fc_before - 1));
}

// Note [Dictionaries and lists of parameters]: a ParameterDict entry
// inserted again under another key is one tensor registered twice, and a key
// given again throws; ParameterList::append registers its tensor too.
TEST(ParameterListFacts, AParameterDictEntryInsertedUnderASecondKeyIsListedTwice) {
  torch::nn::ParameterDict prompts;
  prompts->insert("mnli", torch::zeros({2}).requires_grad_());
  prompts->insert("rte", prompts["mnli"]);
  std::vector<torch::Tensor> params = prompts->parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_TRUE(params[0].is_same(params[1]));
  EXPECT_THROW(prompts->insert("mnli", torch::ones({2})), c10::Error);

  torch::nn::ParameterList temps;
  temps->append(torch::ones({1}));
  temps->append(temps[0]);
  std::vector<torch::Tensor> listed = temps->parameters();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_TRUE(listed[0].is_same(listed[1]));
}

// Note [Containers filled after their registration]: register_module keeps
// a handle to the container, so what is appended to it afterwards is the
// model's too.
struct FlowImpl : torch::nn::Module {
  FlowImpl() {
    gains = register_module("gains", torch::nn::ParameterList());
    layers = register_module("layers", torch::nn::ModuleList());
    auto h = torch::ones({1}).requires_grad_();
    torch::nn::Linear block(2, 2);
    for (int k = 0; k < 3; ++k) {
      gains->append(h);
      layers->push_back(block);
    }
  }
  torch::nn::ParameterList gains{nullptr};
  torch::nn::ModuleList layers{nullptr};
};
TORCH_MODULE(Flow);

TEST(ParameterListFacts, WhatIsAppendedAfterTheRegistrationIsListed) {
  Flow flow;
  std::vector<torch::Tensor> params = flow->parameters();
  // Three gains and three copies of the block's weight and bias.
  ASSERT_EQ(params.size(), 9u);
  EXPECT_EQ(occurrences(params, flow->gains[0]), 3u);
  auto block = flow->layers->ptr<torch::nn::LinearImpl>(0);
  EXPECT_EQ(occurrences(params, block->weight), 3u);
}

} // namespace
