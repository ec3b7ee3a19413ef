// The instrumentation macros: verdicts, facts, findings, pass-through.
#include "fake_device.h"
#include "test_support.h"

#include "torchalias/instrument.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <thread>
#include <type_traits>
#include <vector>

namespace torchalias {
namespace {

using test::read_records;
using test::report_to_scratch;

// The value category a macro yields: a forwarding reference deduces an
// lvalue reference only for an lvalue.
template <class T> constexpr bool is_lvalue(T &&) {
  return std::is_lvalue_reference_v<T>;
}

// What the macros expand to, checked at compile time (the macros contain a
// lambda, which C++17 allows in no decltype).
static_assert(std::is_same_v<decltype(detail::view_write(
                                 std::declval<site_location &>(),
                                 std::declval<at::Tensor &>())),
                             at::Tensor &>);
static_assert(std::is_same_v<decltype(detail::view_write(
                                 std::declval<site_location &>(),
                                 std::declval<const at::Tensor &>())),
                             const at::Tensor &>);
static_assert(std::is_same_v<decltype(detail::from_blob(
                                 std::declval<site_location &>(),
                                 std::declval<at::Tensor>())),
                             at::Tensor>);
static_assert(std::is_same_v<decltype(detail::parameters(
                                 std::declval<site_location &>(),
                                 std::declval<std::vector<at::Tensor>>())),
                             std::vector<at::Tensor>>);
static_assert(detail::is_finding_id("9f86d081884c7d65"));
static_assert(!detail::is_finding_id("9F86D081884C7D65"));
static_assert(!detail::is_finding_id("9f86d081884c7d6"));
static_assert(!detail::is_finding_id("9f86d081884c7d65a"));
static_assert(!detail::is_finding_id("9f86d081884c7dxx"));

template <int A, int B> const at::Tensor &pick(const at::Tensor &a,
                                                const at::Tensor &b) {
  return A < B ? a : b;
}

// View writes.

TEST(AtViewWrite, ContiguousReshapeIsConfirmed) {
  const std::string path = report_to_scratch(mode::log);
  auto input = torch::ones({4, 3});
  TORCHALIAS_AT_VIEW_WRITE("0123456789abcdef", input.reshape({12})).add_(1);
  const int line = __LINE__ - 1;
  EXPECT_EQ(input[3][2].item<float>(), 2.0f) << "the write went through";
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["check"], "libtorch-inplace-on-view");
  EXPECT_EQ(records[0]["finding"], "0123456789abcdef");
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  EXPECT_EQ(records[0]["line"], line);
  EXPECT_EQ(records[0]["facts"]["is_view"], true);
}

TEST(AtViewWrite, TransposedReshapeIsNotApplicable) {
  const std::string path = report_to_scratch(mode::log);
  auto input = torch::ones({4, 3});
  TORCHALIAS_AT_VIEW_WRITE("0123456789abcdef", input.t().reshape({12}))
      .add_(1);
  EXPECT_EQ(input[3][2].item<float>(), 1.0f) << "reshape() copied";
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "not-applicable");
  EXPECT_EQ(records[0]["facts"]["is_view"], false);
}

TEST(AtViewWrite, ViewOfAnUnobservedTemporaryIsClean) {
  const std::string path = report_to_scratch(mode::log);
  // Named first: a temporary base lives to the end of its full-expression,
  // and while it does, someone else holds it.
  auto head = torch::ones({4, 3}).narrow(0, 0, 2);
  TORCHALIAS_AT_VIEW_WRITE("00000000000000aa", head).mul_(2);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "clean");
}

// The cheap verdict of validate_inplace_on_view() and the one
// check_inplace_on_view() derives with its facts agree on every case.
TEST(AtViewWrite, CheapVerdictAgreesWithTheCheck) {
  configure({mode::log, ""});
  auto input = torch::ones({4, 3});
  auto weight = torch::ones({4}, torch::requires_grad());
  auto alias_source = torch::ones({4});
  auto alias = alias_source.detach();
  std::vector<at::Tensor> targets = {
      input.narrow(0, 0, 2),           input.reshape({12}),
      input.t().reshape({12}),         torch::ones({4, 3}).narrow(0, 0, 2),
      torch::zeros({3}).expand({4, 3}), weight.narrow(0, 0, 2),
      alias,                           torch::ones({3}),
      at::Tensor(),                    torch::ones({3}).to_sparse()};
  std::vector<verdict> seen;
  for (bool grad_mode : {true, false}) {
    at::AutoGradMode mode_guard(grad_mode);
    for (const at::Tensor &target : targets) {
      site_location site{__FILE__, __LINE__, "agreement"};
      const verdict cheap = validate_inplace_on_view(target, site);
      EXPECT_EQ(cheap, check_inplace_on_view(target).verdict)
          << "target " << seen.size() % targets.size() << " grad mode "
          << grad_mode;
      seen.push_back(cheap);
    }
  }
  // Every verdict occurs, so the agreement is not vacuous.
  for (verdict v : {verdict::confirmed, verdict::clean,
                    verdict::not_applicable})
    EXPECT_NE(std::find(seen.begin(), seen.end(), v), seen.end())
        << to_string(v);
}

TEST(AtViewWrite, YieldsTheSameLvalue) {
  report_to_scratch(mode::log);
  auto input = torch::ones({4, 3});
  auto head = input.narrow(0, 0, 2);
  EXPECT_EQ(&TORCHALIAS_AT_VIEW_WRITE("00000000000000b1", head), &head);
  EXPECT_TRUE(is_lvalue(TORCHALIAS_AT_VIEW_WRITE("00000000000000b2", head)));
  const at::Tensor &const_head = head;
  EXPECT_EQ(&TORCHALIAS_AT_VIEW_WRITE("00000000000000b3", const_head),
            &const_head);
  EXPECT_EQ(head.use_count(), 1u) << "no handle was copied or kept";
}

TEST(AtViewWrite, YieldsAUsablePrvalueForATemporary) {
  report_to_scratch(mode::log);
  auto input = torch::ones({4, 3});
  EXPECT_FALSE(is_lvalue(
      TORCHALIAS_AT_VIEW_WRITE("00000000000000c1", input.narrow(0, 0, 2))));
  const auto &head =
      TORCHALIAS_AT_VIEW_WRITE("00000000000000c2", input.narrow(0, 0, 2));
  ASSERT_TRUE(head.defined()) << "the temporary was lifetime-extended";
  head.add_(4);
  EXPECT_EQ(input[1][2].item<float>(), 5.0f);
  EXPECT_EQ(input[2][2].item<float>(), 1.0f);
}

TEST(AtViewWrite, EvaluatesTheExpressionOnceAndKeepsCommas) {
  report_to_scratch(mode::log);
  auto a = torch::ones({2}), b = torch::zeros({2});
  int evaluated = 0;
  auto target = [&]() -> at::Tensor & {
    ++evaluated;
    return a;
  };
  TORCHALIAS_AT_VIEW_WRITE("00000000000000d1", target()).add_(1);
  EXPECT_EQ(evaluated, 1);
  TORCHALIAS_AT_VIEW_WRITE("00000000000000d2", pick<0, 1>(a, b)).add_(1);
  EXPECT_EQ(a[0].item<float>(), 3.0f);
  EXPECT_EQ(b[0].item<float>(), 0.0f);
}

// The default policy: a site in a loop writes one record per verdict.
TEST(AtViewWrite, ALoopWritesOneRecordPerVerdict) {
  const std::string path = report_to_scratch(mode::log);
  auto input = torch::ones({8});
  const report_stats before = current_stats();
  for (int i = 0; i < 1000; ++i) {
    at::Tensor target = i % 2 ? input.narrow(0, 0, 4) : torch::ones({4});
    TORCHALIAS_AT_VIEW_WRITE("00000000000000e1", target).add_(1);
  }
  EXPECT_EQ(current_stats().checks - before.checks, 1000u);
  EXPECT_EQ(current_stats().confirmed - before.confirmed, 500u);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["verdict"], "not-applicable");
  EXPECT_EQ(records[1]["verdict"], "confirmed");
}

// Mode off: the expression and nothing else.
TEST(InstrumentOff, EvaluatesEachExpressionOnceAndRecordsNothing) {
  const std::string path = report_to_scratch(mode::off);
  const report_stats before = current_stats();
  int evaluated = 0;
  auto counted = [&](at::Tensor t) {
    ++evaluated;
    return t;
  };
  auto input = torch::ones({6});
  auto view = TORCHALIAS_AT_VIEW_WRITE("00000000000000f1",
                                       counted(input.narrow(0, 0, 3)));
  TORCHALIAS_AT_OVERLAP_DST("00000000000000f2", counted(view))
      .add_(TORCHALIAS_AT_OVERLAP_OPERAND("00000000000000f2",
                                          counted(input.narrow(0, 3, 3))));
  int destination_evaluated = 0;
  auto destination = [&]() -> at::Tensor & {
    ++destination_evaluated;
    return view;
  };
  auto one = torch::ones({3});
  at::add_out(view,
              TORCHALIAS_AT_OVERLAP_OPERAND_OF("00000000000000f3",
                                               destination(), counted(view)),
              one);
  TORCHALIAS_AT_DETACHED_SOURCE("00000000000000f4", counted(input))
      .data()
      .mul_(2);
  std::vector<float> buffer(4, 1.0f);
  auto wrapped = TORCHALIAS_AT_FROM_BLOB(
      "00000000000000f5", counted(torch::from_blob(buffer.data(), {4})));
  auto params = TORCHALIAS_AT_PARAMETERS(
      "00000000000000f6", std::vector<at::Tensor>{counted(input)});
  {
    TORCHALIAS_AT_WORKER("00000000000000f7", guard, counted(input));
  }
  EXPECT_EQ(evaluated, 8);
  EXPECT_EQ(destination_evaluated, 0) << "the destination is not evaluated";
  EXPECT_EQ(current_stats().checks, before.checks);
  EXPECT_TRUE(read_records(path).empty());
  // The wrap in mode off was not registered: a second wrap is clean.
  const std::string on = report_to_scratch(mode::log);
  auto again = TORCHALIAS_AT_FROM_BLOB(
      "00000000000000f8", torch::from_blob(buffer.data(), {4}));
  const auto records = read_records(on);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "clean");
}

// Overlapping operands.

TEST(AtOverlap, OverlappingNarrowsAreConfirmed) {
  const std::string path = report_to_scratch(mode::log);
  auto x = torch::arange(6, torch::kFloat);
  // ATen refuses the partial overlap, after the operands were validated.
  EXPECT_THROW(TORCHALIAS_AT_OVERLAP_DST("1000000000000001", x.narrow(0, 0, 3))
                   .add_(TORCHALIAS_AT_OVERLAP_OPERAND("1000000000000001",
                                                       x.narrow(0, 1, 3))),
               c10::Error);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  const auto &r = records[0];
  EXPECT_EQ(r["check"], "libtorch-overlapping-inplace");
  EXPECT_EQ(r["finding"], "1000000000000001");
  EXPECT_EQ(r["verdict"], "confirmed");
  EXPECT_EQ(r["facts"]["destination_remembered"], true);
  EXPECT_EQ(r["facts"]["overlap"], "partial-overlap");
  EXPECT_EQ(r["facts"]["shared_storage"], true);
  EXPECT_EQ(r["facts"]["destination"]["storage_offset"], 0);
  EXPECT_EQ(r["facts"]["operand"]["storage_offset"], 1);
  EXPECT_EQ(r["facts"]["operand"]["sizes"], nlohmann::json::parse("[3]"));
  EXPECT_EQ(r["facts"]["operand"]["strides"], nlohmann::json::parse("[1]"));
}

TEST(AtOverlap, DisjointNarrowsAreClean) {
  const std::string path = report_to_scratch(mode::log);
  auto x = torch::arange(6, torch::kFloat);
  TORCHALIAS_AT_OVERLAP_DST("1000000000000002", x.narrow(0, 0, 3))
      .add_(TORCHALIAS_AT_OVERLAP_OPERAND("1000000000000002",
                                          x.narrow(0, 3, 3)));
  EXPECT_EQ(x[0].item<float>(), 3.0f);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "clean");
  EXPECT_EQ(records[0]["facts"]["overlap"], "disjoint-views");
}

TEST(AtOverlap, InterleavedColumnsAreClean) {
  auto m = torch::zeros({4, 2});
  EXPECT_EQ(check_overlap(m.select(1, 0), m.select(1, 1)).verdict,
            verdict::clean);
  EXPECT_EQ(check_overlap(m.select(1, 0), m.t()).verdict, verdict::confirmed);
}

TEST(AtOverlap, DifferentTensorsAreNotApplicable) {
  const std::string path = report_to_scratch(mode::log);
  auto x = torch::ones({3}), y = torch::ones({3});
  TORCHALIAS_AT_OVERLAP_DST("1000000000000003", x)
      .add_(TORCHALIAS_AT_OVERLAP_OPERAND("1000000000000003", y));
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "not-applicable");
  EXPECT_EQ(records[0]["facts"]["overlap"], "none");
  EXPECT_EQ(records[0]["facts"]["shared_storage"], false);
}

TEST(AtOverlap, OneTensorOnBothSidesIsConfirmed) {
  auto x = torch::ones({3});
  const auto result = check_overlap(x, x);
  EXPECT_EQ(result.verdict, verdict::confirmed);
  EXPECT_EQ(nlohmann::json::parse(result.facts.to_json())["overlap"],
            "same-handle");
}

// Two from_blob() storages over one buffer: ATen's checks cannot see it.
TEST(AtOverlap, TwoWrappingsOfOneBufferAreConfirmed) {
  std::vector<float> buffer(8, 1.0f);
  auto whole = torch::from_blob(buffer.data(), {8});
  auto tail = torch::from_blob(buffer.data() + 4, {4});
  auto head = torch::from_blob(buffer.data(), {4});
  const auto result = check_overlap(whole, tail);
  EXPECT_EQ(result.verdict, verdict::confirmed);
  EXPECT_EQ(nlohmann::json::parse(result.facts.to_json())["shared_storage"],
            false);
  EXPECT_EQ(check_overlap(head, tail).verdict, verdict::not_applicable);
}

TEST(AtOverlap, AnOperandWithoutItsDestinationSaysSo) {
  const std::string path = report_to_scratch(mode::log);
  auto x = torch::ones({3});
  TORCHALIAS_AT_OVERLAP_OPERAND("1000000000000004", x);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "not-applicable");
  EXPECT_EQ(records[0]["facts"]["destination_remembered"], false);
}

TEST(AtOverlap, TheDestinationIsRememberedPerThread) {
  configure({mode::log, ""});
  site_location destination_site{__FILE__, __LINE__, "overlap",
                                 "1000000000000005"};
  site_location operand_site{__FILE__, __LINE__, "overlap",
                             "1000000000000005"};
  auto x = torch::ones({3});
  remember_overlap_destination(x, destination_site);
  EXPECT_EQ(validate_overlap_operand(x, operand_site), verdict::confirmed);
  verdict elsewhere = verdict::confirmed;
  std::thread([&] {
    elsewhere = validate_overlap_operand(x, operand_site);
  }).join();
  EXPECT_EQ(elsewhere, verdict::not_applicable);
  site_location other_finding{__FILE__, __LINE__, "overlap",
                              "1000000000000006"};
  EXPECT_EQ(validate_overlap_operand(x, other_finding),
            verdict::not_applicable);
}

TEST(AtOverlap, ADeadDestinationIsNotKeptAlive) {
  configure({mode::log, ""});
  site_location site{__FILE__, __LINE__, "overlap", "1000000000000007"};
  auto x = torch::ones({3});
  {
    auto destination = x.narrow(0, 0, 2);
    remember_overlap_destination(destination, site);
    EXPECT_EQ(destination.use_count(), 1u) << "remembered weakly";
    EXPECT_EQ(validate_overlap_operand(x, site), verdict::confirmed);
  }
  EXPECT_EQ(validate_overlap_operand(x, site), verdict::not_applicable);
}

TEST(AtOverlap, OperandOfAFreeOutFunction) {
  const std::string path = report_to_scratch(mode::log);
  auto out = torch::ones({3}), other = torch::ones({3});
  at::add_out(out,
              TORCHALIAS_AT_OVERLAP_OPERAND_OF("1000000000000008", out, out),
              other);
  at::add_out(out,
              TORCHALIAS_AT_OVERLAP_OPERAND_OF("1000000000000009", out, other),
              other);
  EXPECT_EQ(out[0].item<float>(), 2.0f);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  EXPECT_EQ(records[0]["facts"]["overlap"], "same-handle");
  EXPECT_FALSE(records[0]["facts"].contains("destination_remembered"));
  EXPECT_EQ(records[1]["verdict"], "not-applicable");
}

// Detached writes.

TEST(AtDetachedSource, ASourceRequiringGradIsConfirmed) {
  const std::string path = report_to_scratch(mode::log);
  auto w = torch::ones({3}, torch::requires_grad());
  TORCHALIAS_AT_DETACHED_SOURCE("2000000000000001", w).data().mul_(2);
  EXPECT_EQ(w[0].item<float>(), 2.0f);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  const auto &r = records[0];
  EXPECT_EQ(r["check"], "libtorch-detached-write");
  EXPECT_EQ(r["finding"], "2000000000000001");
  EXPECT_EQ(r["verdict"], "confirmed");
  EXPECT_EQ(r["facts"]["requires_grad"], true);
  EXPECT_EQ(r["facts"]["is_leaf"], true);
  EXPECT_TRUE(r["facts"]["grad_fn"].is_null());
  EXPECT_EQ(r["facts"]["grad_mode"], true);
  EXPECT_EQ(r["facts"]["version"], 0);
  EXPECT_EQ(r["facts"]["use_count"], 1);
}

TEST(AtDetachedSource, UnderNoGradGuardItIsClean) {
  const std::string path = report_to_scratch(mode::log);
  auto w = torch::ones({3}, torch::requires_grad());
  {
    torch::NoGradGuard no_grad;
    TORCHALIAS_AT_DETACHED_SOURCE("2000000000000002", w).data().mul_(2);
  }
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "clean");
  EXPECT_EQ(records[0]["facts"]["grad_mode"], false);
  EXPECT_EQ(records[0]["facts"]["requires_grad"], true);
}

TEST(AtDetachedSource, FrozenOrUndefinedSources) {
  auto frozen = torch::ones({3});
  EXPECT_EQ(check_detached_source(frozen).verdict, verdict::clean);
  EXPECT_EQ(check_detached_source(at::Tensor()).verdict,
            verdict::not_applicable);
  auto w = torch::ones({3}, torch::requires_grad());
  auto y = w * w;
  const auto result = check_detached_source(y);
  EXPECT_EQ(result.verdict, verdict::confirmed);
  const auto facts = nlohmann::json::parse(result.facts.to_json());
  EXPECT_EQ(facts["is_leaf"], false);
  EXPECT_EQ(facts["grad_fn"], "MulBackward0");
}

TEST(AtDetachedSource, TheFactsShowTheVersionCounter) {
  auto w = torch::ones({3}, torch::requires_grad());
  w.detach().add_(1); // detach() shares the version counter
  w.detach().add_(1);
  EXPECT_EQ(nlohmann::json::parse(
                check_detached_source(w).facts.to_json())["version"],
            2);
}

// from_blob() wrappings.

TEST(AtFromBlob, ReuseWhileTheFirstWrapperLivesIsConfirmed) {
  const std::string path = report_to_scratch(mode::log);
  std::vector<float> frame(16, 0.0f);
  auto wrap = [&] {
    return TORCHALIAS_AT_FROM_BLOB("3000000000000001",
                                   torch::from_blob(frame.data(), {16}));
  };
  at::Tensor first = wrap();
  at::Tensor second = wrap(); // the producer reused the frame
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["check"], "libtorch-from-blob-escape");
  EXPECT_EQ(records[0]["verdict"], "clean");
  EXPECT_EQ(records[1]["verdict"], "confirmed");
  const auto &facts = records[1]["facts"];
  EXPECT_EQ(facts["earlier_alive"], 1);
  EXPECT_EQ(facts["bytes"], 64);
  EXPECT_EQ(facts["earlier_finding"], "3000000000000001");
  EXPECT_EQ(facts["earlier_site"].get<std::string>().rfind(__FILE__, 0), 0u)
      << facts;
  EXPECT_EQ(facts["address"], facts["earlier_address"]);
}

TEST(AtFromBlob, ReuseAfterTheFirstWrapperDiedIsClean) {
  configure({mode::log, ""});
  std::vector<float> frame(16, 0.0f);
  site_location site{__FILE__, __LINE__, "from-blob", "3000000000000002"};
  { validate_from_blob(torch::from_blob(frame.data(), {16}), site); }
  EXPECT_EQ(validate_from_blob(torch::from_blob(frame.data(), {16}), site),
            verdict::clean);
}

TEST(AtFromBlob, AViewKeepsTheWrappingAlive) {
  configure({mode::log, ""});
  std::vector<float> frame(16, 0.0f);
  site_location site{__FILE__, __LINE__, "from-blob", "3000000000000003"};
  at::Tensor row;
  {
    at::Tensor first = torch::from_blob(frame.data(), {4, 4});
    validate_from_blob(first, site);
    row = first[2];
  }
  // Only the second half of the frame: it still meets the live row.
  EXPECT_EQ(
      validate_from_blob(torch::from_blob(frame.data() + 8, {8}), site),
      verdict::confirmed);
  row = at::Tensor();
  EXPECT_EQ(validate_from_blob(torch::from_blob(frame.data(), {16}), site),
            verdict::clean);
}

TEST(AtFromBlob, DistinctBuffersAreClean) {
  configure({mode::log, ""});
  std::vector<float> a(16), b(16);
  site_location site{__FILE__, __LINE__, "from-blob", "3000000000000004"};
  auto first = torch::from_blob(a.data(), {16});
  EXPECT_EQ(validate_from_blob(first, site), verdict::clean);
  auto second = torch::from_blob(b.data(), {16});
  EXPECT_EQ(validate_from_blob(second, site), verdict::clean);
  EXPECT_EQ(validate_from_blob(first, site), verdict::clean)
      << "the same wrapping passing again is no reuse";
  EXPECT_EQ(validate_from_blob(at::Tensor(), site), verdict::not_applicable);
}

TEST(AtFromBlob, TakesADeleterLambdaAndExtendsATemporary) {
  report_to_scratch(mode::log);
  std::vector<float> frame(4, 3.0f);
  int deleted = 0;
  {
    const auto &wrapped = TORCHALIAS_AT_FROM_BLOB(
        "3000000000000005",
        torch::from_blob(frame.data(), {4}, [&](void *) { ++deleted; }));
    EXPECT_EQ(wrapped.sum().item<float>(), 12.0f);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1) << "one wrapping, deleted once, at scope end";
}

// Parameter lists.

struct TiedImpl : torch::nn::Module {
  TiedImpl() {
    auto shared = torch::nn::Linear(2, 2);
    register_module("encoder", shared);
    register_module("decoder", shared);
  }
};
TORCH_MODULE(Tied);

TEST(AtParameters, ADuplicatedTensorIsConfirmed) {
  const std::string path = report_to_scratch(mode::log);
  auto w = torch::ones({2}, torch::requires_grad());
  auto b = torch::zeros({2}, torch::requires_grad());
  torch::optim::SGD sgd(
      TORCHALIAS_AT_PARAMETERS("4000000000000001",
                               std::vector<at::Tensor>{w, b, w}),
      torch::optim::SGDOptions(0.1));
  EXPECT_EQ(sgd.param_groups()[0].params().size(), 3u);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  const auto &r = records[0];
  EXPECT_EQ(r["check"], "libtorch-shared-parameter-update");
  EXPECT_EQ(r["finding"], "4000000000000001");
  EXPECT_EQ(r["verdict"], "confirmed");
  EXPECT_EQ(r["facts"]["parameters"], 3);
  EXPECT_EQ(r["facts"]["unique_parameters"], 2);
  EXPECT_EQ(r["facts"]["duplicates"], nlohmann::json::parse(
      R"([{"first":0,"second":2,"kind":"same-handle"}])"));
}

TEST(AtParameters, DistinctTensorsAreCleanAndNoneIsNotApplicable) {
  auto flat = torch::zeros({8});
  using list = std::vector<at::Tensor>;
  EXPECT_EQ(check_parameter_list(list{torch::ones({2}), torch::ones({2})})
                .verdict,
            verdict::clean);
  EXPECT_EQ(
      check_parameter_list(list{flat.narrow(0, 0, 4), flat.narrow(0, 4, 4)})
          .verdict,
      verdict::clean);
  EXPECT_EQ(
      check_parameter_list(list{flat.narrow(0, 0, 5), flat.narrow(0, 4, 4)})
          .verdict,
      verdict::confirmed);
  EXPECT_EQ(check_parameter_list(std::vector<at::Tensor>{}).verdict,
            verdict::not_applicable);
}

TEST(AtParameters, DuplicatesAcrossOptimizerGroups) {
  auto w = torch::ones({2}, torch::requires_grad());
  auto b = torch::zeros({2}, torch::requires_grad());
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<at::Tensor>{w, b});
  groups.emplace_back(std::vector<at::Tensor>{w});
  const auto result = check_parameter_list(groups);
  EXPECT_EQ(result.verdict, verdict::confirmed);
  const auto facts = nlohmann::json::parse(result.facts.to_json());
  EXPECT_EQ(facts["groups"], 2);
  EXPECT_EQ(facts["duplicates"], nlohmann::json::parse(
      R"([{"first":[0,0],"second":[1,0],"kind":"same-handle"}])"));
  groups.pop_back();
  EXPECT_EQ(check_parameter_list(groups).verdict, verdict::clean);
  EXPECT_EQ(check_parameter_list(
                std::vector<torch::optim::OptimizerParamGroup>{})
                .verdict,
            verdict::not_applicable);
}

TEST(AtParameters, ModulesHoldersAndSharedPointers) {
  const std::string path = report_to_scratch(mode::log);
  Tied tied;
  torch::nn::Linear linear(2, 2);
  std::shared_ptr<TiedImpl> shared = tied.ptr();
  Tied &same = TORCHALIAS_AT_PARAMETERS("4000000000000002", tied);
  EXPECT_EQ(&same, &tied);
  TORCHALIAS_AT_PARAMETERS("4000000000000003", *linear);
  TORCHALIAS_AT_PARAMETERS("4000000000000004", shared);
  torch::optim::Adam adam(
      TORCHALIAS_AT_PARAMETERS("4000000000000005", linear->parameters()));
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  EXPECT_EQ(records[0]["facts"]["tie_groups"].size(), 2u);
  EXPECT_EQ(records[1]["verdict"], "clean");
  EXPECT_EQ(records[2]["verdict"], "confirmed");
  EXPECT_EQ(records[3]["verdict"], "clean");
  EXPECT_EQ(records[3]["facts"]["parameters"], 2);
}

// Workers.

void scale_in_place(at::Tensor batch) { batch.mul_(2); }

TEST(AtWorker, ConfirmsAWriteAtTheGuardsEnd) {
  const std::string path = report_to_scratch(mode::log);
  auto batch = torch::ones({64}), labels = torch::zeros({64});
  {
    TORCHALIAS_AT_WORKER("5000000000000001", guard, batch, labels);
    std::thread(scale_in_place, batch).join();
  }
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["check"], "libtorch-worker-missing-clone");
  EXPECT_EQ(records[0]["finding"], "5000000000000001");
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  EXPECT_EQ(records[0]["facts"]["inputs"][0]["name"], "batch");
  EXPECT_EQ(records[0]["facts"]["inputs"][1]["changed"], false);
}

TEST(AtWorker, GuardsAVectorOfTensorsElementByElement) {
  const std::string path = report_to_scratch(mode::log);
  std::vector<at::Tensor> shards = {torch::ones({8}), torch::ones({8})};
  auto labels = torch::zeros({8});
  {
    TORCHALIAS_AT_WORKER("5000000000000005", guard, shards, labels);
    shards.push_back(torch::ones({8})); // not guarded: added afterwards
    std::thread(scale_in_place, shards[1]).join();
  }
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  const auto &inputs = records[0]["facts"]["inputs"];
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[0]["name"], "shards[0]");
  EXPECT_EQ(inputs[0]["changed"], false);
  EXPECT_EQ(inputs[1]["name"], "shards[1]");
  EXPECT_EQ(inputs[1]["changed"], true);
  EXPECT_EQ(inputs[2]["name"], "labels");
  EXPECT_EQ(records[0]["facts"]["changed"], 1);
}

// A non-CPU input goes through the registered device fingerprinter; the
// fake one for the meta device stands in for CUDA's (fake_device.h).
TEST(AtWorker, NonCpuInputsUseTheDeviceFingerprinter) {
  const std::string path = report_to_scratch(mode::log);
  test::scoped_device_fingerprinter fake(c10::DeviceType::Meta,
                                         test::fake_meta_fingerprint);
  auto written = torch::empty({64}, torch::kMeta);
  auto only_read = torch::empty({64}, torch::kMeta);
  const int before = test::fake_fingerprints_taken.load();
  {
    TORCHALIAS_AT_WORKER("5000000000000002", guard, written);
    std::thread(scale_in_place, written).join();
  }
  {
    TORCHALIAS_AT_WORKER("5000000000000003", guard, only_read);
    std::thread([only_read] { (void)only_read.sum(); }).join();
  }
  EXPECT_EQ(test::fake_fingerprints_taken.load() - before, 4);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["verdict"], "confirmed");
  EXPECT_EQ(records[0]["facts"]["inputs"][0]["device"], "meta");
  EXPECT_EQ(records[0]["facts"]["inputs"][0]["fingerprinted"], true);
  EXPECT_EQ(records[1]["verdict"], "clean");
}

TEST(AtWorker, WithoutAFingerprinterANonCpuInputIsNotApplicable) {
  report_to_scratch(mode::log);
  auto meta = torch::empty({64}, torch::kMeta);
  TORCHALIAS_AT_WORKER("5000000000000004", guard, meta);
  meta.add_(1);
  EXPECT_EQ(guard.verify(), verdict::not_applicable);
}

} // namespace
} // namespace torchalias
