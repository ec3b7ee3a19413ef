//===- Instrument.cpp - Validators at the sites of static findings --------===//

#include "Instrument.h"
#include "Compat.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/Regex.h"

#include <map>
#include <set>

namespace torchalias::driver {

namespace {

using namespace clang;

// Note [Instrumented sites]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A finding's SARIF location is the expression location of the call that
// writes, spawns or builds (the member name of a member call, the callee of
// a free call, the variable of a constructor call). The instrumenter finds
// that node again in the AST and inserts one of the runtime's validators
// (runtime/include/torchalias/instrument.h), chosen by the check:
//
//  - libtorch-inplace-on-view, and libtorch-worker-missing-clone where the
//    finding is a write (a DataLoader example): the tensor being written is
//    wrapped in TORCHALIAS_AT_VIEW_WRITE: the object of an in-place member
//    call or operator, or the argument that the callee writes (named by
//    the finding, or the one tensor passed, or the argument of the parameter
//    that the finding's note says a function of the file writes: Note
//    [Arguments a callee writes]);
//  - libtorch-inplace-on-view: a snapshot finding (a record returned with
//    handles, not copies, or a copied handle compared with its tensor) and
//    a stale view (a view read after its base was written) are no writes
//    through a view, and are left to the static check with a reason;
//  - libtorch-overlapping-inplace: where the finding names an argument the
//    call writes other than its first (`batch_norm`'s running_mean), that
//    argument is the destination and the named operand is wrapped in
//    TORCHALIAS_AT_OVERLAP_OPERAND_OF; otherwise the destination is wrapped in
//    TORCHALIAS_AT_OVERLAP_DST and every tensor operand in
//    TORCHALIAS_AT_OVERLAP_OPERAND (a member call's object is sequenced
//    before its arguments); a free out= call or an operator, whose operands
//    are unsequenced, passes a destination that is a plain name again with
//    TORCHALIAS_AT_OVERLAP_OPERAND_OF; the elements of a braced TensorList
//    are operands each;
//  - libtorch-detached-write: the tensor whose .data()/detach() alias is
//    written is wrapped in TORCHALIAS_AT_DETACHED_SOURCE, at the write or
//    where the alias was made (the finding's note); for an in-place write
//    into a tensor autograd saved, the tensor written when the call names
//    it; any other versioned write into saved state (a module call that
//    writes its own weight, an optimizer step, an in-place module of a
//    Sequential) is left to autograd, whose version check throws at
//    backward;
//  - libtorch-from-blob-escape: the from_blob call (the finding or its
//    note) is wrapped in TORCHALIAS_AT_FROM_BLOB;
//  - libtorch-shared-parameter-update: the parameter list given to the
//    optimizer or clip call is wrapped in TORCHALIAS_AT_PARAMETERS; a
//    holder copy, reported at the copy, is left to the static check;
//  - libtorch-worker-missing-clone: a TORCHALIAS_AT_WORKER guard over the
//    shared tensor (or vector of tensors) is declared just before the
//    statement that spawns, so it is verified when the enclosing block ends.
//
// Every wrapper evaluates its expression once and yields it unchanged, so
// the instrumented program computes what the original does. Only code that
// is spelled in the file is rewritten: a site inside a macro expansion, or
// a shape the table above does not cover, is skipped with its reason, and
// `torchalias report` says "not instrumented" for it.

constexpr llvm::StringLiteral ViewWrite = "TORCHALIAS_AT_VIEW_WRITE";
constexpr llvm::StringLiteral OverlapDst = "TORCHALIAS_AT_OVERLAP_DST";
constexpr llvm::StringLiteral OverlapOperand = "TORCHALIAS_AT_OVERLAP_OPERAND";
constexpr llvm::StringLiteral OverlapOperandOf = "TORCHALIAS_AT_OVERLAP_OPERAND_OF";
constexpr llvm::StringLiteral DetachedSource = "TORCHALIAS_AT_DETACHED_SOURCE";
constexpr llvm::StringLiteral FromBlob = "TORCHALIAS_AT_FROM_BLOB";
constexpr llvm::StringLiteral Parameters = "TORCHALIAS_AT_PARAMETERS";
constexpr llvm::StringLiteral Worker = "TORCHALIAS_AT_WORKER";

// Findings whose confirmation is not a validator's (Note [Instrumented
// sites]): a versioned write into a tensor autograd saved is confirmed by
// autograd itself, and a snapshot finding is a handle kept, not a write.
constexpr llvm::StringLiteral VersionedSkip =
    "the write bumps the version counter of a tensor autograd saved, so the "
    "run confirms it without a validator: backward throws 'one of the "
    "variables needed for gradient computation has been modified by an "
    "inplace operation'";
constexpr llvm::StringLiteral SnapshotSkip =
    "the finding is a handle kept where a copy was meant, not a write; check "
    "it by hand: the record sees the write its note names unless it holds "
    "clone()s";
// A stale view (Note [A view read after its base changed]) is a read of a
// view after its base was written, which a write validator cannot judge.
constexpr llvm::StringLiteral StaleViewSkip =
    "the finding is a view read after its base was written in place, not a "
    "write through the view; check it by hand: the view reads the new values "
    "unless it is taken with clone()";

const CXXRecordDecl *recordOf(QualType T) {
  return T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
}

bool isNamed(const CXXRecordDecl *RD, llvm::StringRef Qualified) {
  return RD && RD->getQualifiedNameAsString() == Qualified;
}

bool isTensor(QualType T) { return isNamed(recordOf(T), "at::Tensor"); }

/// The plain name of a declaration; "" for operators and conversions.
llvm::StringRef nameOf(const NamedDecl *D) {
  return D && D->getIdentifier() ? D->getName() : llvm::StringRef();
}

bool derivesFrom(const CXXRecordDecl *RD, llvm::StringRef Qualified) {
  if (!RD || !RD->hasDefinition())
    return false;
  if (isNamed(RD, Qualified))
    return true;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (derivesFrom(recordOf(Base.getType()), Qualified))
      return true;
  return false;
}

/// The element type of a std::vector, or null.
const CXXRecordDecl *vectorElement(QualType T) {
  const auto *Spec = llvm::dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(T));
  if (!Spec || Spec->getName() != "vector" || !Spec->isInStdNamespace())
    return nullptr;
  return recordOf(Spec->getTemplateArgs()[0].getAsType());
}

/// A tensor or a std::vector of them: what TORCHALIAS_AT_WORKER guards.
bool isTensorOrVector(QualType T) {
  return isTensor(T) || isNamed(vectorElement(T), "at::Tensor");
}

/// std::vector<at::Tensor>, std::vector<OptimizerParamGroup>, a module or a
/// ModuleHolder: what TORCHALIAS_AT_PARAMETERS accepts.
bool isParameterList(QualType T) {
  if (const CXXRecordDecl *Element = vectorElement(T))
    return isNamed(Element, "at::Tensor") ||
           isNamed(Element, "torch::optim::OptimizerParamGroup");
  const CXXRecordDecl *RD = recordOf(T);
  return derivesFrom(RD, "torch::nn::Module") || derivesFrom(RD, "torch::nn::ModuleHolder");
}

/// The expression as written: without implicit nodes and copy constructions.
const Expr *written(const Expr *E) {
  while (E) {
    const Expr *Inner = E->IgnoreImplicit();
    if (const auto *Construct = llvm::dyn_cast<CXXConstructExpr>(Inner);
        Construct && Construct->getNumArgs() == 1 && !Construct->isListInitialization() &&
        Construct->getConstructor()->isCopyOrMoveConstructor())
      Inner = Construct->getArg(0);
    if (Inner == E)
      return E;
    E = Inner;
  }
  return E;
}

/// The tensor an argument passes, through an implicit conversion to
/// c10::optional<Tensor> (`batch_norm`'s running statistics); null if none.
const Expr *tensorArgument(const Expr *Arg) {
  const Expr *W = written(Arg);
  if (const auto *Construct = llvm::dyn_cast<CXXConstructExpr>(W->IgnoreImplicit());
      Construct && Construct->getNumArgs() == 1 && !isTensor(W->getType()))
    W = written(Construct->getArg(0));
  return isTensor(W->getType()) ? W : nullptr;
}

/// The tensors of an operand: itself, or the elements of a braced list
/// given for a TensorList (`at::cat_out(out, {a, b})`).
std::vector<const Expr *> tensorsOf(const Expr *Operand) {
  const Expr *W = written(Operand);
  if (isTensor(W->getType()))
    return {W};
  const Expr *List = W->IgnoreImplicit();
  if (const auto *Construct = llvm::dyn_cast<CXXConstructExpr>(List);
      Construct && Construct->getNumArgs() == 1)
    List = Construct->getArg(0)->IgnoreImplicit();
  if (const auto *Std = llvm::dyn_cast<CXXStdInitializerListExpr>(List))
    List = Std->getSubExpr()->IgnoreImplicit();
  std::vector<const Expr *> Tensors;
  if (const auto *Init = llvm::dyn_cast<InitListExpr>(List))
    for (const Expr *Element : Init->inits())
      if (isTensor(written(Element)->getType()))
        Tensors.push_back(written(Element));
  return Tensors;
}

/// A plain name (a variable, or a member of one) that may be evaluated again.
bool isPlainName(const Expr *E) {
  E = written(E)->IgnoreParens();
  if (llvm::isa<DeclRefExpr>(E))
    return true;
  if (const auto *Member = llvm::dyn_cast<MemberExpr>(E))
    return llvm::isa<FieldDecl>(Member->getMemberDecl()) &&
           (Member->isImplicitAccess() || llvm::isa<CXXThisExpr>(Member->getBase()) ||
            isPlainName(Member->getBase()));
  return false;
}

/// An expression that may be evaluated a second time before its first
/// evaluation, to the same memory: names, literals, and calls of
/// non-in-place tensor methods on them (`buf.narrow(0, 0, n)`).
bool isReEvaluable(const Expr *E) {
  E = written(E)->IgnoreParens();
  if (isPlainName(E) || llvm::isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr>(E))
    return true;
  if (const auto *Unary = llvm::dyn_cast<UnaryOperator>(E))
    return Unary->getOpcode() == UO_Minus && isReEvaluable(Unary->getSubExpr());
  const auto *Call = llvm::dyn_cast<CXXMemberCallExpr>(E);
  if (!Call || !isTensor(Call->getImplicitObjectArgument()->getType()))
    return false;
  llvm::StringRef Name = nameOf(Call->getMethodDecl());
  if (Name.empty() || Name.ends_with("_") || !isReEvaluable(Call->getImplicitObjectArgument()))
    return false;
  return llvm::all_of(Call->arguments(), isReEvaluable);
}

struct Wrap {
  unsigned Begin, End; // End == Begin and Statement: a prefix
  std::string Open;
  bool Statement = false;
};

using Key = std::pair<unsigned, unsigned>; // line, column

class SiteFinder {
public:
  SiteFinder(ASTContext &Ctx, std::map<Key, std::vector<const Expr *>> &Nodes,
             std::map<Key, const LambdaExpr *> &Captures)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Nodes(Nodes), Captures(Captures) {}

  /// Works out the wraps for one finding, or says why there are none.
  std::string instrument(const StaticFinding &F, std::vector<Wrap> &Wraps,
                         std::vector<std::string> &Validators);

private:
  std::string wrap(const Expr *E, llvm::StringRef Macro, const StaticFinding &F,
                   std::vector<Wrap> &Wraps, llvm::StringRef Extra = "");
  std::string text(const Expr *E) const;
  const CallExpr *callAt(const SourcePoint &P) const;
  const Stmt *statementInBlock(const Stmt *S) const;
  const Expr *writtenTensor(const CallExpr *Call, const StaticFinding &F) const;
  const Expr *argumentTheCalleeWrites(const CallExpr *Call,
                                      const StaticFinding &F) const;

  std::string viewWrite(const StaticFinding &F, std::vector<Wrap> &Wraps,
                        std::vector<std::string> &Validators);
  std::string namedOverlap(const CallExpr *Call, llvm::StringRef DestinationText,
                           llvm::StringRef OperandText, const StaticFinding &F,
                           std::vector<Wrap> &Wraps, std::vector<std::string> &Validators);
  std::string overlap(const StaticFinding &F, std::vector<Wrap> &Wraps,
                      std::vector<std::string> &Validators);
  std::string detached(const StaticFinding &F, std::vector<Wrap> &Wraps,
                       std::vector<std::string> &Validators);
  std::string fromBlob(const StaticFinding &F, std::vector<Wrap> &Wraps,
                       std::vector<std::string> &Validators);
  std::string parameters(const StaticFinding &F, std::vector<Wrap> &Wraps,
                         std::vector<std::string> &Validators);
  std::string worker(const StaticFinding &F, std::vector<Wrap> &Wraps,
                     std::vector<std::string> &Validators);

  ASTContext &Ctx;
  const SourceManager &SM;
  std::map<Key, std::vector<const Expr *>> &Nodes;
  std::map<Key, const LambdaExpr *> &Captures;
};

std::string SiteFinder::text(const Expr *E) const {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(E->getSourceRange()), SM,
                              Ctx.getLangOpts())
      .str();
}

std::string SiteFinder::wrap(const Expr *E, llvm::StringRef Macro, const StaticFinding &F,
                             std::vector<Wrap> &Wraps, llvm::StringRef Extra) {
  // The wrappers pass an rvalue on by moving it, which is right for a
  // temporary but would empty a variable that std::move() only names.
  if (E->isXValue())
    return "the expression is an xvalue (std::move): passing it through would move from it";
  SourceLocation Begin = E->getBeginLoc(), End = E->getEndLoc();
  if (!Begin.isFileID() || !End.isFileID())
    return "the expression is inside a macro expansion";
  SourceLocation After = Lexer::getLocForEndOfToken(End, 0, SM, Ctx.getLangOpts());
  if (After.isInvalid() || !SM.isWrittenInMainFile(Begin) || !SM.isWrittenInMainFile(After))
    return "the expression is not spelled in this file";
  std::string Open = (Macro + "(\"" + F.Id + "\", ").str();
  if (!Extra.empty())
    Open += (Extra + ", ").str();
  Wraps.push_back({SM.getFileOffset(Begin), SM.getFileOffset(After), Open});
  return "";
}

const CallExpr *SiteFinder::callAt(const SourcePoint &P) const {
  auto It = Nodes.find({P.Line, P.Column});
  if (It == Nodes.end())
    return nullptr;
  const CallExpr *Found = nullptr;
  for (const Expr *E : It->second)
    if (const auto *Call = llvm::dyn_cast<CallExpr>(E))
      if (!Found || llvm::isa<CXXMemberCallExpr>(Call))
        Found = Call;
  return Found;
}

const Stmt *SiteFinder::statementInBlock(const Stmt *S) const {
  DynTypedNode Node = DynTypedNode::create(*S);
  for (int Depth = 0; Depth < 64; ++Depth) {
    auto Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    const DynTypedNode &Parent = Parents[0];
    if (Parent.get<CompoundStmt>())
      return Node.get<Stmt>();
    // A capture's initialiser belongs to the statement that makes the
    // lambda; the lambda's body is a block of its own.
    if (const auto *Lambda = Parent.get<LambdaExpr>();
        Lambda && Node.get<Stmt>() == Lambda->getBody())
      return nullptr;
    if (Parent.get<FunctionDecl>() || Parent.get<CXXRecordDecl>())
      return nullptr;
    Node = Parent;
  }
  return nullptr;
}

// Note [Arguments a callee writes]
// A call of a function of the translation unit that writes one of its
// parameters (`taper(frames)`, `sequence_mask(X.reshape({-1}), lengths)`,
// `obj.taper(frames)`) is a finding whose note names that parameter, from
// the callee's summary: "'taper' writes its parameter 'frames' in place
// here". The note's parameter, looked up in the callee's definition, gives
// the argument to wrap, whatever the argument is spelled and however many
// tensors the call passes. A note about a deeper callee (the callee passes
// its parameter on to another function) does not name the direct callee;
// such a call is instrumented only when the finding names the argument or
// the call passes one tensor.

/// The argument of a function of this translation unit that the finding's
/// note says it writes (Note [Arguments a callee writes]), or null.
const Expr *SiteFinder::argumentTheCalleeWrites(const CallExpr *Call,
                                                const StaticFinding &F) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return nullptr;
  const FunctionDecl *Definition = Callee->getDefinition();
  if (!Definition)
    Definition = Callee;
  // An operator that is a method passes its object as the first argument.
  unsigned Offset =
      llvm::isa<CXXOperatorCallExpr>(Call) && llvm::isa<CXXMethodDecl>(Callee)
          ? 1
          : 0;
  llvm::Regex WritesParameter(
      "^'([^']+)' writes its parameter '([^']+)' in place here$");
  for (const Note &N : F.Related) {
    llvm::SmallVector<llvm::StringRef, 3> Named;
    if (!WritesParameter.match(N.Message, &Named) || Named[1] != nameOf(Callee))
      continue;
    for (unsigned I = 0; I < Definition->getNumParams(); ++I) {
      if (nameOf(Definition->getParamDecl(I)) != Named[2] ||
          I + Offset >= Call->getNumArgs())
        continue;
      const Expr *Argument = written(Call->getArg(I + Offset));
      return isTensor(Argument->getType()) ? Argument : nullptr;
    }
  }
  return nullptr;
}

/// The tensor an in-place call writes: its object, the left operand of an
/// operator, or the argument of a callee that the finding names.
const Expr *SiteFinder::writtenTensor(const CallExpr *Call, const StaticFinding &F) const {
  if (const auto *Member = llvm::dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Object = written(Member->getImplicitObjectArgument());
    if (isTensor(Object->getType()))
      return Object;
    return argumentTheCalleeWrites(Call, F);
  }
  // A module call (`act(x)`, operator() of a holder) writes its tensor
  // argument, like a free call does.
  bool ModuleCall = false;
  if (const auto *Operator = llvm::dyn_cast<CXXOperatorCallExpr>(Call)) {
    const Expr *Left =
        Operator->getNumArgs() > 0 ? written(Operator->getArg(0)) : nullptr;
    if (Left && isTensor(Left->getType()))
      return Left;
    if (Operator->getOperator() != OO_Call)
      return argumentTheCalleeWrites(Call, F);
    ModuleCall = true;
  }
  llvm::SmallVector<llvm::StringRef, 2> Named;
  llvm::Regex("writes in place to '([^']+)'").match(F.Message, &Named);
  const Expr *Only = nullptr;
  unsigned Tensors = 0;
  for (const Expr *Arg : llvm::drop_begin(Call->arguments(), ModuleCall ? 1 : 0)) {
    const Expr *W = written(Arg);
    if (!isTensor(W->getType()))
      continue;
    ++Tensors;
    Only = W;
    if (Named.size() == 2 && text(W) == Named[1])
      return W;
  }
  return Tensors == 1 ? Only : argumentTheCalleeWrites(Call, F);
}

std::string SiteFinder::viewWrite(const StaticFinding &F, std::vector<Wrap> &Wraps,
                                  std::vector<std::string> &Validators) {
  llvm::StringRef Message = F.Message;
  if (Message.contains("holds a view of part of it") ||
      Message.contains("holds a view of all of it"))
    return std::string(StaleViewSkip);
  if (Message.contains("is a copy of the handle"))
    return std::string(SnapshotSkip);
  const CallExpr *Call = callAt(F.Where);
  if (!Call && Message.contains("returns a record holding a handle"))
    return std::string(SnapshotSkip);
  if (!Call)
    return "no call at the finding's location";
  const Expr *Target = writtenTensor(Call, F);
  if (!Target || !isTensor(Target->getType()))
    return "cannot tell which tensor the call writes (the finding names no "
           "argument of it "
           "and no parameter of its callee); pass the written tensor as a "
           "variable of its "
           "own";
  if (std::string Why = wrap(Target, ViewWrite, F, Wraps); !Why.empty())
    return Why;
  Validators.push_back(ViewWrite.str());
  return "";
}

std::string SiteFinder::overlap(const StaticFinding &F, std::vector<Wrap> &Wraps,
                                std::vector<std::string> &Validators) {
  const CallExpr *Call = callAt(F.Where);
  if (!Call)
    return "no call at the finding's location";
  // "operand 'a' of 'f' is the same tensor as the argument 'p' it also
  // writes 'b'": the call writes an argument other than its first, so the
  // destination and the operand are the arguments the finding names.
  llvm::SmallVector<llvm::StringRef, 3> Named;
  if (llvm::Regex("'([^']+)' of '[^']+' [^;]* the argument '[^']+' it also writes "
                  "'([^']+)'")
          .match(F.Message, &Named))
    return namedOverlap(Call, Named[2], Named[1], F, Wraps, Validators);
  const Expr *Destination = nullptr;
  unsigned FirstOperand = 0;
  if (const auto *Member = llvm::dyn_cast<CXXMemberCallExpr>(Call)) {
    Destination = written(Member->getImplicitObjectArgument());
  } else {
    for (; FirstOperand < Call->getNumArgs() && !Destination; ++FirstOperand)
      if (isTensor(written(Call->getArg(FirstOperand))->getType()))
        Destination = written(Call->getArg(FirstOperand));
  }
  if (!Destination || !isTensor(Destination->getType()))
    return "cannot tell which tensor the call writes";
  bool Sequenced = llvm::isa<CXXMemberCallExpr>(Call);
  if (!Sequenced && !isPlainName(Destination))
    return "the destination of a free or operator call is not a plain name, and its "
           "operands are unsequenced; to have it checked at run time, name the "
           "destination in a variable of its own";
  std::vector<Wrap> Mine;
  if (Sequenced)
    if (std::string Why = wrap(Destination, OverlapDst, F, Mine); !Why.empty())
      return Why;
  unsigned Operands = 0;
  for (unsigned I = FirstOperand; I < Call->getNumArgs(); ++I)
    for (const Expr *Arg : tensorsOf(Call->getArg(I))) {
      if (Arg == Destination || Arg->getBeginLoc().isInvalid())
        continue;
      std::string Why = Sequenced ? wrap(Arg, OverlapOperand, F, Mine)
                                  : wrap(Arg, OverlapOperandOf, F, Mine, text(Destination));
      if (!Why.empty())
        return Why;
      ++Operands;
    }
  if (Operands == 0)
    return "the call has no tensor operand to compare with its destination";
  Wraps.insert(Wraps.end(), Mine.begin(), Mine.end());
  if (Sequenced)
    Validators.push_back(OverlapDst.str());
  Validators.insert(Validators.end(), Operands,
                    (Sequenced ? OverlapOperand : OverlapOperandOf).str());
  return "";
}

std::string SiteFinder::namedOverlap(const CallExpr *Call, llvm::StringRef DestinationText,
                                     llvm::StringRef OperandText, const StaticFinding &F,
                                     std::vector<Wrap> &Wraps,
                                     std::vector<std::string> &Validators) {
  const Expr *Destination = nullptr, *Operand = nullptr;
  for (const Expr *Arg : Call->arguments()) {
    const Expr *Tensor = tensorArgument(Arg);
    if (!Tensor)
      continue;
    if (!Destination && text(Tensor) == DestinationText)
      Destination = Tensor;
    else if (!Operand && text(Tensor) == OperandText)
      Operand = Tensor;
  }
  if (!Destination || !Operand)
    return "cannot find the arguments the finding names in the call";
  if (!isPlainName(Destination))
    return "the written argument is not a plain name, and the call's operands are "
           "unsequenced; to have it checked at run time, name it in a variable of its own";
  if (std::string Why = wrap(Operand, OverlapOperandOf, F, Wraps, text(Destination));
      !Why.empty())
    return Why;
  Validators.push_back(OverlapOperandOf.str());
  return "";
}

std::string SiteFinder::detached(const StaticFinding &F, std::vector<Wrap> &Wraps,
                                 std::vector<std::string> &Validators) {
  auto sourceOf = [](const Expr *E) -> const Expr * {
    const auto *Call = llvm::dyn_cast_or_null<CXXMemberCallExpr>(E ? written(E) : nullptr);
    if (!Call)
      return nullptr;
    llvm::StringRef Name = nameOf(Call->getMethodDecl());
    if (Name != "data" && Name != "detach" && Name != "variable_data")
      return nullptr;
    return written(Call->getImplicitObjectArgument());
  };
  const Expr *Source = nullptr;
  if (const CallExpr *Call = callAt(F.Where))
    Source = sourceOf(writtenTensor(Call, F));
  for (const Note &N : F.Related)
    if (!Source && N.Where.File == F.Where.File)
      Source = sourceOf(callAt(N.Where));
  // An in-place write into a tensor autograd saved: the tensor written, if
  // it is the one the finding names (a module call such as `embed(ids)`
  // writes its own weight, not its argument).
  llvm::SmallVector<llvm::StringRef, 2> Named;
  if (const CallExpr *Call = callAt(F.Where);
      !Source && Call &&
      llvm::Regex("writes in place into [a-z ]*'([^']+)'").match(F.Message, &Named)) {
    Source = writtenTensor(Call, F);
    if (Source && text(Source) != Named[1])
      Source = nullptr;
  }
  llvm::StringRef Message = F.Message;
  if (!Source && !Message.contains("data()") && !Message.contains("detach()"))
    return std::string(VersionedSkip);
  if (!Source || !isTensor(Source->getType()))
    return "cannot find the tensor whose .data() or detach() alias is written";
  if (std::string Why = wrap(Source, DetachedSource, F, Wraps); !Why.empty())
    return Why;
  Validators.push_back(DetachedSource.str());
  return "";
}

std::string SiteFinder::fromBlob(const StaticFinding &F, std::vector<Wrap> &Wraps,
                                 std::vector<std::string> &Validators) {
  std::vector<SourcePoint> Places{F.Where};
  for (const Note &N : F.Related)
    if (N.Where.File == F.Where.File)
      Places.push_back(N.Where);
  for (const SourcePoint &P : Places) {
    const CallExpr *Call = callAt(P);
    if (!Call || nameOf(Call->getDirectCallee()) != "from_blob")
      continue;
    if (std::string Why = wrap(Call, FromBlob, F, Wraps); !Why.empty())
      return Why;
    Validators.push_back(FromBlob.str());
    return "";
  }
  return "no from_blob call at the finding or its notes";
}

std::string SiteFinder::parameters(const StaticFinding &F, std::vector<Wrap> &Wraps,
                                   std::vector<std::string> &Validators) {
  // A holder copy is reported at the copy, whose argument is a ModuleHolder
  // too: it is no list given to a sink, and its parameters hold no duplicate.
  bool HolderCopy = F.Message.find("a copy of its ModuleHolder") != std::string::npos;
  auto It = Nodes.find({F.Where.Line, F.Where.Column});
  for (const Expr *E : It == Nodes.end() || HolderCopy ? std::vector<const Expr *>()
                                                       : It->second) {
    llvm::ArrayRef<const Expr *> Args;
    if (const auto *Construct = llvm::dyn_cast<CXXConstructExpr>(E))
      Args = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
    else if (const auto *Call = llvm::dyn_cast<CallExpr>(E))
      Args = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
    for (const Expr *Arg : Args) {
      const Expr *W = written(Arg);
      if (llvm::isa<InitListExpr, CXXStdInitializerListExpr>(W->IgnoreImplicit()) ||
          !isParameterList(W->getType()))
        continue;
      if (const auto *List = llvm::dyn_cast<CXXConstructExpr>(W); List && List->isListInitialization())
        continue;
      if (std::string Why = wrap(W, Parameters, F, Wraps); !Why.empty())
        return Why;
      Validators.push_back(Parameters.str());
      return "";
    }
  }
  return "the finding is not at a call that takes a parameter list (a holder copy, a fill "
         "or an assignment is found statically only); check it by hand: a ModuleHolder "
         "copy shares its module (copy.ptr() == original.ptr()), and clone() makes a "
         "module of its own";
}

std::string SiteFinder::worker(const StaticFinding &F, std::vector<Wrap> &Wraps,
                               std::vector<std::string> &Validators) {
  // A DataLoader example written in place: validated as a view write.
  if (F.Message.find("writes example") != std::string::npos)
    return viewWrite(F, Wraps, Validators);
  Key At{F.Where.Line, F.Where.Column};
  std::string Name;
  const Stmt *Anchor = nullptr;
  if (auto It = Nodes.find(At); It != Nodes.end())
    for (const Expr *E : It->second)
      if (const auto *Ref = llvm::dyn_cast<DeclRefExpr>(E);
          Ref && isTensorOrVector(Ref->getType()) && isPlainName(Ref)) {
        Name = text(Ref);
        Anchor = Ref;
        break;
      }
  if (!Anchor)
    if (auto It = Captures.find(At); It != Captures.end())
      for (const LambdaCapture &C : It->second->captures())
        if (C.capturesVariable() && SM.getSpellingLineNumber(C.getLocation()) == At.first &&
            SM.getSpellingColumnNumber(C.getLocation()) == At.second &&
            isTensorOrVector(C.getCapturedVar()->getType())) {
          // An init-capture's name exists only in the lambda: the guard
          // evaluates its initialiser again, when that is safe.
          const auto *Var = llvm::dyn_cast<VarDecl>(C.getCapturedVar());
          if (Var && Var->isInitCapture()) {
            if (!Var->getInit() || !isReEvaluable(Var->getInit()))
              return "the init-capture's initialiser cannot be evaluated a second time";
            Name = text(written(Var->getInit()));
          } else {
            Name = C.getCapturedVar()->getName().str();
          }
          Anchor = It->second;
        }
  if (!Anchor)
    return "the shared value is not a tensor, or a vector of them, named at the spawn (the "
           "guard fingerprints tensors); to have it checked at run time, hand the worker "
           "the tensors themselves, as variables";
  const Stmt *Spawn = statementInBlock(Anchor);
  if (!Spawn || !Spawn->getBeginLoc().isFileID() || !SM.isWrittenInMainFile(Spawn->getBeginLoc()))
    return "the spawn is not a statement of a block";
  unsigned Offset = SM.getFileOffset(Spawn->getBeginLoc());
  std::string Guard = llvm::formatv("torchalias_guard_{0}_{1}", At.first, At.second).str();
  Wraps.push_back({Offset, Offset,
                   (Worker + "(\"" + F.Id + "\", " + Guard + ", " + Name + "); ").str(),
                   /*Statement=*/true});
  Validators.push_back(Worker.str());
  return "";
}

std::string SiteFinder::instrument(const StaticFinding &F, std::vector<Wrap> &Wraps,
                                   std::vector<std::string> &Validators) {
  if (F.Check == "libtorch-inplace-on-view")
    return viewWrite(F, Wraps, Validators);
  if (F.Check == "libtorch-overlapping-inplace")
    return overlap(F, Wraps, Validators);
  if (F.Check == "libtorch-detached-write")
    return detached(F, Wraps, Validators);
  if (F.Check == "libtorch-from-blob-escape")
    return fromBlob(F, Wraps, Validators);
  if (F.Check == "libtorch-shared-parameter-update")
    return parameters(F, Wraps, Validators);
  if (F.Check == "libtorch-worker-missing-clone")
    return worker(F, Wraps, Validators);
  return "not a libtorch check";
}

/// Collects the expressions and lambda captures of the main file at the
/// places the findings name.
class NodeCollector : public RecursiveASTVisitor<NodeCollector> {
public:
  NodeCollector(const SourceManager &SM, const std::set<Key> &Wanted,
                std::map<Key, std::vector<const Expr *>> &Nodes,
                std::map<Key, const LambdaExpr *> &Captures)
      : SM(SM), Wanted(Wanted), Nodes(Nodes), Captures(Captures) {}

  bool VisitExpr(Expr *E) {
    SourceLocation Loc = E->getExprLoc();
    if (Loc.isMacroID())
      Loc = SM.getExpansionLoc(Loc);
    if (auto K = key(Loc)) {
      if (E->getExprLoc().isMacroID())
        InMacros.insert(*K);
      else
        Nodes[*K].push_back(E);
    }
    return true;
  }
  std::set<Key> InMacros;
  bool VisitLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->explicit_captures())
      if (auto K = key(C.getLocation()))
        Captures[*K] = L;
    return true;
  }

private:
  std::optional<Key> key(SourceLocation Loc) const {
    if (Loc.isInvalid() || !Loc.isFileID() || !SM.isWrittenInMainFile(Loc))
      return std::nullopt;
    Key K{SM.getSpellingLineNumber(Loc), SM.getSpellingColumnNumber(Loc)};
    if (!Wanted.count(K))
      return std::nullopt;
    return K;
  }
  const SourceManager &SM;
  const std::set<Key> &Wanted;
  std::map<Key, std::vector<const Expr *>> &Nodes;
  std::map<Key, const LambdaExpr *> &Captures;
};

class InstrumentConsumer : public ASTConsumer {
public:
  InstrumentConsumer(const std::vector<const StaticFinding *> &Findings,
                     FileInstrumentation &Out)
      : Findings(Findings), Out(Out) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    const SourceManager &SM = Ctx.getSourceManager();
    std::set<Key> Wanted;
    for (const StaticFinding *F : Findings) {
      Wanted.insert({F->Where.Line, F->Where.Column});
      for (const Note &N : F->Related)
        Wanted.insert({N.Where.Line, N.Where.Column});
    }
    // The parent map is built over the main file's declarations only.
    std::vector<Decl *> Mine;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
        Mine.push_back(D);
    Ctx.setTraversalScope(Mine);
    std::map<Key, std::vector<const Expr *>> Nodes;
    std::map<Key, const LambdaExpr *> Captures;
    NodeCollector Collector(SM, Wanted, Nodes, Captures);
    for (Decl *D : Mine)
      Collector.TraverseDecl(D);

    SiteFinder Finder(Ctx, Nodes, Captures);
    std::vector<Wrap> Wraps;
    for (const StaticFinding *F : Findings) {
      SiteOutcome Site;
      Site.Finding = F;
      Site.Skipped = Finder.instrument(*F, Wraps, Site.Validators);
      if (!Site.Skipped.empty() && Collector.InMacros.count({F->Where.Line, F->Where.Column}))
        Site.Skipped = "the site is inside a macro expansion";
      Out.Sites.push_back(std::move(Site));
    }
    Out.Insertions = order(Wraps);
  }

private:
  // Wraps nest like parentheses: at one offset the closings come first,
  // innermost first, then statement prefixes, then the openings, outermost
  // first.
  static std::vector<Insertion> order(const std::vector<Wrap> &Wraps) {
    struct Event {
      unsigned Offset;
      int Phase;
      long long Rank;
      size_t Seq;
      std::string Text;
    };
    std::vector<Event> Events;
    for (size_t I = 0; I < Wraps.size(); ++I) {
      const Wrap &W = Wraps[I];
      if (W.Statement) {
        Events.push_back({W.Begin, 1, 0, I, W.Open});
        continue;
      }
      Events.push_back({W.End, 0, -static_cast<long long>(W.Begin), Wraps.size() - I, ")"});
      Events.push_back({W.Begin, 2, -static_cast<long long>(W.End), I, W.Open});
    }
    llvm::sort(Events, [](const Event &A, const Event &B) {
      return std::tie(A.Offset, A.Phase, A.Rank, A.Seq) <
             std::tie(B.Offset, B.Phase, B.Rank, B.Seq);
    });
    std::vector<Insertion> Result;
    for (Event &E : Events)
      Result.push_back({E.Offset, std::move(E.Text)});
    return Result;
  }

  const std::vector<const StaticFinding *> &Findings;
  FileInstrumentation &Out;
};

class InstrumentAction : public ASTFrontendAction {
public:
  InstrumentAction(const std::vector<const StaticFinding *> &Findings, FileInstrumentation &Out)
      : Findings(Findings), Out(Out) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, llvm::StringRef) override {
    return std::make_unique<InstrumentConsumer>(Findings, Out);
  }

private:
  const std::vector<const StaticFinding *> &Findings;
  FileInstrumentation &Out;
};

class InstrumentActionFactory : public tooling::FrontendActionFactory {
public:
  InstrumentActionFactory(const std::vector<const StaticFinding *> &Findings,
                          FileInstrumentation &Out)
      : Findings(Findings), Out(Out) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<InstrumentAction>(Findings, Out);
  }

private:
  const std::vector<const StaticFinding *> &Findings;
  FileInstrumentation &Out;
};

/// Collects the compiler's errors, so that a file that does not parse gets
/// a one-line reason instead of a screenful.
class FirstError : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level, const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error || !Message.empty())
      return;
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    Message = Text.str().str();
    if (Info.getLocation().isValid() && Info.hasSourceManager()) {
      PresumedLoc P = Info.getSourceManager().getPresumedLoc(Info.getLocation());
      if (P.isValid())
        Message = llvm::formatv("{0}:{1}:{2}: {3}", P.getFilename(), P.getLine(),
                                P.getColumn(), Message)
                      .str();
    }
  }
  std::string Message;
};

} // namespace

FileInstrumentation instrumentFile(const tooling::CompilationDatabase &Database,
                                   llvm::StringRef File,
                                   const std::vector<const StaticFinding *> &Findings) {
  FileInstrumentation Out;
  Out.File = File.str();
  // A file system of its own: Note [One working directory per unit].
  tooling::ClangTool Tool(Database, {File.str()},
                          std::make_shared<PCHContainerOperations>(),
                          llvm::vfs::createPhysicalFileSystem());
  FirstError Errors;
  Tool.setDiagnosticConsumer(&Errors);
  InstrumentActionFactory Factory(Findings, Out);
  int Status = Tool.run(&Factory);
  if (Status != 0 || Errors.getNumErrors() > 0) {
    Out.Error = Errors.Message.empty() ? "the file does not compile" : Errors.Message;
    Out.Insertions.clear();
    Out.Sites.clear();
    for (const StaticFinding *F : Findings)
      Out.Sites.push_back({F, {}, "the file does not compile: " + Out.Error});
  }
  return Out;
}

std::string applyInsertions(llvm::StringRef Original, std::vector<Insertion> Insertions) {
  // Stable: insertions at one offset keep their order.
  std::vector<size_t> Order(Insertions.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::sort(Order, [&](size_t A, size_t B) {
    return std::tie(Insertions[A].Offset, A) < std::tie(Insertions[B].Offset, B);
  });
  // The include and a #line that gives the next line number 1 again, so
  // that __LINE__, diagnostics and debug information keep the original's
  // line numbers.
  std::string Text = "#include <torchalias/instrument.h>\n#line 1\n";
  unsigned Done = 0;
  for (size_t Index : Order) {
    const Insertion &I = Insertions[Index];
    Text += Original.slice(Done, I.Offset).str();
    Text += I.Text;
    Done = I.Offset;
  }
  Text += Original.drop_front(Done).str();
  return Text;
}

llvm::json::Value manifest(const std::vector<FileInstrumentation> &Files, llvm::StringRef Root) {
  llvm::json::Array Sites;
  for (const FileInstrumentation &File : Files)
    for (const SiteOutcome &Site : File.Sites) {
      llvm::json::Object Entry{{"finding", Site.Finding->Id},
                               {"check", Site.Finding->Check},
                               {"file", relativePath(File.File, Root)},
                               {"line", Site.Finding->Where.Line}};
      if (Site.Skipped.empty())
        Entry["validators"] = llvm::json::Array(Site.Validators);
      else
        Entry["skipped"] = Site.Skipped;
      Sites.push_back(std::move(Entry));
    }
  llvm::json::Array Failed;
  for (const FileInstrumentation &File : Files)
    if (!File.Error.empty())
      Failed.push_back(llvm::json::Object{{"file", relativePath(File.File, Root)},
                                          {"error", File.Error}});
  return llvm::json::Object{{"version", 1}, {"sites", std::move(Sites)},
                            {"unparsed", std::move(Failed)}};
}

} // namespace torchalias::driver
