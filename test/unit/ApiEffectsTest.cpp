//===- ApiEffectsTest.cpp - the measured effects of libtorch's C++ API ----===//
//
// States what torchalias-gen-api-effects measured on Debian's libtorch
// 1.13.1 (checks/data/libtorch-api-effects.json), the facts the checks read
// through resolveTensorCall, and how a call's options select the cases.
//
//===----------------------------------------------------------------------===//

#include "ApiEffects.h"

#include "gtest/gtest.h"

#include <map>

using namespace clang::tidy::libtorch;

namespace {

/// What Api does when its options take the values in Known (others keep
/// their defaults, or are unknown where there is none).
ApiEffect effectOf(llvm::StringRef Api, std::map<std::string, bool> Known) {
  const ApiEntry *Entry = ApiEffectTable::builtin()->lookup(Api);
  EXPECT_NE(Entry, nullptr) << Api.str();
  if (!Entry)
    return {};
  return Entry->under(
      [&](llvm::StringRef Option,
          std::optional<bool> Default) -> std::optional<bool> {
        auto It = Known.find(Option.str());
        return It == Known.end() ? Default : std::optional<bool>(It->second);
      });
}

std::vector<std::string> names(std::initializer_list<const char *> List) {
  return std::vector<std::string>(List.begin(), List.end());
}

TEST(ApiEffectsTest, BatchNormWritesStatisticsOnlyWhenTraining) {
  ApiEffect Training = effectOf("at::batch_norm", {{"training", true}});
  EXPECT_EQ(Training.Writes, names({"running_mean", "running_var"}));
  ApiEffect Evaluating = effectOf("at::batch_norm", {{"training", false}});
  EXPECT_TRUE(Evaluating.Writes.empty());
  // An unknown flag may be either.
  EXPECT_EQ(effectOf("at::batch_norm", {}).Writes,
            names({"running_mean", "running_var"}));
  // F::BatchNormFuncOptions().training() is false by default.
  EXPECT_TRUE(effectOf("torch::nn::functional::batch_norm", {}).Writes.empty());
}

TEST(ApiEffectsTest, BatchNormStatisticsBypassTheVersionCounter) {
  const ApiEntry *Entry = ApiEffectTable::builtin()->lookup("at::batch_norm");
  ASSERT_NE(Entry, nullptr);
  bool Found = false;
  for (const ApiCase &Case : Entry->Cases)
    if (Case.When == OptionSetting{{"training", true}}) {
      Found = true;
      EXPECT_EQ(Case.WritesWithoutVersion,
                names({"running_mean", "running_var"}));
      EXPECT_EQ(Case.Saves, names({"input", "weight"}));
    }
  EXPECT_TRUE(Found);
}

TEST(ApiEffectsTest, EmbeddingMaxNormRenormalisesTheWeightUnderNoGrad) {
  ApiEffect Set = effectOf("torch::nn::functional::embedding",
                           {{"max_norm", true}});
  EXPECT_EQ(Set.Writes, names({"weight"}));
  EXPECT_EQ(Set.WritesGradLeaves, names({"weight"}));
  EXPECT_TRUE(effectOf("torch::nn::functional::embedding", {}).Writes.empty());
  ApiEffect Module = effectOf("torch::nn::Embedding", {{"max_norm", true}});
  EXPECT_EQ(Module.WritesMembers, names({"weight"}));
  EXPECT_TRUE(effectOf("torch::nn::Embedding", {}).WritesMembers.empty());
}

TEST(ApiEffectsTest, InplaceActivationsWriteAndReturnTheirInput) {
  for (const char *Api :
       {"torch::nn::functional::relu", "torch::nn::functional::dropout",
        "torch::nn::functional::leaky_relu"}) {
    ApiEffect On = effectOf(Api, {{"inplace", true}});
    EXPECT_EQ(On.Writes, names({"input"})) << Api;
    EXPECT_EQ(On.Returns, "input") << Api;
    EXPECT_TRUE(effectOf(Api, {}).Writes.empty()) << Api;
  }
  EXPECT_EQ(effectOf("torch::nn::ReLU", {{"inplace", true}}).Writes,
            names({"input"}));
}

TEST(ApiEffectsTest, InitFunctionsWriteTheirTensorEvenAsALeaf) {
  for (const char *Api : {"torch::nn::init::normal_",
                          "torch::nn::init::xavier_uniform_",
                          "torch::nn::init::zeros_"}) {
    ApiEffect Effect = effectOf(Api, {});
    EXPECT_EQ(Effect.Writes, names({"tensor"})) << Api;
    EXPECT_EQ(Effect.WritesGradLeaves, names({"tensor"})) << Api;
  }
}

TEST(ApiEffectsTest, BatchNormModulesWriteRunningStatisticsInTraining) {
  ApiEffect Training = effectOf("torch::nn::BatchNorm2d", {});
  EXPECT_EQ(Training.WritesMembers,
            names({"num_batches_tracked", "running_mean", "running_var"}));
  EXPECT_TRUE(
      effectOf("torch::nn::BatchNorm2d", {{"training", false}}).WritesMembers.empty());
}

TEST(ApiEffectsTest, RejectsMalformedTables) {
  EXPECT_FALSE(static_cast<bool>(ApiEffectTable::parse("{}")));
  llvm::Expected<std::shared_ptr<const ApiEffectTable>> NoCases =
      ApiEffectTable::parse(
          R"({"format": 1, "libtorch": "1.13.1", "operators": [{"api": "f"}]})");
  ASSERT_FALSE(static_cast<bool>(NoCases));
  EXPECT_NE(llvm::toString(NoCases.takeError()).find("'cases'"),
            std::string::npos);
  llvm::Expected<std::shared_ptr<const ApiEffectTable>> BadOption =
      ApiEffectTable::parse(
          R"({"format": 1, "libtorch": "1.13.1", "operators": [{"api": "f",
              "cases": [{"when": {"training": 1}, "writes": [], "saves": []}]}]})");
  ASSERT_FALSE(static_cast<bool>(BadOption));
  llvm::consumeError(BadOption.takeError());
}

} // namespace
