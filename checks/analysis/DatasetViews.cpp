//===- DatasetViews.cpp - examples that are views of their dataset --------===//

#include "DatasetViews.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>

namespace clang::tidy::libtorch {

namespace {

bool isNamed(const CXXRecordDecl *Record, llvm::StringRef Qualified) {
  return Record && Record->getQualifiedNameAsString() == Qualified;
}

/// A class derived from one of torch::data's dataset templates.
bool isDataset(const CXXRecordDecl *Record) {
  if (!Record || !Record->hasDefinition() || isLibtorchDecl(Record))
    return false;
  bool Found = false;
  Record->forallBases([&](const CXXRecordDecl *Base) {
    Found |= isNamed(Base, "torch::data::datasets::BatchDataset");
    return true;
  });
  return Found;
}

/// For a transform class of the file, the method torch::data runs on each
/// example and whether it is given the example's data (a TensorTransform's
/// `operator()`) or the whole example (a Transform's `apply`).
const CXXMethodDecl *transformMethod(const CXXRecordDecl *Record, bool &OfData) {
  if (!Record || !Record->hasDefinition() || isLibtorchDecl(Record))
    return nullptr;
  bool Tensor = false, Whole = false;
  Record->forallBases([&](const CXXRecordDecl *Base) {
    Tensor |= isNamed(Base, "torch::data::transforms::TensorTransform");
    Whole |= isNamed(Base, "torch::data::transforms::Transform");
    return true;
  });
  if (!Tensor && !Whole)
    return nullptr;
  OfData = Tensor;
  for (const CXXMethodDecl *Method : Record->getDefinition()->methods()) {
    bool Runs = Tensor ? Method->getOverloadedOperator() == OO_Call
                       : Method->getIdentifier() && Method->getName() == "apply";
    if (Runs && Method->getNumParams() == 1 && Method->getDefinition())
      return cast<CXXMethodDecl>(Method->getDefinition());
  }
  return nullptr;
}

/// The lambda E is, through temporaries and conversions.
const LambdaExpr *lambdaOf(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreImplicit();
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
      return Lambda;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
        Construct && Construct->getNumArgs() >= 1)
      E = Construct->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

/// `get()` as the dataset class itself defines it.
const CXXMethodDecl *ownGet(const CXXRecordDecl *Dataset) {
  for (const CXXMethodDecl *Method : Dataset->methods())
    if (Method->getIdentifier() && Method->getName() == "get" &&
        Method->hasBody())
      return Method;
  return nullptr;
}

/// The tensors a returned expression is built from: itself, or the
/// arguments of the Example it constructs (`return {images_[i], y};`).
void returnedTensors(const Expr *E, llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!E)
    return;
  E = E->IgnoreImplicit()->IgnoreParens();
  if (isTensorType(E->getType())) {
    Out.push_back(E);
    return;
  }
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    return returnedTensors(Cast->getSubExpr(), Out);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    for (const Expr *Arg : Construct->arguments())
      returnedTensors(Arg, Out);
  if (const auto *List = dyn_cast<InitListExpr>(E))
    for (const Expr *Init : List->inits())
      returnedTensors(Init, Out);
}

void findReturns(const Stmt *S,
                 llvm::SmallVectorImpl<const ReturnStmt *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *Return = dyn_cast<ReturnStmt>(S))
    Out.push_back(Return);
  for (const Stmt *Child : S->children())
    findReturns(Child, Out);
}

} // namespace

std::optional<DatasetView>
DatasetViewFinder::viewReturnedBy(const CXXRecordDecl *Dataset,
                                  unsigned Position) {
  const CXXMethodDecl *Get = isDataset(Dataset) ? ownGet(Dataset) : nullptr;
  const FunctionAliasAnalysis *GetAnalysis = Get ? Analyze(Get) : nullptr;
  if (!GetAnalysis)
    return std::nullopt;
  // The values of get()'s locals at their declarations, in source order.
  AliasEnvironment Environment;
  std::function<void(const Stmt *)> Declare = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Decl = dyn_cast<DeclStmt>(S))
      for (const auto *D : Decl->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && Var->getInit() && isTensorType(Var->getType()))
          Environment[Var] = GetAnalysis->evaluate(Var->getInit(), Environment);
    for (const Stmt *Child : S->children())
      Declare(Child);
  };
  Declare(Get->getBody());
  llvm::SmallVector<const ReturnStmt *, 2> Returns;
  findReturns(Get->getBody(), Returns);
  for (const ReturnStmt *Return : Returns) {
    llvm::SmallVector<const Expr *, 2> Tensors;
    returnedTensors(Return->getRetValue(), Tensors);
    if (Position < Tensors.size()) {
      const Expr *Tensor = Tensors[Position];
      AliasValue Value = GetAnalysis->evaluate(Tensor, Environment);
      const auto *Member = dyn_cast_or_null<FieldDecl>(Value.Root);
      if (Member && Value.RootOrigin == Origin::ObjectState &&
          Value.Rel != Relation::MayAlias)
        return DatasetView{Dataset, Tensor, Member};
    }
  }
  return std::nullopt;
}

// Note [A member refilled by get()]
// A get() that decodes each sample into a member buffer, to save an
// allocation, and returns that member (or a view of it) hands out one
// storage as every example. The DataLoader calls get() for each index of a
// batch before Stack<> collates the examples, so each row holds the last
// sample decoded; and each worker's copy of the dataset copies the member's
// handle, so the workers' get() calls write one buffer at once. A write to
// the member in get() and a return of it as the example's data or target is
// the bug; returning a clone is the repair.
std::optional<RefilledMember>
DatasetViewFinder::refilledMember(const CXXMethodDecl *Get) {
  const CXXRecordDecl *Dataset = Get->getParent();
  if (!isDataset(Dataset) || ownGet(Dataset) != Get)
    return std::nullopt;
  const FunctionAliasAnalysis *GetAnalysis = Analyze(Get);
  if (!GetAnalysis)
    return std::nullopt;
  for (unsigned Position = 0; Position < 2; ++Position) {
    std::optional<DatasetView> View = viewReturnedBy(Dataset, Position);
    if (!View)
      continue;
    for (const WriteEvent &Write : GetAnalysis->writes())
      if (Write.Value.Root == View->Member &&
          Write.Value.RootOrigin == Origin::ObjectState)
        return RefilledMember{*View, &Write};
  }
  return std::nullopt;
}

const Expr *DatasetViewFinder::exampleOf(const Expr *Target,
                                         unsigned &Position) const {
  for (unsigned Depth = 0; Target && Depth < 16; ++Depth) {
    Target = skipHandleCopies(Target);
    if (const auto *Call = dyn_cast<CallExpr>(Target)) {
      std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table);
      if (!Tensor)
        return nullptr;
      Target = Tensor->aliasedArgument();
      continue;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(Target)) {
      const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
      if (Member->isArrow() || !Field ||
          !isNamed(dyn_cast<CXXRecordDecl>(Field->getParent()),
                   "torch::data::Example"))
        return nullptr;
      Position = Field->getFieldIndex();
      return Member->getBase();
    }
    // `auto &image = ex.data;`
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Target)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var || !Var->getType()->isReferenceType() || !Var->getInit() ||
          RangeInits.count(Var))
        return nullptr;
      Target = Var->getInit();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

const CXXRecordDecl *DatasetViewFinder::datasetOf(const Expr *E,
                                                  const VarDecl *&Named) const {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    E = E->IgnoreImplicit()->IgnoreParens();
    // `*loader`: a StatelessDataLoader<Dataset, Sampler>.
    const auto *Loader = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
        E->getType()->getAsCXXRecordDecl());
    if (Loader && isNamed(Loader, "torch::data::StatelessDataLoader") &&
        Loader->getTemplateArgs().size() > 0 &&
        Loader->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return Loader->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *Method = Call->getMethodDecl();
      if (Method && Method->getIdentifier() && Method->getName() == "get")
        return Method->getParent();
    }
    // `batch[0]`, `batch.at(0)`: an example of a batch.
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const auto *Method =
          dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
      const auto *Container =
          Method
              ? dyn_cast<ClassTemplateSpecializationDecl>(Method->getParent())
              : nullptr;
      if (!Container || !Container->isInStdNamespace() ||
          Container->getName() != "vector" || Call->getNumArgs() == 0)
        return nullptr;
      E = isa<CXXMemberCallExpr>(Call)
              ? cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument()
              : Call->getArg(0);
      continue;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var || isa<ParmVarDecl>(Var))
      return nullptr;
    if (!Named)
      Named = Var;
    if (auto It = RangeInits.find(Var); It != RangeInits.end())
      E = It->second;
    else
      E = Var->getInit();
  }
  return nullptr;
}

// Note [Transforms of a dataset's examples]
// `MyDataset().map(TensorLambda<>([](Tensor img) { return img.div_(255); }))`
// runs the lambda on each example's `data` as get() returns it, in the
// DataLoader's threads; `Lambda<Example<>>` runs it on the whole example. So
// the lambda's parameter is the example (or its data), and an in-place write
// of it is a write of what get() returned: a view of the dataset's storage
// rewrites the dataset, and the next epoch transforms it again.
void DatasetViewFinder::findTransforms(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Map = dyn_cast<CXXMemberCallExpr>(S);
      Map && Map->getMethodDecl() && Map->getMethodDecl()->getIdentifier() &&
      Map->getMethodDecl()->getName() == "map" && Map->getNumArgs() == 1) {
    // The object is converted to the BatchDataset base that declares map().
    const CXXRecordDecl *Dataset = Map->getImplicitObjectArgument()
                                       ->IgnoreImplicit()
                                       ->getType()
                                       ->getAsCXXRecordDecl();
    const Expr *Arg = Map->getArg(0)->IgnoreImplicit();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Arg))
      Arg = Cast->getSubExpr()->IgnoreImplicit();
    const auto *Construct = dyn_cast<CXXConstructExpr>(Arg);
    const CXXRecordDecl *Kind =
        Construct ? Construct->getConstructor()->getParent() : nullptr;
    bool OfData = isNamed(Kind, "torch::data::transforms::TensorLambda");
    if (isDataset(Dataset) && ownGet(Dataset) &&
        (OfData || isNamed(Kind, "torch::data::transforms::Lambda")) &&
        Construct->getNumArgs() >= 1)
      if (const LambdaExpr *Lambda =
              lambdaOf(Construct->getArg(0)->IgnoreImplicit());
          Lambda && Lambda->getCallOperator()->getNumParams() == 1)
        Transforms[Lambda->getCallOperator()->getParamDecl(0)] = {Dataset,
                                                                  OfData};
    // A transform class of the file: its method is the transform.
    bool ClassOfData = false;
    if (const CXXMethodDecl *Method = transformMethod(Kind, ClassOfData);
        Method && isDataset(Dataset) && ownGet(Dataset)) {
      Transforms[Method->getParamDecl(0)] = {Dataset, ClassOfData};
      TransformMethods.push_back(Method);
    }
  }
  for (const Stmt *Child : S->children())
    findTransforms(Child);
}

std::vector<DatasetWrite>
DatasetViewFinder::find(const FunctionAliasAnalysis &Analysis,
                        const Stmt *Body) {
  RangeInits = rangeForInits(Body);
  Transforms.clear();
  TransformMethods.clear();
  findTransforms(Body);
  std::vector<DatasetWrite> Result;
  // A write in a transform of the dataset's examples: of the data a
  // TensorLambda or TensorTransform is given, or of a member of the example
  // a Lambda or Transform is.
  auto TransformWrite = [&](const WriteEvent &Write, const Expr *Example,
                            unsigned Position) {
    const auto *ExampleRef =
        Example ? dyn_cast<DeclRefExpr>(Example->IgnoreParenImpCasts())
                : nullptr;
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(
        ExampleRef ? ExampleRef->getDecl() : Write.Value.Root);
    auto It = Param ? Transforms.find(Param) : Transforms.end();
    if (It == Transforms.end())
      return false;
    if (It->second.OfData == !ExampleRef)
      if (std::optional<DatasetView> View = viewReturnedBy(
              It->second.Dataset, It->second.OfData ? 0 : Position))
        Result.push_back({&Write, Param, *View});
    return true;
  };
  for (const CXXMethodDecl *Method : TransformMethods)
    if (const FunctionAliasAnalysis *Inner = Analyze(Method))
      for (const WriteEvent &Write : Inner->writes()) {
        unsigned Position = 0;
        if (Write.Value.Rel != Relation::MayAlias)
          TransformWrite(Write, exampleOf(Write.Target, Position), Position);
      }
  for (const WriteEvent &Write : Analysis.writes()) {
    if (Write.Value.Rel == Relation::MayAlias)
      continue;
    unsigned Position = 0;
    const Expr *Example = exampleOf(Write.Target, Position);
    if (TransformWrite(Write, Example, Position))
      continue;
    const VarDecl *Named = nullptr;
    const CXXRecordDecl *Dataset =
        Example ? datasetOf(Example, Named) : nullptr;
    if (!Dataset || !Named)
      continue;
    if (std::optional<DatasetView> View = viewReturnedBy(Dataset, Position))
      Result.push_back({&Write, Named, *View});
  }
  return Result;
}

} // namespace clang::tidy::libtorch
