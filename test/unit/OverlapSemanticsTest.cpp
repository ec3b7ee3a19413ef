// Pins down the measured overlap facts that libtorch-overlapping-inplace
// relies on; runtime/test/overlap_semantics_facts_test.cpp checks the same
// facts against the library itself.

#include "OverlapSemantics.h"

#include <gtest/gtest.h>

using namespace clang::tidy::libtorch;

namespace {

const OverlapSemantics &semantics() { return *OverlapSemantics::builtin(); }

MeasuredOverlap facts(llvm::StringRef Operator, llvm::StringRef Destination,
                      llvm::StringRef Input) {
  std::optional<MeasuredOverlap> Facts =
      semantics().lookup(Operator, Destination, Input);
  EXPECT_TRUE(Facts) << Operator.str() << " " << Input.str();
  return Facts.value_or(MeasuredOverlap{});
}

TEST(OverlapSemantics, CoversTheMeasuredOverloads) {
  EXPECT_EQ(semantics().libtorchVersion(), "1.13.1");
  // docs/operator-table.md: 775 of the 1,408 overloads with a written
  // argument are measured.
  EXPECT_EQ(semantics().size(), 775u);
}

TEST(OverlapSemantics, IndexPutRejectsAnyOverlap) {
  MeasuredOverlap Values = facts("index_put_", "self", "values");
  EXPECT_EQ(Values.ExactAlias, OverlapVerdict::Rejects);
  EXPECT_EQ(Values.PartialOverlap, OverlapVerdict::Rejects);
  EXPECT_EQ(facts("index_put_", "self", "indices").ExactAlias,
            OverlapVerdict::Rejects);
}

TEST(OverlapSemantics, ElementwiseRejectsOnlyPartialOverlap) {
  for (const char *Operator : {"add_", "mul_", "sub_"}) {
    MeasuredOverlap Other = facts(Operator, "self", "other");
    EXPECT_EQ(Other.ExactAlias, OverlapVerdict::Accepts) << Operator;
    EXPECT_EQ(Other.PartialOverlap, OverlapVerdict::Rejects) << Operator;
  }
  MeasuredOverlap Src = facts("copy_", "self", "src");
  EXPECT_EQ(Src.ExactAlias, OverlapVerdict::Accepts);
  EXPECT_EQ(Src.PartialOverlap, OverlapVerdict::Rejects);
}

TEST(OverlapSemantics, OutOverloadsAreKeyedByTheirOutArgument) {
  // add.out and add.Scalar_out agree on `self` accepting an exact alias,
  // and disagree on a partial overlap: merged, that is undecided.
  MeasuredOverlap Self = facts("add", "out", "self");
  EXPECT_EQ(Self.ExactAlias, OverlapVerdict::Accepts);
  EXPECT_EQ(Self.PartialOverlap, OverlapVerdict::Untested);
  EXPECT_EQ(facts("add", "out", "other").PartialOverlap,
            OverlapVerdict::Rejects);
  EXPECT_EQ(facts("mm", "out", "self").PartialOverlap, OverlapVerdict::Corrupts);
  EXPECT_EQ(facts("cat", "out", "tensors").ExactAlias, OverlapVerdict::Untested);
  EXPECT_FALSE(semantics().lookup("add", "self", "other"));
}

// Operators that are not element-wise run with their out= argument as an
// input and compute a wrong result: they read what they have overwritten.
TEST(OverlapSemantics, MatrixProductsCorruptAnAliasedInput) {
  for (const char *Operator : {"mm", "bmm", "matmul"})
    for (const char *Input : {"self", Operator == llvm::StringRef("matmul")
                                          ? "other"
                                          : "mat2"}) {
      MeasuredOverlap Facts = facts(Operator, "out", Input);
      EXPECT_EQ(Facts.ExactAlias, OverlapVerdict::Corrupts) << Operator << Input;
    }
  EXPECT_EQ(facts("addmm", "out", "mat1").ExactAlias, OverlapVerdict::Corrupts);
  // addmm.out's `self` is added element-wise, so out= may be it.
  EXPECT_EQ(facts("addmm", "out", "self").ExactAlias, OverlapVerdict::Accepts);
}

TEST(OverlapSemantics, OtherDestinationsAreMeasuredToo) {
  EXPECT_TRUE(semantics().lookup("_aminmax", "out0", "self"));
  EXPECT_TRUE(semantics().lookup("_aminmax", "out1", "self"));
}

TEST(OverlapSemantics, SkippedOperatorsHaveNoFacts) {
  EXPECT_FALSE(semantics().lookup("add_", "self", "self"));
  EXPECT_FALSE(semantics().lookup("zero_", "self", "self"));
  EXPECT_FALSE(semantics().lookup("no_such_operator_", "self", "other"));
}

TEST(OverlapSemantics, RejectsMalformedTables) {
  auto NotAnObject = OverlapSemantics::parse("[]");
  EXPECT_FALSE(bool(NotAnObject));
  llvm::consumeError(NotAnObject.takeError());
  auto WrongFormat = OverlapSemantics::parse(R"({"format": 2, "operators": []})");
  EXPECT_FALSE(bool(WrongFormat));
  llvm::consumeError(WrongFormat.takeError());
  auto BadVerdict = OverlapSemantics::parse(
      R"({"format": 1, "operators": [{"name": "add_", "destination": "self",
          "inputs": {"other": {"exact_alias": "maybe",
                               "partial_overlap": "rejects"}}}]})");
  EXPECT_FALSE(bool(BadVerdict));
  llvm::consumeError(BadVerdict.takeError());
}

} // namespace
