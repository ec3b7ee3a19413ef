// Tied and duplicated parameters, built the ways C++ users build them.
#include "torchalias/parameters.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace torchalias {
namespace {

using names = std::vector<std::string>;

std::vector<names> group_names(const torch::nn::Module &module) {
  std::vector<names> out;
  for (const auto &group : parameter_tie_groups(module))
    out.push_back(group.names);
  return out;
}

// A decoder that takes the embedding matrix it projects with: the usual
// C++ way to tie weights, since register_parameter() will not replace an
// existing name.
struct TiedDecoderImpl : torch::nn::Module {
  explicit TiedDecoderImpl(const at::Tensor &embedding) {
    weight = register_parameter("weight", embedding);
  }
  at::Tensor forward(const at::Tensor &x) {
    return torch::matmul(x, weight.t());
  }
  at::Tensor weight;
};
TORCH_MODULE(TiedDecoder);

struct TiedLanguageModelImpl : torch::nn::Module {
  TiedLanguageModelImpl()
      : embed(register_module("embed", torch::nn::Embedding(10, 4))),
        decode(register_module("decode", TiedDecoder(embed->weight))) {}
  torch::nn::Embedding embed;
  TiedDecoder decode;
};
TORCH_MODULE(TiedLanguageModel);

// One submodule object registered under two names.
struct SharedBlockImpl : torch::nn::Module {
  SharedBlockImpl() {
    torch::nn::Linear shared(3, 3);
    register_module("first", shared);
    register_module("second", shared);
  }
};
TORCH_MODULE(SharedBlock);

// A parameter registered as another's detach(): a second TensorImpl over
// the same storage.
struct RewrappedImpl : torch::nn::Module {
  RewrappedImpl() {
    a = register_parameter("a", torch::randn({4}));
    b = register_parameter("b", a.detach());
  }
  at::Tensor a, b;
};
TORCH_MODULE(Rewrapped);

// Views into one flat buffer: disjoint (c, d) and overlapping (e).
struct FlatBufferImpl : torch::nn::Module {
  FlatBufferImpl() {
    auto flat = torch::zeros({10});
    register_parameter("c", flat.narrow(0, 0, 4).detach());
    register_parameter("d", flat.narrow(0, 4, 4).detach());
    register_parameter("e", flat.narrow(0, 6, 4).detach());
  }
};
TORCH_MODULE(FlatBuffer);

TEST(ParameterTieGroups, TiedLanguageModel) {
  TiedLanguageModel model;
  EXPECT_EQ(group_names(*model),
            (std::vector<names>{{"embed.weight", "decode.weight"}}));
}

TEST(ParameterTieGroups, SharedSubmoduleAndRepeatedSequentialEntry) {
  EXPECT_EQ(group_names(*SharedBlock()),
            (std::vector<names>{{"first.weight", "second.weight"},
                                {"first.bias", "second.bias"}}));
  torch::nn::Linear layer(2, 2);
  torch::nn::Sequential stack(layer, torch::nn::ReLU(), layer);
  EXPECT_EQ(group_names(*stack),
            (std::vector<names>{{"0.weight", "2.weight"},
                                {"0.bias", "2.bias"}}));
}

TEST(ParameterTieGroups, VectorFilledWithOneModule) {
  // n handles to one module, the pitfall of vector(n, value).
  std::vector<torch::nn::Linear> layers(3, torch::nn::Linear(2, 2));
  torch::nn::ModuleList list;
  for (const auto &layer : layers)
    list->push_back(layer);
  EXPECT_EQ(group_names(*list),
            (std::vector<names>{{"0.weight", "1.weight", "2.weight"},
                                {"0.bias", "1.bias", "2.bias"}}));
}

TEST(ParameterTieGroups, StorageLevelTiesAndFlatBuffers) {
  EXPECT_EQ(group_names(*Rewrapped()), (std::vector<names>{{"a", "b"}}));
  EXPECT_EQ(group_names(*FlatBuffer()), (std::vector<names>{{"d", "e"}}));
  EXPECT_TRUE(group_names(*torch::nn::Linear(3, 3)).empty());
}

TEST(UniqueParameters, KeepsFirstSeenOrderAndDropsRepeats) {
  auto a = torch::ones({2}), b = torch::ones({3});
  auto kept = unique_parameters(std::vector<at::Tensor>{b, a, b, a.detach()});
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_TRUE(kept[0].is_same(b));
  EXPECT_TRUE(kept[1].is_same(a));
}

TEST(UniqueParameters, ModulesAndHolders) {
  TiedLanguageModel model;
  EXPECT_EQ(model->parameters().size(), 2u);
  auto kept = unique_parameters(model);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_TRUE(kept[0].is_same(model->embed->weight));
  EXPECT_EQ(unique_parameters(*SharedBlock()).size(), 2u);
  EXPECT_EQ(unique_parameters(*Rewrapped()).size(), 1u);
  EXPECT_EQ(unique_parameters(*FlatBuffer()).size(), 3u)
      << "partly overlapping views each have elements to update";
}

// The reason unique_parameters exists: SGD over parameters() steps a tied
// weight twice.
TEST(UniqueParameters, OptimizerStepsATiedWeightOnce) {
  for (bool deduplicate : {false, true}) {
    TiedLanguageModel model;
    torch::NoGradGuard no_grad;
    model->embed->weight.fill_(0);
    model->embed->weight.mutable_grad() = torch::ones({10, 4});
    torch::optim::SGD sgd(deduplicate ? unique_parameters(model)
                                      : model->parameters(),
                          torch::optim::SGDOptions(/*lr=*/1.0));
    sgd.step();
    EXPECT_EQ(model->embed->weight[0][0].item<float>(),
              deduplicate ? -1.0f : -2.0f);
  }
}

TEST(Untie, ReregistersASecondRegistrationOfOneTensor) {
  TiedLanguageModel model;
  auto changes = untie(model);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].name, "decode.weight");
  EXPECT_EQ(changes[0].tied_to, "embed.weight");
  EXPECT_EQ(changes[0].action, untie_action::reregistered);
  auto params = model->named_parameters();
  EXPECT_FALSE(params["decode.weight"].is_alias_of(params["embed.weight"]));
  EXPECT_TRUE(torch::equal(params["decode.weight"], params["embed.weight"]));
  EXPECT_TRUE(params["decode.weight"].requires_grad());
  EXPECT_TRUE(group_names(*model).empty());
  // Note [Untying one handle]: the typed member is not rebound.
  EXPECT_TRUE(model->decode->weight.is_same(model->embed->weight));
}

TEST(Untie, ResetsDataOfASecondTensorImpl) {
  Rewrapped module;
  auto changes = untie(module);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].action, untie_action::reset_data);
  EXPECT_FALSE(module->a.is_alias_of(module->b)) << "the member sees it too";
  EXPECT_TRUE(module->named_parameters()["b"].is_same(module->b));
  EXPECT_TRUE(torch::equal(module->a, module->b));
}

TEST(Untie, SkipsOneModuleUnderTwoPaths) {
  SharedBlock block;
  auto changes = untie(block);
  ASSERT_EQ(changes.size(), 2u);
  for (const auto &change : changes)
    EXPECT_EQ(change.action, untie_action::skipped_shared_module);
  EXPECT_EQ(group_names(*block).size(), 2u);
}

TEST(Untie, LeavesAnUntiedModuleAlone) {
  torch::nn::Linear layer(3, 3);
  auto weight = layer->weight;
  EXPECT_TRUE(untie(layer).empty());
  EXPECT_TRUE(layer->weight.is_same(weight));
}

TEST(DeepClone, CopiesTheModuleNotTheHandle) {
  torch::nn::Linear original(4, 2);
  torch::nn::Linear handle_copy = original; // shares the module
  EXPECT_EQ(handle_copy.get(), original.get());

  torch::nn::Linear clone = deep_clone(original);
  EXPECT_NE(clone.get(), original.get());
  EXPECT_FALSE(clone->weight.is_alias_of(original->weight));
  EXPECT_TRUE(torch::equal(clone->weight, original->weight));
  {
    torch::NoGradGuard no_grad;
    clone->weight.fill_(3);
  }
  EXPECT_FALSE(torch::equal(clone->weight, original->weight));
  EXPECT_EQ(clone->options.in_features(), 4);
}

TEST(DeepClone, SequentialKeepsItsTypeAndOwnsItsLayers) {
  torch::nn::Sequential stack(torch::nn::Linear(2, 3), torch::nn::ReLU());
  torch::nn::Sequential clone = deep_clone(stack);
  ASSERT_EQ(clone->size(), 2u);
  auto original_params = stack->parameters();
  auto clone_params = clone->parameters();
  ASSERT_EQ(clone_params.size(), original_params.size());
  for (std::size_t i = 0; i < clone_params.size(); ++i)
    EXPECT_FALSE(clone_params[i].is_alias_of(original_params[i]));
}

TEST(DeepClone, EmptyHolderIsAnError) {
  torch::nn::Linear empty(nullptr);
  EXPECT_THROW(deep_clone(empty), error);
}

} // namespace
} // namespace torchalias
