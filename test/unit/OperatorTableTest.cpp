// Pins down the facts the checks rely on in the generated operator table.

#include "OperatorTable.h"

#include <gtest/gtest.h>

using namespace clang::tidy::libtorch;

namespace {

const OperatorTable &table() { return *OperatorTable::builtin(); }

ViewKind viewKind(llvm::StringRef Method, unsigned NumArgs) {
  std::optional<CallEffect> Effect = table().resolveMethod(Method, NumArgs);
  EXPECT_TRUE(Effect) << Method.str();
  return Effect ? Effect->View : ViewKind::None;
}

TEST(OperatorTable, CoversEveryAtenOperator) {
  EXPECT_EQ(table().libtorchVersion(), "1.13.1");
  // DESIGN.md counts 2,961 aten:: operators for this libtorch.
  EXPECT_GE(table().size(), 2961u);
}

TEST(OperatorTable, DefiniteViews) {
  EXPECT_EQ(viewKind("slice", 5), ViewKind::Definite);
  EXPECT_EQ(viewKind("select", 3), ViewKind::Definite);
  EXPECT_EQ(viewKind("narrow", 4), ViewKind::Definite);
  EXPECT_EQ(viewKind("expand", 3), ViewKind::Definite);
  EXPECT_EQ(viewKind("detach", 1), ViewKind::Definite);
  EXPECT_EQ(viewKind("t", 1), ViewKind::Definite);
  EXPECT_EQ(viewKind("view", 2), ViewKind::Definite);
}

TEST(OperatorTable, MayAliasOperators) {
  EXPECT_EQ(viewKind("reshape", 2), ViewKind::MayAlias);
  EXPECT_EQ(viewKind("contiguous", 2), ViewKind::MayAlias);
  EXPECT_EQ(viewKind("flatten", 3), ViewKind::MayAlias);
  EXPECT_EQ(viewKind("to", 5), ViewKind::MayAlias);
  EXPECT_EQ(viewKind("type_as", 2), ViewKind::MayAlias);
}

TEST(OperatorTable, OutOfPlaceOperatorsDoNotAlias) {
  std::optional<CallEffect> Add = table().resolveMethod("add", 3);
  ASSERT_TRUE(Add);
  EXPECT_FALSE(Add->writes());
  EXPECT_FALSE(Add->ResultAliases);
  EXPECT_EQ(Add->View, ViewKind::None);
  std::optional<CallEffect> Clone = table().resolveMethod("clone", 2);
  ASSERT_TRUE(Clone);
  EXPECT_FALSE(Clone->ResultAliases);
}

TEST(OperatorTable, InPlaceWritesSelf) {
  std::optional<CallEffect> AddInPlace = table().resolveMethod("add_", 3);
  ASSERT_TRUE(AddInPlace);
  EXPECT_TRUE(AddInPlace->writesArgument(0));
  EXPECT_FALSE(AddInPlace->writesArgument(1));
  EXPECT_EQ(AddInPlace->ResultAliases, 0u);
  EXPECT_EQ(AddInPlace->View, ViewKind::None);

  std::optional<CallEffect> IndexPut = table().resolveMethod("index_put_", 4);
  ASSERT_TRUE(IndexPut);
  EXPECT_TRUE(IndexPut->writesArgument(0));
}

TEST(OperatorTable, OutVariantsWriteTheOutArgument) {
  llvm::ArrayRef<OperatorOverload> Adds = table().overloads("add");
  auto Out = llvm::find_if(
      Adds, [](const OperatorOverload &Op) { return Op.Overload == "out"; });
  ASSERT_NE(Out, Adds.end());
  ASSERT_EQ(Out->Out.size(), 1u);
  EXPECT_EQ(Out->Arguments[Out->Out[0]], "out");
  EXPECT_EQ(Out->Written, Out->Out);

  // at::add_out(out, self, other, alpha): out comes first in C++.
  std::optional<CallEffect> AddOut = table().resolveFunction("add_out", 4);
  ASSERT_TRUE(AddOut);
  EXPECT_EQ(AddOut->WrittenArgs, (llvm::SmallVector<unsigned, 2>{0}));
  EXPECT_EQ(AddOut->OutArgs, (llvm::SmallVector<unsigned, 2>{0}));
  // at::add_outf(self, other, alpha, out): schema order.
  std::optional<CallEffect> AddOutf = table().resolveFunction("add_outf", 4);
  ASSERT_TRUE(AddOutf);
  EXPECT_EQ(AddOutf->WrittenArgs, (llvm::SmallVector<unsigned, 2>{3}));
}

TEST(OperatorTable, MetadataOnlyWritesAreNotDataWrites) {
  for (llvm::StringRef Name : {"squeeze_", "t_", "as_strided_", "requires_grad_"}) {
    llvm::ArrayRef<OperatorOverload> Overloads = table().overloads(Name);
    ASSERT_FALSE(Overloads.empty()) << Name.str();
    EXPECT_TRUE(Overloads.front().MetadataOnly) << Name.str();
    EXPECT_FALSE(Overloads.front().Written.empty()) << Name.str();
  }
  std::optional<CallEffect> Transpose = table().resolveMethod("t_", 1);
  ASSERT_TRUE(Transpose);
  EXPECT_FALSE(Transpose->writes());
  std::optional<CallEffect> Add = table().resolveMethod("add_", 3);
  ASSERT_TRUE(Add);
  EXPECT_FALSE(Add->MetadataOnly);
  EXPECT_TRUE(Add->writes());
}

TEST(OperatorTable, ListsOfViews) {
  for (llvm::StringRef Name : {"chunk", "split", "unbind"}) {
    llvm::ArrayRef<OperatorOverload> Overloads = table().overloads(Name);
    ASSERT_FALSE(Overloads.empty()) << Name.str();
    for (const OperatorOverload &Op : Overloads) {
      EXPECT_TRUE(Op.ReturnsList) << Name.str() << "." << Op.Overload;
      EXPECT_NE(Op.View, ViewKind::None) << Name.str() << "." << Op.Overload;
    }
  }
}

TEST(OperatorTable, ExpandingViews) {
  for (llvm::StringRef Name : {"expand", "expand_as", "broadcast_to"}) {
    std::optional<CallEffect> Effect = table().resolveFunction(Name, 2);
    if (!Effect)
      Effect = table().resolveMethod(Name, 2);
    ASSERT_TRUE(Effect) << Name.str();
    EXPECT_TRUE(Effect->Expands) << Name.str();
  }
  std::optional<CallEffect> Narrow = table().resolveMethod("narrow", 4);
  ASSERT_TRUE(Narrow);
  EXPECT_FALSE(Narrow->Expands);
}

TEST(OperatorTable, UnknownNamesResolveToNothing) {
  EXPECT_FALSE(table().resolveMethod("not_an_operator", 1));
  EXPECT_FALSE(table().resolveFunction("not_an_operator_out", 2));
}

TEST(OperatorTable, ParseRejectsMalformedTables) {
  for (llvm::StringRef Bad :
       {"", "[]", "{\"format\": 1}", "{\"format\": 2, \"operators\": []}",
        "{\"format\": 1, \"operators\": [{\"name\": \"x\"}]}",
        "{\"format\": 1, \"operators\": [{\"name\": \"x\", \"arguments\": "
        "[\"self\"], \"written\": [\"other\"]}]}"}) {
    llvm::Expected<std::shared_ptr<const OperatorTable>> Table =
        OperatorTable::parse(Bad);
    EXPECT_FALSE(Table) << Bad.str();
    if (!Table)
      llvm::consumeError(Table.takeError());
  }
}

TEST(OperatorTable, LoadReportsMissingFiles) {
  llvm::Expected<std::shared_ptr<const OperatorTable>> Table =
      OperatorTable::load("/nonexistent/aten-operators.json");
  ASSERT_FALSE(Table);
  std::string Message = llvm::toString(Table.takeError());
  EXPECT_NE(Message.find("/nonexistent/aten-operators.json"), std::string::npos);
}

TEST(OperatorTable, ParsesAMinimalTable) {
  llvm::Expected<std::shared_ptr<const OperatorTable>> Table =
      OperatorTable::parse(R"({"format": 1, "libtorch": "9.9", "operators": [
        {"name": "frob_", "overload": "", "arguments": ["self", "other"],
         "written": ["self"], "returns_alias": ["self"]},
        {"name": "peek", "overload": "", "arguments": ["self"],
         "returns_alias": ["self"], "view": "may-alias"}]})");
  ASSERT_TRUE(static_cast<bool>(Table)) << llvm::toString(Table.takeError());
  EXPECT_EQ((*Table)->libtorchVersion(), "9.9");
  std::optional<CallEffect> Frob = (*Table)->resolveMethod("frob_", 2);
  ASSERT_TRUE(Frob);
  EXPECT_TRUE(Frob->writesArgument(0));
  std::optional<CallEffect> Peek = (*Table)->resolveMethod("peek", 1);
  ASSERT_TRUE(Peek);
  EXPECT_EQ(Peek->View, ViewKind::MayAlias);
}

} // namespace
