// Pins down the facts libtorch-detached-write reads from the measured
// saved-tensor table, and how C++ calls map onto its entries.

#include "SavedTensors.h"

#include "llvm/ADT/SmallVector.h"

#include <gtest/gtest.h>

using namespace clang::tidy::libtorch;

namespace {

const SavedTensorTable &saved() { return *SavedTensorTable::builtin(); }
const OperatorTable &ops() { return *OperatorTable::builtin(); }

SavedOperands method(llvm::StringRef Name,
                     llvm::SmallVector<bool, 4> MayHoldTensor) {
  return saved().savedBy(Name, /*Method=*/true, MayHoldTensor, ops());
}
SavedOperands function(llvm::StringRef Name,
                       llvm::SmallVector<bool, 4> MayHoldTensor) {
  return saved().savedBy(Name, /*Method=*/false, MayHoldTensor, ops());
}

TEST(SavedTensors, BuiltinTableIsTheMeasuredOne) {
  EXPECT_EQ(saved().libtorchVersion(), "1.13.1");
  // docs/operator-table.md counts 865 measured overloads.
  EXPECT_EQ(saved().size(), 865u);
}

TEST(SavedTensors, ExpSigmoidTanhAndReluSaveTheirResult) {
  for (llvm::StringRef Name : {"exp", "sigmoid", "tanh", "relu"}) {
    SavedOperands Method = method(Name, {true});
    EXPECT_TRUE(Method.Result) << Name.str();
    EXPECT_TRUE(Method.Inputs.empty()) << Name.str();
    EXPECT_TRUE(function(Name, {true}).Result) << Name.str();
  }
}

TEST(SavedTensors, MulAndDivSaveTheirTensorInputs) {
  for (llvm::StringRef Name : {"mul", "div"}) {
    SavedOperands Both = method(Name, {true, true});
    EXPECT_TRUE(Both.savesInput(0)) << Name.str();
    EXPECT_TRUE(Both.savesInput(1)) << Name.str();
    EXPECT_FALSE(Both.Result) << Name.str();
  }
}

TEST(SavedTensors, AScalarArgumentPicksTheScalarOverload) {
  // `x * 2`, `x.mul(2)`: mul.Scalar saves nothing.
  EXPECT_TRUE(function("mul", {true, false}).empty());
  EXPECT_TRUE(method("mul", {true, false}).empty());
  // `x.pow(2)`: pow.Tensor_Scalar saves self, not its result.
  SavedOperands Square = method("pow", {true, false});
  EXPECT_TRUE(Square.savesInput(0));
  EXPECT_FALSE(Square.Result);
  // `x.pow(y)`: pow.Tensor_Tensor saves both inputs and its result.
  SavedOperands Power = method("pow", {true, true});
  EXPECT_TRUE(Power.savesInput(0));
  EXPECT_TRUE(Power.savesInput(1));
  EXPECT_TRUE(Power.Result);
}

TEST(SavedTensors, AddAndSumSaveNothing) {
  EXPECT_TRUE(method("add", {true, true, false}).empty());
  EXPECT_TRUE(function("add", {true, true, false}).empty());
  EXPECT_TRUE(method("sum", {true, false}).empty());
}

TEST(SavedTensors, MatmulFamilySavesItsOperands) {
  SavedOperands Matmul = method("matmul", {true, true});
  EXPECT_TRUE(Matmul.savesInput(0));
  EXPECT_TRUE(Matmul.savesInput(1));
  SavedOperands Addmm = function("addmm", {true, true, true, false, false});
  EXPECT_FALSE(Addmm.savesInput(0));
  EXPECT_TRUE(Addmm.savesInput(1));
  EXPECT_TRUE(Addmm.savesInput(2));
}

TEST(SavedTensors, InPlaceOperatorsSaveWhatTheyWrite) {
  // relu_ saves its result, which is self.
  SavedOperands Relu = method("relu_", {true});
  EXPECT_TRUE(Relu.savesInput(0));
  EXPECT_TRUE(Relu.Result);
  // mul_ saves only `other`: writing self again leaves backward intact.
  SavedOperands Mul = method("mul_", {true, true});
  EXPECT_FALSE(Mul.savesInput(0));
  EXPECT_TRUE(Mul.savesInput(1));
}

TEST(SavedTensors, UnmeasuredOperatorsSaveNothing) {
  EXPECT_TRUE(method("no_such_operator", {true}).empty());
  // out= overloads are skipped: autograd does not record them.
  EXPECT_TRUE(saved().entries("exp").size() == 1);
}

TEST(SavedTensors, RejectsMalformedTables) {
  EXPECT_FALSE(static_cast<bool>(SavedTensorTable::parse("[]")));
  llvm::Expected<std::shared_ptr<const SavedTensorTable>> NoSaves =
      SavedTensorTable::parse(
          R"({"format": 1, "operators": [{"name": "exp", "overload": ""}]})");
  EXPECT_FALSE(static_cast<bool>(NoSaves));
  llvm::consumeError(NoSaves.takeError());
  llvm::Expected<std::shared_ptr<const SavedTensorTable>> Future =
      SavedTensorTable::parse(R"({"format": 2, "operators": []})");
  EXPECT_FALSE(static_cast<bool>(Future));
  llvm::consumeError(Future.takeError());
}

} // namespace
