//===- FromBlobEscapeAnalysis.cpp - from_blob tensors that escape ---------===//

#include "FromBlobEscapeAnalysis.h"
#include "Compat.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::libtorch {

namespace {

/// The variable or member whose memory a pointer expression points into:
/// `buf`, `buf.data()`, `&buf[0]`, `buf + offset`, `img.data`, `images_`,
/// through casts.
const ValueDecl *bufferOf(const Expr *E) {
  while (E) {
    E = E->IgnoreParens();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *Field = dyn_cast<MemberExpr>(E);
        Field && isa<CXXThisExpr>(Field->getBase()->IgnoreImplicit()))
      return Field->getMemberDecl();
    if (const auto *Cast = dyn_cast<CastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      E = Unary->getSubExpr();
    else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
      E = Subscript->getBase();
    else if (const auto *Binary = dyn_cast<BinaryOperator>(E))
      E = Binary->getLHS()->getType()->isPointerType() ? Binary->getLHS()
                                                       : Binary->getRHS();
    else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E))
      E = Operator->getNumArgs() > 0 ? Operator->getArg(0) : nullptr;
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
      E = Member->getImplicitObjectArgument();
    else if (const auto *Field = dyn_cast<MemberExpr>(E))
      E = Field->getBase();
    else if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temporary->getSubExpr();
    else
      return nullptr;
  }
  return nullptr;
}

/// `get()` of a class derived from a torch::data dataset.
bool isDatasetGet(const FunctionDecl *Function) {
  const auto *Method = dyn_cast<CXXMethodDecl>(Function);
  if (!Method || !Method->getIdentifier() || Method->getName() != "get")
    return false;
  const CXXRecordDecl *Class = Method->getParent();
  if (!Class->hasDefinition())
    return false;
  bool Found = false;
  Class->forallBases([&](const CXXRecordDecl *Base) {
    if (compat::startsWith(Base->getQualifiedNameAsString(), "torch::data::datasets::"))
      Found = true;
    return true;
  });
  return Found;
}

/// Methods that rewrite or reallocate a buffer object's memory.
bool isRewritingMethod(llvm::StringRef Name) {
  static constexpr llvm::StringLiteral Rewriting[] = {
      "assign",    "fill",         "resize", "clear", "swap", "reserve",
      "push_back", "emplace_back", "insert", "erase", "read"};
  return llvm::is_contained(Rewriting, Name);
}

std::string nameOf(const Expr *E) {
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(skipHandleCopies(E)))
    return Ref->getDecl()->getName().str();
  return "";
}

/// The standard algorithms that write through an iterator or pointer
/// argument, and its position: `std::copy(first, last, out)` writes `out`.
/// These are C++ library facts, not tensor operators.
std::optional<unsigned> writtenAlgorithmArgument(const FunctionDecl *Callee,
                                                 unsigned NumArgs) {
  static constexpr std::pair<llvm::StringLiteral, unsigned> Algorithms[] = {
      {"copy", 2},     {"copy_n", 2},   {"copy_backward", 2}, {"move", 2},
      {"fill", 0},     {"fill_n", 0},   {"generate", 0},      {"generate_n", 0},
      {"iota", 0},     {"transform", 2}};
  if (!Callee->getIdentifier() || !Callee->isInStdNamespace())
    return std::nullopt;
  for (const auto &[Name, Position] : Algorithms)
    if (Callee->getName() == Name) {
      // The binary transform(first1, last1, first2, out, op) writes its 4th.
      if (Name == "transform" && NumArgs == 5)
        return 3;
      if (Name == "move" && NumArgs != 3)
        return std::nullopt;
      return Position < NumArgs ? std::optional<unsigned>(Position)
                                : std::nullopt;
    }
  return std::nullopt;
}

/// The object a method is called on, when it is one object for the whole
/// function: `this` (Owner null), a variable, or a member of `this`, also
/// through `->`. An element (`readers[i]`) or a call's result is not.
bool ownerOf(const Expr *Object, const Decl *&Owner) {
  Object = Object->IgnoreParenImpCasts();
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
    Object = Arrow->getArg(0)->IgnoreParenImpCasts();
  Owner = nullptr;
  if (isa<CXXThisExpr>(Object))
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Object))
    Owner = dyn_cast<VarDecl>(Ref->getDecl());
  else if (const auto *Field = dyn_cast<MemberExpr>(Object);
           Field && isa<CXXThisExpr>(Field->getBase()->IgnoreImplicit()))
    Owner = Field->getMemberDecl();
  return Owner != nullptr;
}

/// Whether E names the CPU device: `torch::kCPU`, `DeviceType::CPU`,
/// `torch::Device("cpu")`, `torch::Device(torch::kCPU)`.
bool namesCpu(const Stmt *E) {
  if (!E)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const NamedDecl *D = Ref->getDecl(); D->getIdentifier())
      return D->getName() == "kCPU" ||
             (isa<EnumConstantDecl>(D) && D->getName() == "CPU");
  if (const auto *String = dyn_cast<StringLiteral>(E))
    return compat::startsWith(String->getString(), "cpu");
  return llvm::any_of(E->children(), namesCpu);
}

/// Whether a from_blob call wraps a whole member of `this` from its start
/// (`buf_.data()`, `raw_`, `&buf_[0]`, `img_.data`), rather than one slot of
/// it (`slots_[i].data()`, `buf_.data() + offset`): a method that moves
/// between slots hands out tensors over different memory.
bool wrapsWholeMember(const CallExpr *FromBlob) {
  if (FromBlob->getNumArgs() == 0)
    return false;
  const Expr *E = FromBlob->getArg(0)->IgnoreParenCasts();
  auto OwnMember = [](const Expr *M) {
    const auto *Field = dyn_cast<MemberExpr>(M->IgnoreParenImpCasts());
    return Field && isa<CXXThisExpr>(Field->getBase()->IgnoreImplicit());
  };
  if (const auto *Address = dyn_cast<UnaryOperator>(E);
      Address && Address->getOpcode() == UO_AddrOf) {
    const Expr *Element = Address->getSubExpr()->IgnoreParenImpCasts();
    const Expr *Base = nullptr, *Index = nullptr;
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(Element)) {
      Base = Subscript->getBase();
      Index = Subscript->getIdx();
    } else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Element);
               Operator && Operator->getOperator() == OO_Subscript &&
               Operator->getNumArgs() == 2) {
      Base = Operator->getArg(0);
      Index = Operator->getArg(1);
    }
    std::optional<llvm::APSInt> Value =
        Index ? Index->getIntegerConstantExpr(
                    FromBlob->getCalleeDecl()->getASTContext())
              : std::nullopt;
    return Base && OwnMember(Base) && Value && *Value == 0;
  }
  if (const auto *Data = dyn_cast<CXXMemberCallExpr>(E))
    return Data->getNumArgs() == 0 &&
           OwnMember(Data->getImplicitObjectArgument());
  if (const auto *Field = dyn_cast<MemberExpr>(E);
      Field && !OwnMember(Field))
    return OwnMember(Field->getBase()); // `img_.data`
  return OwnMember(E);
}

/// `join()` of a std::thread, `get()` or `wait()` of a std::future: the
/// worker is done with what it was handed.
bool isJoin(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  const CXXRecordDecl *Class = Call->getRecordDecl();
  if (!Method || !Method->getIdentifier() || !Class || !Class->getIdentifier() ||
      !Class->isInStdNamespace())
    return false;
  llvm::StringRef Name = Method->getName(), Type = Class->getName();
  if (Type == "thread" || Type == "jthread")
    return Name == "join";
  if (Type == "future" || Type == "shared_future")
    return Name == "get" || Name == "wait";
  return false;
}

/// Whether the type is c10::Device or c10::DeviceType.
bool isDeviceType(QualType Type) {
  const auto *Named = dyn_cast_or_null<NamedDecl>(
      Type.getNonReferenceType()->getAsTagDecl());
  if (!Named)
    return false;
  std::string Name = Named->getQualifiedNameAsString();
  return Name == "c10::Device" || Name == "c10::DeviceType";
}

// Note [Device copies]
// `t.to(device)` copies a CPU tensor to another device and returns `t`
// itself when `device` is the CPU. A from_blob tensor lives on the CPU, so
// `to(torch::kCUDA)`, or `to(device)` with a device the code does not show,
// is taken as the copy it is meant to be (precision before recall);
// `to(torch::kCPU)` is not a copy. runtime/test/from_blob_facts_test.cpp
// checks both against the library.
bool copiesToDevice(const CallExpr *To) {
  for (const Expr *Arg : To->arguments()) {
    const Expr *Inner = Arg->IgnoreImplicit();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Inner);
        Construct && Construct->getNumArgs() >= 1 &&
        !isDeviceType(Construct->getType()))
      Inner = Construct->getArg(0)->IgnoreImplicit();
    if (isDeviceType(Inner->getType()))
      return !namesCpu(Inner);
  }
  return false;
}

/// Whether E, followed through the views and may-alias results it is made
/// of, passes a `to()` that copies to another device (Note [Device copies]).
bool throughDeviceCopy(const Expr *E, const OperatorTable &Table) {
  while (const auto *Call = dyn_cast_or_null<CallExpr>(skipHandleCopies(E))) {
    std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table);
    if (!Tensor)
      return false;
    if (Tensor->Spelling == "to" && copiesToDevice(Call))
      return true;
    E = Tensor->aliasedArgument();
  }
  return false;
}

} // namespace

bool mentionsFromBlob(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && Callee->getIdentifier() && Callee->getName() == "from_blob")
      return true;
  return llvm::any_of(S->children(), mentionsFromBlob);
}

bool isScopedBuffer(const ValueDecl *Decl) {
  const auto *Buffer = dyn_cast_or_null<VarDecl>(Decl);
  if (!Buffer || isa<ParmVarDecl>(Buffer) || !Buffer->hasLocalStorage())
    return false;
  QualType Type = Buffer->getType();
  return !Type->isPointerType() && !Type->isReferenceType();
}

// Note [Blob producers]
// A class that refills a member buffer and returns `from_blob` over it
// (`Tensor next() { read(buf_.data()); return from_blob(buf_.data(), ...); }`)
// hands out one tensor per call, all over the same memory: a caller that
// keeps an earlier result sees it change on the next call. Each method of the
// translation unit gets a summary: the member its result wraps without a copy
// (not through `clone()` or a device copy, Note [Device copies]), and the
// members it writes, directly or through methods it calls on `this`. A call of
// such a method on one object (a variable, `this` or a member of `this`) is a
// from_blob site over that object's member, and a call that writes it is a
// write of the buffer. Only classes with a method that returns a tensor and
// calls `from_blob` are summarised, so the cost stays with the code that
// wraps members.
const BlobProducerSummary *
BlobProducers::summary(const CXXMethodDecl *Method) {
  const FunctionDecl *Definition = Method ? Method->getDefinition() : nullptr;
  Method = dyn_cast_or_null<CXXMethodDecl>(Definition);
  if (!Method || !Method->hasBody() || isLibtorchDecl(Method) ||
      InProgress.count(Method) ||
      Context.ast().getSourceManager().isInSystemHeader(Method->getLocation()))
    return nullptr;
  if (auto It = Summaries.find(Method); It != Summaries.end())
    return It->second.get();
  std::unique_ptr<BlobProducerSummary> Summary;
  if (classProduces(Method->getParent())) {
    InProgress.insert(Method);
    const FunctionAliasAnalysis &Analysis = Context.analyze(Method);
    if (Analysis.built()) {
      FromBlobEscapeAnalysis Blobs(Analysis, Context, Workers, *this);
      Blobs.run(Method);
      Summary = std::make_unique<BlobProducerSummary>(Blobs.producerSummary());
      if (!Summary->Returns && Summary->Refills.empty())
        Summary.reset();
    }
    InProgress.erase(Method);
  }
  return (Summaries[Method] = std::move(Summary)).get();
}

bool BlobProducers::classProduces(const CXXRecordDecl *Class) {
  auto [It, Inserted] = Producing.try_emplace(Class, false);
  if (Inserted)
    It->second = llvm::any_of(Class->methods(), [](const CXXMethodDecl *M) {
      const FunctionDecl *D = M->getDefinition();
      return D && isTensorType(D->getReturnType()) && D->hasBody() &&
             mentionsFromBlob(D->getBody());
    });
  return It->second;
}

bool BlobProducers::callsProducer(const Stmt *Body) {
  if (!Body)
    return false;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Body))
    if (const BlobProducerSummary *Summary = summary(Call->getMethodDecl());
        Summary && Summary->Returns)
      return true;
  return llvm::any_of(Body->children(),
                      [&](const Stmt *Child) { return callsProducer(Child); });
}

BlobProducerSummary FromBlobEscapeAnalysis::producerSummary() const {
  BlobProducerSummary Summary;
  if (!ReturnedMemberBlobs.empty()) {
    Summary.Returns = cast<FieldDecl>(ReturnedMemberBlobs.front()->Buffer);
    Summary.FromBlob = ReturnedMemberBlobs.front()->FromBlob;
  }
  for (const BufferWrite &Write : Writes) {
    const auto *Field = dyn_cast<FieldDecl>(Write.Buffer);
    if (Field && !Write.Owner && !Summary.refillOf(Field))
      Summary.Refills.push_back({Field, Write.Inner ? Write.Inner : Write.Where});
  }
  return Summary;
}

void FromBlobEscapeAnalysis::run(const FunctionDecl *F) {
  Function = F;
  DatasetGet = isDatasetGet(F);
  visit(F->getBody());
  findRewrites();
  for (BlobEscape &Escape : Pending)
    if (!clearedInLoop(Escape) && refilledAfter(Escape))
      Escapes.push_back(Escape);
}

bool FromBlobEscapeAnalysis::clearedInLoop(const BlobEscape &Store) const {
  const Stmt *Loop = Store.Site->Loop;
  if (Store.Route != EscapeRoute::StoredEachIteration || !Store.Container ||
      !Loop)
    return false;
  const SourceManager &SM = Function->getASTContext().getSourceManager();
  SourceRange Range = Loop->getSourceRange();
  return llvm::any_of(Clears, [&](const auto &Clear) {
    SourceLocation L = Clear.second->getBeginLoc();
    return Clear.first == Store.Container &&
           !SM.isBeforeInTranslationUnit(L, Range.getBegin()) &&
           !SM.isBeforeInTranslationUnit(Range.getEnd(), L);
  });
}

/// Whether the buffer of a pending escape is written after it: by a later
/// statement, with no join of a thread or future between for a worker, or,
/// for a store or hand-off inside the loop of the site, anywhere in that
/// loop (the next iteration). The write must reach the same object.
bool FromBlobEscapeAnalysis::refilledAfter(BlobEscape &Escape) const {
  const BlobSite &Site = *Escape.Site;
  const SourceManager &SM = Function->getASTContext().getSourceManager();
  auto Within = [&](SourceLocation L, const Stmt *S) {
    return !SM.isBeforeInTranslationUnit(L, S->getBeginLoc()) &&
           !SM.isBeforeInTranslationUnit(S->getEndLoc(), L);
  };
  bool Worker = Escape.Route == EscapeRoute::Worker;
  for (const BufferWrite &W : Writes) {
    if (W.Buffer != Site.Buffer || W.Owner != Site.Owner)
      continue;
    SourceLocation L = W.Where->getBeginLoc();
    bool InLoop = Site.Loop && Within(L, Site.Loop) &&
                  (!Worker || !joinedBetween(Escape.Where,
                                             Site.Loop->getEndLoc()));
    bool Later = Worker && SM.isBeforeInTranslationUnit(Escape.Where, L) &&
                 !joinedBetween(Escape.Where, L);
    if (InLoop || Later) {
      Escape.Refill = W.Where;
      Escape.RefillInner = W.Inner;
      return true;
    }
  }
  return false;
}

bool FromBlobEscapeAnalysis::joinedBetween(SourceLocation From,
                                           SourceLocation To) const {
  const SourceManager &SM = Function->getASTContext().getSourceManager();
  return llvm::any_of(Joins, [&](const Stmt *Join) {
    SourceLocation L = Join->getBeginLoc();
    return SM.isBeforeInTranslationUnit(From, L) &&
           !SM.isBeforeInTranslationUnit(To, L);
  });
}

const CallExpr *FromBlobEscapeAnalysis::findFromBlob(const Expr *E) const {
  if (!E)
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table);
        Tensor && Tensor->Special == SpecialOperation::FromBlob)
      return Call;
  for (const Stmt *Child : E->children())
    if (const auto *Inner = dyn_cast_or_null<Expr>(Child))
      if (const CallExpr *Found = findFromBlob(Inner))
        return Found;
  return nullptr;
}

const BlobSite *FromBlobEscapeAnalysis::findSite(const Expr *E) const {
  if (!E)
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const BlobSite *Site = SiteOfCall.lookup(Call))
      return Site;
  for (const Stmt *Child : E->children())
    if (const auto *Inner = dyn_cast_or_null<Expr>(Child))
      if (const BlobSite *Found = findSite(Inner))
        return Found;
  return nullptr;
}

/// The site whose tensor E is; a producer's tensor copied to another device
/// on the way is not (Note [Device copies]).
const BlobSite *FromBlobEscapeAnalysis::blobOf(const Expr *E) const {
  if (!E || !(isTensorType(E->getType()) || isTensorListType(E->getType())))
    return nullptr;
  AliasValue Value = Analysis.evaluate(E, Environment);
  if (Value.RootOrigin != Origin::External)
    return nullptr;
  const BlobSite *Site =
      Value.Root ? SiteOfRoot.lookup(Value.Root) : findSite(E);
  if (Site && Site->Producer && throughDeviceCopy(E, Table))
    return nullptr;
  return Site;
}

void FromBlobEscapeAnalysis::bind(const VarDecl *Var, const Expr *Init) {
  AliasValue Value = Analysis.evaluate(Init, Environment);
  if (Value.RootOrigin == Origin::External) {
    const BlobSite *Site =
        Value.Root ? SiteOfRoot.lookup(Value.Root) : findSite(Init);
    if (Site && Site->Producer && throughDeviceCopy(Init, Table)) {
      // A producer's tensor copied to another device: a tensor of its own.
      Value = AliasValue();
      Value.RootOrigin = Origin::Fresh;
    }
  }
  if (!Value.Root && !Value.isView()) {
    Value.Root = Var;
    Value.Rel = Relation::Handle;
    if (Value.RootOrigin == Origin::External)
      if (const BlobSite *Site = findSite(Init))
        SiteOfRoot[Var] = Site;
  }
  Environment[Var] = Value;
}

bool FromBlobEscapeAnalysis::outlives(const Expr *Container,
                                    const ValueDecl *Buffer) const {
  const auto *Var = dyn_cast_or_null<VarDecl>(bufferOf(Container));
  if (!Var || !Var->hasLocalStorage() || Var->getType()->isReferenceType() ||
      isa<ParmVarDecl>(Var))
    return true; // a member, a global or the caller's container
  auto Outer = ScopesOf.find(Var),
       Inner = ScopesOf.find(dyn_cast<VarDecl>(Buffer));
  if (Outer == ScopesOf.end() || Inner == ScopesOf.end())
    return false;
  const std::vector<const Stmt *> &O = Outer->second, &I = Inner->second;
  return O.size() < I.size() && std::equal(O.begin(), O.end(), I.begin());
}

void FromBlobEscapeAnalysis::noteEscape(EscapeRoute Route, const Expr *E,
                                      std::string Into,
                                      bool NeedsScopedBuffer) {
  const BlobSite *Site = blobOf(E);
  if (!Site || (NeedsScopedBuffer && !isScopedBuffer(Site->Buffer)))
    return;
  addEscape({Route, E->getBeginLoc(), nameOf(E), Site, std::move(Into)});
}

/// A producer's tensor escapes only to a worker that runs while a later call
/// refills the buffer (checked in run()); storing it on every iteration is
/// checked by checkStores.
void FromBlobEscapeAnalysis::addEscape(BlobEscape Escape, bool Partitioned) {
  if (!Escape.Site->Producer) {
    Escapes.push_back(std::move(Escape));
    return;
  }
  if (Escape.Route == EscapeRoute::Worker && !Partitioned)
    Pending.push_back(std::move(Escape));
}

// A method of the translation unit stores an argument in its object only if
// its summary says it keeps it (Note [Escapes]); a container's storing
// method always does.
void FromBlobEscapeAnalysis::checkStores(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method)
    return;
  bool StoringMethod = isStoringMethod(Method);
  const Expr *Container = Call->getImplicitObjectArgument();
  const auto *ContainerVar = dyn_cast_or_null<VarDecl>(bufferOf(Container));
  std::string Name = ContainerVar ? ContainerVar->getName().str() : "";
  if (const auto *Field = dyn_cast<MemberExpr>(Container->IgnoreImplicit()))
    Name = Field->getMemberDecl()->getName().str();
  // An index loop: llvm::enumerate over arguments() visits nothing when built
  // against LLVM 16 (see docs/llvm-releases.md).
  for (unsigned Index = 0; Index < Call->getNumArgs(); ++Index) {
    const Expr *Arg = Call->getArg(Index);
    const BlobSite *Site = blobOf(Arg);
    if (!Site || !Site->Buffer ||
        !compat::valueOr(Context.keepsArgument(Call, Index), StoringMethod))
      continue;
    if (isScopedBuffer(Site->Buffer) && outlives(Container, Site->Buffer)) {
      Escapes.push_back(
          {EscapeRoute::Stored, Arg->getBeginLoc(), nameOf(Arg), Site, Name});
      continue;
    }
    // Each iteration stores another handle on the one buffer.
    if (Site->Loop && !Loops.empty() && Loops.back() == Site->Loop) {
      auto Declared = ScopesOf.find(dyn_cast<VarDecl>(Site->Buffer));
      bool BufferOutsideLoop =
          !isScopedBuffer(Site->Buffer) ||
          (Declared != ScopesOf.end() &&
           !llvm::is_contained(Declared->second, Site->Loop));
      auto Stored = ContainerVar ? ScopesOf.find(ContainerVar) : ScopesOf.end();
      bool ContainerOutsideLoop =
          Stored == ScopesOf.end() ||
          !llvm::is_contained(Stored->second, Site->Loop);
      // A producer called on a variable of the loop (`for (auto &r :
      // readers)`) fills another object's buffer on each iteration.
      auto Owner = ScopesOf.find(dyn_cast_or_null<VarDecl>(Site->Owner));
      bool OwnerOutsideLoop = Owner == ScopesOf.end() ||
                              !llvm::is_contained(Owner->second, Site->Loop);
      if (BufferOutsideLoop && ContainerOutsideLoop && OwnerOutsideLoop) {
        BlobEscape Store{EscapeRoute::StoredEachIteration, Arg->getBeginLoc(),
                         nameOf(Arg), Site, Name};
        Store.Container = bufferOf(Container);
        Pending.push_back(std::move(Store));
      }
    }
  }
}

// Note [Blob producers]: a call of a method that returns a from_blob tensor
// over a member of its object is a site over that object's member, and a
// call that writes a member writes that object's buffer.
void FromBlobEscapeAnalysis::checkProducer(const CXXMemberCallExpr *Call) {
  const Decl *Owner = nullptr;
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !ownerOf(Call->getImplicitObjectArgument(), Owner))
    return;
  const BlobProducerSummary *Summary = Producers.summary(Method);
  if (!Summary)
    return;
  for (const auto &[Field, Inner] : Summary->Refills)
    Writes.push_back({Field, Call, Owner, Inner});
  if (!Summary->Returns)
    return;
  auto Site = std::make_unique<BlobSite>();
  Site->FromBlob = Summary->FromBlob;
  Site->Buffer = Summary->Returns;
  Site->Loop = Loops.empty() ? nullptr : Loops.back();
  Site->Producer = Call;
  Site->Owner = Owner;
  Site->ProducerRefill = Summary->refillOf(Summary->Returns);
  SiteOfCall[Call] = Site.get();
  Sites.push_back(std::move(Site));
}

void FromBlobEscapeAnalysis::checkSpawn(const Expr *E) {
  std::optional<WorkerSpawn> Spawn = Workers.match(E);
  if (!Spawn)
    return;
  bool Partitioned = Spawn->Kind == WorkerKind::Partitioned;
  for (const Expr *Arg : Spawn->Args)
    if (!lambdaArgument(Arg))
      if (const BlobSite *Site = blobOf(Arg))
        addEscape({EscapeRoute::Worker, Arg->getBeginLoc(), nameOf(Arg), Site,
                   Spawn->EntryPoint},
                  Partitioned);
  if (!Spawn->Lambda)
    return;
  for (const LambdaCapture &Capture : Spawn->Lambda->captures()) {
    if (!Capture.capturesVariable())
      continue;
    const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
    if (!Var)
      continue;
    const Expr *Captured = Var->isInitCapture() ? Var->getInit() : nullptr;
    if (Captured) {
      if (const BlobSite *Site = blobOf(Captured))
        addEscape({EscapeRoute::Worker, Captured->getBeginLoc(),
                   nameOf(Captured), Site, Spawn->EntryPoint},
                  Partitioned);
      continue;
    }
    auto It = Environment.find(Var);
    if (It == Environment.end() || It->second.RootOrigin != Origin::External)
      continue;
    if (const BlobSite *Site = SiteOfRoot.lookup(It->second.Root))
      addEscape({EscapeRoute::Worker, Capture.getLocation(),
                 Var->getName().str(), Site, Spawn->EntryPoint},
                Partitioned);
  }
}

void FromBlobEscapeAnalysis::checkBufferWrite(const Stmt *S) {
  auto Record = [&](const Expr *Target) {
    if (const ValueDecl *Buffer = bufferOf(Target))
      Writes.push_back({Buffer, S});
  };
  if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
    if (Binary->isAssignmentOp())
      Record(Binary->getLHS());
    return;
  }
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (Operator->isAssignmentOp() && Operator->getNumArgs() == 2 &&
        !isTensorType(Operator->getArg(0)->getType()))
      Record(Operator->getArg(0));
    return;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    if (Method && Method->getIdentifier() && !Method->isConst() &&
        isRewritingMethod(Method->getName()) &&
        !isTensorType(Member->getImplicitObjectArgument()->getType()))
      Record(Member->getImplicitObjectArgument());
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isLibtorchDecl(Callee))
    return;
  if (std::optional<unsigned> Out =
          writtenAlgorithmArgument(Callee, Call->getNumArgs()))
    Record(Call->getArg(*Out));
  for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
       ++I) {
    QualType Param = Callee->getParamDecl(I)->getType();
    bool Writable =
        (Param->isPointerType() && !Param->getPointeeType().isConstQualified()) ||
        (Param->isLValueReferenceType() &&
         !Param.getNonReferenceType().isConstQualified());
    if (Writable && !isTensorType(Call->getArg(I)->getType()))
      Record(Call->getArg(I));
  }
}


void FromBlobEscapeAnalysis::visit(const Stmt *S) {
  if (!S)
    return;
  bool IsScope = isa<CompoundStmt>(S);
  bool IsLoop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
  if (IsScope || IsLoop)
    Scopes.push_back(S);
  if (IsLoop)
    Loops.push_back(S);

  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    visitChildren(S);
    for (const auto *D : Decl->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D)) {
        ScopesOf[Var] = Scopes;
        if (Var->getInit() &&
            (isTensorType(Var->getType()) || isTensorListType(Var->getType())))
          bind(Var, Var->getInit());
      }
  } else if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable())
        if (const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
            Var && Var->isInitCapture() && Var->getInit()) {
          visit(Var->getInit());
          if (isTensorType(Var->getType()))
            bind(Var, Var->getInit());
        }
    LambdaBodies.push_back(Lambda->getBody());
    visit(Lambda->getBody());
    LambdaBodies.pop_back();
  } else {
    visitChildren(S);
  }
  visitExpression(S);

  if (IsLoop)
    Loops.pop_back();
  if (IsScope || IsLoop)
    Scopes.pop_back();
}

/// S, once its children are visited: a from_blob site, a use of a from_blob
/// tensor, an escape, a store, a spawn or a write to a buffer.
void FromBlobEscapeAnalysis::visitExpression(const Stmt *S) {
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (const CallExpr *FromBlob = findFromBlob(Call); FromBlob == Call) {
      auto Site = std::make_unique<BlobSite>();
      Site->FromBlob = Call;
      Site->Buffer = Call->getNumArgs() ? bufferOf(Call->getArg(0)) : nullptr;
      Site->Loop = Loops.empty() ? nullptr : Loops.back();
      SiteOfCall[Call] = Site.get();
      Sites.push_back(std::move(Site));
    }
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (auto It = Environment.find(Var);
          It != Environment.end() && It->second.RootOrigin == Origin::External)
        Uses.push_back({It->second.Root, Ref});
  } else if (const auto *Return = dyn_cast<ReturnStmt>(S);
             Return && Return->getRetValue()) {
    if (LambdaBodies.empty())
      visitReturn(Return);
    else
      visitLambdaReturn(Return, LambdaBodies.back());
  } else if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
             Assign && Assign->getOperator() == OO_Equal &&
             Assign->getNumArgs() == 2) {
    const Expr *Lhs = Assign->getArg(0)->IgnoreImplicit();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Lhs)) {
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && isTensorType(Var->getType()))
        bind(Var, Assign->getArg(1));
    } else if (const auto *Field = dyn_cast<MemberExpr>(Lhs);
               Field && isTensorType(Field->getType())) {
      noteEscape(EscapeRoute::StoredInMember, Assign->getArg(1),
                 Field->getMemberDecl()->getNameAsString(), true);
      const BlobSite *Site = blobOf(Assign->getArg(1));
      const auto *Tensor = dyn_cast<FieldDecl>(Field->getMemberDecl());
      if (Site && !Site->Producer && !Site->Owner && Tensor &&
          isa<CXXThisExpr>(Field->getBase()->IgnoreImplicit()) &&
          isa_and_nonnull<FieldDecl>(Site->Buffer))
        MemberWraps.push_back({Tensor, Site, Assign});
    }
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
    checkProducer(Member);
    checkStores(Member);
    if (isJoin(Member))
      Joins.push_back(Member);
    if (const CXXMethodDecl *Method = Member->getMethodDecl();
        Method && Method->getIdentifier() && Method->getName() == "clear")
      if (const ValueDecl *Cleared =
              bufferOf(Member->getImplicitObjectArgument()))
        Clears.push_back({Cleared, Member});
  }
  if (isa<CallExpr, CXXConstructExpr>(S))
    checkSpawn(cast<Expr>(S));
  checkBufferWrite(S);
}

/// The function's own return (not a lambda's): the returned value, and the
/// elements of a returned braced list or construction.
void FromBlobEscapeAnalysis::visitReturn(const ReturnStmt *Return) {
  llvm::SmallVector<const Expr *, 4> Returned = {Return->getRetValue()};
  const Expr *Value = Return->getRetValue()->IgnoreImplicit();
  if (const auto *List = dyn_cast<InitListExpr>(Value))
    Returned.append(List->inits().begin(), List->inits().end());
  else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Value))
    Returned.append(Construct->arg_begin(), Construct->arg_end());
  std::string Name = Function->getNameAsString();
  for (const Expr *E : Returned)
    noteEscape(DatasetGet ? EscapeRoute::DatasetGet : EscapeRoute::Returned, E,
               Name, !DatasetGet);
  // For the method's summary (Note [Blob producers]).
  const BlobSite *Site = blobOf(Return->getRetValue());
  if (Site && Site->Buffer && isa<FieldDecl>(Site->Buffer) && !Site->Owner &&
      (Site->Producer || wrapsWholeMember(Site->FromBlob)) &&
      !throughDeviceCopy(Return->getRetValue(), Table))
    ReturnedMemberBlobs.push_back(Site);
}

// Note [Lambdas returning a blob]
// What a lambda returns goes to whoever calls it, so a from_blob tensor over
// a buffer of the enclosing function is no escape there (its capture is the
// one that counts). A buffer declared in the lambda's own body dies when the
// lambda returns, though, just as a function's does: returning a tensor over
// it hands its caller freed memory, whatever the caller does next.
void FromBlobEscapeAnalysis::visitLambdaReturn(const ReturnStmt *Return,
                                               const Stmt *Body) {
  const BlobSite *Site = blobOf(Return->getRetValue());
  const auto *Buffer = Site ? dyn_cast_or_null<VarDecl>(Site->Buffer) : nullptr;
  if (!Buffer || !isScopedBuffer(Buffer) ||
      !Body->getSourceRange().fullyContains(Buffer->getSourceRange()))
    return;
  noteEscape(EscapeRoute::Returned, Return->getRetValue(),
             "a lambda in " + Function->getNameAsString(), true);
}

// Note [Members that wrap a member]
// A class that keeps `t_ = torch::from_blob(buf_.data(), ...)` in a member
// has a tensor over memory that `buf_` owns for as long as the object
// lives. A growing call of a standard container (`push_back`, `insert`,
// `resize`, `reserve`, `assign`, an assignment) may move its elements to
// new memory and free the old, and `t_` then reads freed memory. Within a
// call, a refill in place is the reuse idiom; across calls, no growth is
// meant. So a method of the class that may reallocate `buf_` reports, when:
// - it does not store `t_` again after the growth on every path that grows
//   it (the wrap made again over the new memory: `buf_.resize(n); t_ =
//   from_blob(buf_.data(), ...)`);
// - it is not a constructor that grows the buffer before it is wrapped;
// - `t_` is read in a function that does not store it, so that it is kept
//   across calls rather than remade before each use.
// Whether the container has room left (`reserve` up front) is not known,
// and counts as a reallocation: a tensor over a growing container is kept
// safe only by a capacity no code states.
namespace {

/// A call of a standard container that may move its elements elsewhere.
bool mayReallocate(const CallExpr *Call) {
  static constexpr llvm::StringLiteral Growing[] = {
      "push_back", "emplace_back", "insert",        "emplace", "resize",
      "reserve",   "assign",       "append",        "swap",    "shrink_to_fit",
      "operator=", "operator+="};
  const auto *Method =
      dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
  return Method && !Method->isConst() && Method->getParent()->isInStdNamespace() &&
         llvm::is_contained(Growing, Method->getNameAsString());
}

/// The member of `this` that a call of a standard container's method is
/// made on, as `buf_.push_back(x)` or `buf_ = other`.
const FieldDecl *containerOfCall(const CallExpr *Call) {
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Object = Member->getImplicitObjectArgument();
  else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
           Operator && Operator->getNumArgs() == 2)
    Object = Operator->getArg(0);
  const auto *Field =
      Object ? dyn_cast<MemberExpr>(Object->IgnoreImplicit()) : nullptr;
  if (!Field || !isa<CXXThisExpr>(Field->getBase()->IgnoreImplicit()))
    return nullptr;
  return dyn_cast<FieldDecl>(Field->getMemberDecl());
}

/// An assignment `t_ = ...` of the member Tensor of `this`.
bool storesMember(const Stmt *S, const FieldDecl *Tensor) {
  const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
  if (!Assign || Assign->getOperator() != OO_Equal || Assign->getNumArgs() != 2)
    return false;
  const auto *Field = dyn_cast<MemberExpr>(Assign->getArg(0)->IgnoreImplicit());
  return Field && Field->getMemberDecl() == Tensor;
}

/// Whether Body stores Tensor after Growth on every path through Growth:
/// a store whose enclosing statements all enclose Growth too.
bool storedAgainAfter(const Stmt *Body, const CallExpr *Growth,
                      const FieldDecl *Tensor, const SourceManager &SM) {
  ParentMap Parents(const_cast<Stmt *>(Body));
  llvm::SmallPtrSet<const Stmt *, 8> AroundGrowth;
  for (const Stmt *S = Growth; S; S = Parents.getParent(S))
    AroundGrowth.insert(S);
  bool Stored = false;
  forEachStmt(Body, [&](const Stmt *S) {
    if (Stored || !storesMember(S, Tensor) ||
        !SM.isBeforeInTranslationUnit(Growth->getEndLoc(), S->getBeginLoc()))
      return;
    bool Unconditional = true;
    for (const Stmt *P = Parents.getParent(S); P; P = Parents.getParent(P))
      if (!isa<Expr>(P) && !AroundGrowth.count(P))
        Unconditional = false;
    Stored = Unconditional;
  }, /*IntoLambdas=*/false);
  return Stored;
}

/// A read of the member Tensor in a function of the main file that does not
/// store it: the member is kept across calls, not remade before each use.
const MemberExpr *readWhereNotStored(ASTContext &AST, const FieldDecl *Tensor) {
  llvm::SmallPtrSet<const FunctionDecl *, 4> Storing;
  std::vector<std::pair<const FunctionDecl *, const MemberExpr *>> Reads;
  forEachMainFileFunction(AST, [&](const FunctionDecl &F) {
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      if (storesMember(S, Tensor))
        Storing.insert(&F);
      else if (const auto *Use = dyn_cast<MemberExpr>(S);
               Use && Use->getMemberDecl() == Tensor)
        Reads.push_back({&F, Use});
    });
  });
  for (const auto &[F, Use] : Reads)
    if (!Storing.count(F))
      return Use;
  return nullptr;
}

} // namespace

std::vector<MemberBlobGrowth> FromBlobEscapeAnalysis::memberGrowths() const {
  std::vector<MemberBlobGrowth> Result;
  if (MemberWraps.empty())
    return Result;
  ASTContext &AST = Function->getASTContext();
  const SourceManager &SM = AST.getSourceManager();
  for (const MemberWrap &Wrap : MemberWraps) {
    const auto *Buffer = cast<FieldDecl>(Wrap.Site->Buffer);
    const auto *Class = dyn_cast<CXXRecordDecl>(Buffer->getParent());
    const CXXRecordDecl *BufferType = Buffer->getType()->getAsCXXRecordDecl();
    if (!Class || !BufferType || !BufferType->isInStdNamespace())
      continue;
    // The growing calls of the class's methods first: the walk of the
    // translation unit for a read is paid only where there is one.
    size_t First = Result.size();
    for (const CXXMethodDecl *Declared : Class->methods()) {
      const FunctionDecl *Method = Declared->getDefinition();
      if (!Method || !Method->hasBody() ||
          SM.isInSystemHeader(Method->getLocation()))
        continue;
      bool Constructor = isa<CXXConstructorDecl>(Method);
      forEachStmt(Method->getBody(), [&](const Stmt *S) {
        const auto *Call = dyn_cast<CallExpr>(S);
        if (!Call || containerOfCall(Call) != Buffer || !mayReallocate(Call))
          return;
        if (Constructor && !(Method == Function &&
                             SM.isBeforeInTranslationUnit(
                                 Wrap.Store->getEndLoc(), Call->getBeginLoc())))
          return;
        if (storedAgainAfter(Method->getBody(), Call, Wrap.Tensor, SM))
          return;
        Result.push_back(
            {Wrap.Tensor, Wrap.Site, Wrap.Store, Call, Method, nullptr});
      }, /*IntoLambdas=*/false);
    }
    if (Result.size() == First)
      continue;
    const MemberExpr *Read = readWhereNotStored(AST, Wrap.Tensor);
    if (!Read) {
      Result.resize(First);
      continue;
    }
    for (size_t I = First; I < Result.size(); ++I)
      Result[I].Read = Read;
  }
  return Result;
}

void FromBlobEscapeAnalysis::findRewrites() {
  const SourceManager &SM = Function->getASTContext().getSourceManager();
  auto Before = [&](const Stmt *A, const Stmt *B) {
    return SM.isBeforeInTranslationUnit(A->getEndLoc(), B->getBeginLoc());
  };
  for (const auto &[Root, Site] : SiteOfRoot) {
    if (!Site->Buffer)
      continue;
    for (const BufferWrite &Write : Writes) {
      if (Write.Buffer != Site->Buffer || Write.Owner != Site->Owner ||
          !Before(Site->anchor(), Write.Where))
        continue;
      const DeclRefExpr *Earlier = nullptr, *Later = nullptr;
      for (const TensorUse &Use : Uses) {
        if (Use.Root != Root)
          continue;
        if (Before(Site->anchor(), Use.Ref) && Before(Use.Ref, Write.Where))
          Earlier = Use.Ref;
        else if (!Later && Before(Write.Where, Use.Ref))
          Later = Use.Ref;
      }
      // A tensor from a method that fills the buffer for it is in use from
      // the start; a plain from_blob may wrap the buffer before it is
      // filled (the reuse idiom).
      if ((Earlier || Site->ProducerRefill) && Later) {
        Rewrites.push_back({Write.Where, Site, Root, Later, Write.Inner});
        break;
      }
    }
  }
}

} // namespace clang::tidy::libtorch
