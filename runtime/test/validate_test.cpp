// The site validators and their macros, on real tensors and threads.
#include "test_support.h"

#include "torchalias/isolate.h"
#include "torchalias/validate.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <thread>

namespace torchalias {
namespace {

using test::read_records;
using test::report_to_scratch;

nlohmann::json facts_of(const validation_result &result) {
  return nlohmann::json::parse(result.facts.to_json());
}

// The function a static finding points at: an in-place write on a view of
// the caller's tensor.
void normalise_head(const at::Tensor &input, validation_result *seen) {
  auto head = input.narrow(0, 0, 2);
  *seen = check_inplace_on_view(head);
  head.div_(2);
}

TEST(InplaceOnView, ViewOfCallersTensorIsConfirmed) {
  auto input = torch::ones({4, 3});
  validation_result result{};
  normalise_head(input, &result);
  EXPECT_EQ(result.verdict, verdict::confirmed);
  auto facts = facts_of(result);
  EXPECT_EQ(facts["is_view"], true);
  EXPECT_EQ(facts["base_alive_elsewhere"], true);
  EXPECT_EQ(facts["other_tensors_on_storage"], 1);
  EXPECT_EQ(facts["internal_overlap"], "no");
  EXPECT_EQ(input[0][0].item<float>(), 0.5f) << "the write went through";
}

TEST(InplaceOnView, ViewOfAnUnobservedTemporaryIsClean) {
  auto head = torch::ones({4, 3}).narrow(0, 0, 2);
  auto result = check_inplace_on_view(head);
  EXPECT_EQ(result.verdict, verdict::clean);
  EXPECT_EQ(facts_of(result)["base_alive_elsewhere"], false);
  EXPECT_EQ(facts_of(result)["other_tensors_on_storage"], 0);
}

TEST(InplaceOnView, FactsLocateTheTargetInItsStorage) {
  auto input = torch::ones({4, 3});
  auto rows = input.narrow(0, 1, 2);
  auto facts = facts_of(check_inplace_on_view(rows));
  EXPECT_EQ(facts["storage_offset"], 3);
  EXPECT_EQ(facts["sizes"], nlohmann::json::parse("[2,3]"));
  char storage[19];
  std::snprintf(storage, sizeof storage, "0x%016llx",
                static_cast<unsigned long long>(
                    reinterpret_cast<std::uintptr_t>(input.data_ptr())));
  EXPECT_EQ(facts["storage"], storage) << "the storage of the caller's tensor";
}

TEST(InplaceOnView, ReshapeDependsOnTheLayoutAtRunTime) {
  auto input = torch::ones({4, 3});
  auto reshaped_view = input.reshape({12}); // contiguous: a view
  EXPECT_EQ(check_inplace_on_view(reshaped_view).verdict, verdict::confirmed);
  auto reshaped_copy = input.t().reshape({12}); // transposed: a copy
  EXPECT_EQ(check_inplace_on_view(reshaped_copy).verdict,
            verdict::not_applicable);
}

TEST(InplaceOnView, ExpandedTargetOverlapsItself) {
  auto grid = torch::zeros({3}).expand({4, 3});
  auto result = check_inplace_on_view(grid);
  EXPECT_EQ(result.verdict, verdict::confirmed);
  EXPECT_EQ(facts_of(result)["internal_overlap"], "yes");
}

TEST(InplaceOnView, ViewOfALeafThatRequiresGrad) {
  auto weight = torch::ones({4}, torch::requires_grad());
  auto result = check_inplace_on_view(weight.narrow(0, 0, 2));
  EXPECT_EQ(result.verdict, verdict::confirmed);
  EXPECT_EQ(facts_of(result)["view_of_leaf_requiring_grad"], true);
  EXPECT_EQ(facts_of(result)["grad_mode"], true);
  torch::NoGradGuard no_grad;
  EXPECT_EQ(facts_of(check_inplace_on_view(weight.narrow(0, 0, 2)))
                ["grad_mode"],
            false);
}

TEST(InplaceOnView, DetachedAliasSharesStorage) {
  auto weight = torch::ones({4});
  auto alias = weight.detach();
  auto result = check_inplace_on_view(alias);
  EXPECT_EQ(result.verdict, verdict::confirmed);
  EXPECT_GE(facts_of(result)["other_tensors_on_storage"].get<int>(), 1);
}

TEST(InplaceOnView, FreshOrIsolatedTensorsAreNotApplicable) {
  auto input = torch::ones({4, 3});
  EXPECT_EQ(check_inplace_on_view(torch::ones({3})).verdict,
            verdict::not_applicable);
  EXPECT_EQ(check_inplace_on_view(isolate(input.narrow(0, 0, 2))).verdict,
            verdict::not_applicable);
  EXPECT_EQ(check_inplace_on_view(at::Tensor()).verdict,
            verdict::not_applicable);
}

TEST(InplaceOnViewMacro, RecordsTheSite) {
  const std::string path = report_to_scratch(mode::log);
  auto input = torch::ones({4, 3});
  auto head = input.narrow(0, 0, 2);
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head);
  const int line = __LINE__ - 1;
  auto fresh = torch::ones({2});
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(fresh);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["site"], std::string(__FILE__) + ":" +
                                    std::to_string(line) +
                                    ":libtorch-inplace-on-view");
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  EXPECT_EQ(records[1]["verdict"], "not-applicable");
}

TEST(InplaceOnViewMacro, OffModeDoesNotEvenEvaluateTheArgument) {
  const std::string path = report_to_scratch(mode::off);
  int evaluated = 0;
  auto target = [&] {
    ++evaluated;
    return torch::ones({2});
  };
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(target());
  EXPECT_EQ(evaluated, 0);
  configure({mode::log, path});
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(target());
  EXPECT_EQ(evaluated, 1);
  EXPECT_EQ(read_records(path).size(), 1u);
}

struct TiedImpl : torch::nn::Module {
  TiedImpl() {
    auto shared = torch::nn::Linear(2, 2);
    register_module("encoder", shared);
    register_module("decoder", shared);
  }
};
TORCH_MODULE(Tied);

TEST(ValidateParameters, ReportsTieGroupsBeforeAnOptimizer) {
  const std::string path = report_to_scratch(mode::log);
  Tied tied;
  TORCHALIAS_VALIDATE_PARAMETERS(tied);
  TORCHALIAS_VALIDATE_PARAMETERS(*torch::nn::Linear(2, 2));
  TORCHALIAS_VALIDATE_PARAMETERS(*torch::nn::ReLU());
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0]["check"], "libtorch-shared-parameter-update");
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  EXPECT_EQ(records[0]["facts"]["parameters"], 4);
  EXPECT_EQ(records[0]["facts"]["unique_parameters"], 2);
  EXPECT_EQ(records[0]["facts"]["tie_groups"],
            nlohmann::json::parse(R"([["encoder.weight","decoder.weight"],
                                      ["encoder.bias","decoder.bias"]])"));
  EXPECT_EQ(records[1]["verdict"], "clean");
  EXPECT_EQ(records[2]["verdict"], "not-applicable");
}

void scale_in_place(at::Tensor batch) { batch.mul_(2); }
void sum_only(at::Tensor batch, float *out) { *out = batch.sum().item<float>(); }

TEST(WorkerGuard, ConfirmsAWorkerThatWritesItsSharedInput) {
  const std::string path = report_to_scratch(mode::log);
  auto batch = torch::ones({256}), labels = torch::zeros({256});
  verdict outcome;
  {
    TORCHALIAS_WORKER_GUARD(guard, batch, labels);
    std::thread worker(scale_in_place, batch);
    worker.join();
    outcome = guard.verify();
  }
  EXPECT_EQ(outcome, verdict::confirmed);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u) << "verify() reports once, not again at exit";
  const auto &inputs = records[0]["facts"]["inputs"];
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0]["name"], "batch");
  EXPECT_EQ(inputs[0]["changed"], true);
  EXPECT_NE(inputs[0]["before"], inputs[0]["after"]);
  EXPECT_EQ(inputs[1]["name"], "labels");
  EXPECT_EQ(inputs[1]["changed"], false);
  EXPECT_EQ(records[0]["check"], "libtorch-worker-missing-clone");
}

TEST(WorkerGuard, ReaderIsCleanAndTheDestructorReports) {
  const std::string path = report_to_scratch(mode::log);
  auto batch = torch::ones({256});
  float total = 0;
  {
    TORCHALIAS_WORKER_GUARD(guard, batch.narrow(0, 0, 128));
    std::thread worker(sum_only, batch, &total);
    worker.join();
  }
  EXPECT_EQ(total, 256.0f);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "clean");
  EXPECT_EQ(records[0]["facts"]["inputs"][0]["name"],
            "batch.narrow(0, 0, 128)");
}

TEST(WorkerGuard, IsolatedArgumentsKeepTheInputClean) {
  report_to_scratch(mode::log);
  auto batch = torch::ones({256});
  TORCHALIAS_WORKER_GUARD(guard, batch);
  auto args = isolate_args(batch);
  std::thread worker(scale_in_place, std::get<0>(args));
  worker.join();
  EXPECT_EQ(guard.verify(), verdict::clean);
}

TEST(WorkerGuard, NothingToFingerprintIsNotApplicable) {
  report_to_scratch(mode::log);
  TORCHALIAS_WORKER_GUARD(guard, at::Tensor(), torch::empty({2}, torch::kMeta));
  EXPECT_EQ(guard.verify(), verdict::not_applicable);
}

TEST(WorkerGuard, InertInOffMode) {
  const std::string path = report_to_scratch(mode::off);
  auto batch = torch::ones({4});
  {
    TORCHALIAS_WORKER_GUARD(guard, batch);
    batch.add_(1);
  }
  EXPECT_TRUE(read_records(path).empty());
}

} // namespace
} // namespace torchalias
