//===- AliasAnalysis.h - where tensor handles and views come from ---------===//
//
// The analysis core every libtorch check is a client of.
//
// Problem: an in-place write is a bug or not depending on what the written
// tensor aliases. `head.zero_()` is harmless if `head` is a fresh tensor and
// corrupts the caller's data if `head = input.narrow(...)`.
//
// Approach: a forward, flow-sensitive dataflow over clang's CFG of one
// function. For every tensor-valued variable it tracks an AliasValue: the
// declaration that owns the storage (the root), where the root came from
// (fresh, a parameter, object state, from_blob, unknown) and how the variable
// relates to it (the handle itself or a copy of it, a definite view, a
// possible alias, an expanded view, a detached view). Branches merge, loops
// iterate to a fixpoint, lambdas are analysed with their captures' values.
// Every in-place write met on the way is recorded as a WriteEvent with the
// value of its target at that point.
//
// Calls to functions defined in the translation unit use FunctionSummaries,
// computed on demand and memoised (callees before callers), which say which
// parameters a function writes in place, which parameter it returns an alias
// of, which member it returns a view of, and which parameters it keeps (see
// Note [Escapes]).
//
// A few run-time facts decide whether a may-alias operation copies (Note
// [Layout facts]): a tensor fresh from a factory is contiguous, so
// `reshape`/`flatten` of it is a view and `contiguous()` returns it; a tensor
// whose strides were permuted (`t()`, `permute`) is not, so `contiguous()`
// copies it; `to(dtype)` copies a tensor whose dtype is known to differ and
// returns a tensor of that dtype itself.
//
// Simplifications, and what they cost:
// - A root is a declaration, not an object: two elements of one container,
//   or one member of two objects, share a root.
// - Writing through a reference variable updates what the reference names,
//   but a later reassignment of the reference is treated as rebinding it.
// - Index ranges are not tracked: a view is a view of the whole root.
// - Unknown callees are assumed to neither write nor alias their arguments.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_ALIASANALYSIS_H
#define TORCHALIAS_ANALYSIS_ALIASANALYSIS_H

#include "CallTargets.h"
#include "OperatorTable.h"
#include "TensorModel.h"

#include "clang/AST/Decl.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// Where the storage of a root comes from.
enum class Origin {
  Fresh,       ///< A factory or out-of-place result made in this function.
  CallerOwned, ///< A parameter: the caller can observe writes.
  ObjectState, ///< A member, a module's parameter or buffer.
  External,    ///< from_blob: memory the tensor does not own.
  Unknown,
};

/// What the function shows about a tensor's strides (Note [Layout facts]).
enum class Layout {
  Unknown,
  Contiguous,    ///< Fresh from a factory, a `contiguous()` result, ...
  NotContiguous, ///< The strides were just permuted (`t()`, `permute`).
};

/// How a tensor relates to its root's storage.
enum class Relation {
  Handle,       ///< The root itself, or a copy of its handle.
  DefiniteView, ///< Always a view (`slice`, `narrow`, `select`, ...).
  MayAlias,     ///< A view or the root itself depending on layout (`reshape`).
  Expanded,     ///< A view whose elements share memory (`expand`).
  Detached,     ///< `detach()` or `data()` of the root.
};

/// What the analysis knows about one tensor value.
struct AliasValue {
  const ValueDecl *Root = nullptr; ///< Null for untracked temporaries.
  Origin RootOrigin = Origin::Unknown;
  Relation Rel = Relation::Handle;
  const Expr *AliasSite = nullptr; ///< The call that made the latest view.
  llvm::StringRef AliasOperator;   ///< Its operator, e.g. "narrow".
  bool IsList = false;             ///< A std::vector of such views.
  /// Paths with different values met here; AliasSite is only one of them.
  bool Merged = false;
  /// For object state: the member was reached through `this`, in a method of
  /// the object that owns it.
  bool OwnMember = false;
  /// For object state: a method of the translation unit returned this view of
  /// its member (AliasSite is the call); the caller writes what it was given.
  bool HandedOut = false;
  /// Whether the tensor is known to be contiguous, or known not to be.
  Layout Strides = Layout::Unknown;
  /// The c10::ScalarType, when the function shows it.
  std::optional<int64_t> DType;

  bool isView() const { return Rel != Relation::Handle; }
  bool operator==(const AliasValue &Other) const {
    return Root == Other.Root && RootOrigin == Other.RootOrigin &&
           Rel == Other.Rel && AliasSite == Other.AliasSite &&
           IsList == Other.IsList && Merged == Other.Merged &&
           OwnMember == Other.OwnMember && HandedOut == Other.HandedOut &&
           Strides == Other.Strides && DType == Other.DType;
  }
  bool operator!=(const AliasValue &Other) const { return !(*this == Other); }
};

class FunctionAliasAnalysis;

/// A tensor read by a writing call, with its value at the write. Tensors
/// inside braced lists (`at::cat_out(out, {x, y})`, `t.index_put_({i}, v)`)
/// are operands of the argument that holds the list.
struct WriteOperand {
  const Expr *Operand = nullptr;
  unsigned Position = 0; ///< Its argument, as TensorCall::Args indexes them.
  AliasValue Value;
};

/// One in-place write met by the analysis.
struct WriteEvent {
  const Expr *Call = nullptr;   ///< The writing call.
  const Expr *Target = nullptr; ///< The written operand.
  AliasValue Value;             ///< What the target aliased at that point.
  llvm::StringRef Operator;     ///< "add_", "operator=", or the callee's name.
  bool IsOutArgument = false;
  bool IsIndexAssignment = false;
  /// For a call to a function of this translation unit that writes its
  /// parameter: the write inside that function.
  const Expr *CalleeWrite = nullptr;
  const ParmVarDecl *CalleeParam = nullptr;
  /// The write inside that function goes through a view of its parameter.
  bool CalleeThroughView = false;
  /// A member of the argument Target, written by the callee (Note [Members
  /// of an argument written by a helper]); the Value's root is the member.
  bool ArgumentMember = false;
  /// Writes elements through an accessor or a data pointer (Note [Element
  /// writes through an accessor]): one of rawWrites().
  bool RawElements = false;
  /// Variables that held the root's storage at the write: a copy of its
  /// handle, or a view of it other than the one written.
  llvm::SmallVector<const VarDecl *, 2> RootHolders;
  /// Those of them that held a view of the root, with its value there.
  llvm::SmallVector<std::pair<const VarDecl *, AliasValue>, 2> HeldViews;
  /// For a libtorch operator: every tensor argument of the call (the written
  /// ones included), for checks that compare the operands with the target.
  llvm::SmallVector<WriteOperand, 4> Operands;
  /// The analysis (function or lambda body) the write was found in.
  const FunctionAliasAnalysis *Owner = nullptr;
  unsigned Block = 0, Element = 0;
};

/// How a tensor outlives the statement that uses it.
enum class EscapeKind {
  Returned, ///< returned (directly, or inside a returned braced list)
  Stored,   ///< assigned to a member, a global or a reference parameter, or
            ///< put into a container that is not a local of the function
  Captured, ///< captured by copy in a lambda, which may run later
  Kept,     ///< passed to a function of the translation unit that keeps it
};

// Note [Escapes]
// A tensor escapes a function when something outside the call can still
// reach it after the call returns: the function returns it, stores it where
// the caller or the object can see it, captures it by copy in a lambda, or
// passes it to a function that keeps it. A tensor that is only read or copied
// from (`storage[i].copy_(t)`) does not escape. Unknown callees are assumed
// not to keep their arguments, except the storing methods of standard
// containers. Every check that asks "does this tensor escape" asks
// AliasAnalysisContext::keepsArgument or reads FunctionAliasAnalysis::escapes.

/// A tensor escaping the function being analysed, with its value there.
struct EscapeEvent {
  const Expr *Where = nullptr; ///< The escaping expression.
  AliasValue Value;
  EscapeKind Kind = EscapeKind::Returned;
  llvm::StringRef Into; ///< The member, container or callee, if named.
  const FunctionAliasAnalysis *Owner = nullptr;
  unsigned Block = 0, Element = 0;
};

/// What a function of the translation unit does to its tensor parameters.
struct FunctionSummary {
  struct ParameterWrite {
    unsigned Index;
    const Expr *Site;
    /// For a written parameter: written through a view of it (Site is such
    /// a write), not only as a whole.
    bool ThroughView = false;
    /// Written through its `data()` or `detach()` (Site is such a write,
    /// DetachSite the call that detached it): Note [Helpers that write
    /// through data() or detach()].
    const Expr *DetachSite = nullptr;
    llvm::StringRef DetachOperator;
    /// The parameter, of the definition Site is in: for a call that runs
    /// one of several definitions, the one that writes or keeps it.
    const ParmVarDecl *Parameter = nullptr;
  };
  std::vector<ParameterWrite> WrittenParameters;
  /// Parameters whose elements the function writes through an accessor or
  /// a data pointer (Note [Element writes through an accessor]); DetachSite
  /// is the `accessor()` or `data_ptr()` call.
  std::vector<ParameterWrite> RawWrittenParameters;
  /// Parameters the function keeps beyond the call (Note [Escapes]).
  std::vector<ParameterWrite> KeptParameters;
  /// The parameter whose alias the function returns, and how it relates.
  std::optional<unsigned> ReturnsAliasOf;
  Relation ReturnRelation = Relation::Handle;
  bool ReturnsFresh = false;
  /// The function returns a from_blob tensor (origin external), not a copy.
  bool ReturnsExternal = false;
  /// The member the function returns a view of (not the member's handle).
  const FieldDecl *ReturnsViewOfMember = nullptr;
  Relation MemberViewRelation = Relation::DefiniteView;
  /// The operator that made that view (`select`, `narrow`, ...).
  llvm::StringRef MemberViewOperator;
  /// For a method: the members of its object it writes in place, through
  /// `this` or through its own methods, each with one write.
  std::vector<std::pair<const FieldDecl *, const Expr *>> WrittenMembers;
  /// The tensor members of objects it is given that it writes in place
  /// (`track.P.sub_(...)` for a parameter `Track &track`), each with one
  /// write (Note [Members of an argument written by a helper]).
  struct ParameterMemberWrite {
    unsigned Index;
    const FieldDecl *Member;
    const Expr *Site;
    /// Written through the member's `data()` or `detach()`, as for
    /// ParameterWrite.
    const Expr *DetachSite = nullptr;
    llvm::StringRef DetachOperator;
  };
  std::vector<ParameterMemberWrite> WrittenParameterMembers;

  bool keeps(unsigned Index) const {
    return llvm::any_of(KeptParameters,
                        [&](const ParameterWrite &P) { return P.Index == Index; });
  }
};

/// Per-translation-unit state shared by the analyses of its functions.
class AliasAnalysisContext {
public:
  AliasAnalysisContext(ASTContext &AST, const OperatorTable &Table)
      : AST(AST), Table(Table), Targets(AST) {}

  ASTContext &ast() const { return AST; }
  /// Interns a name so that AliasValue and WriteEvent can point at it.
  llvm::StringRef intern(llvm::StringRef Name) {
    return Names.insert(Name).first->getKey();
  }
  const OperatorTable &table() const { return Table; }

  /// The summary of Callee, or null if it has no body here, is libtorch's or
  /// is being computed (recursion).
  const FunctionSummary *summary(const FunctionDecl *Callee);

  /// The summary of what Call runs: its callee's, or for a call that
  /// chooses its code at run time the merge of its targets' summaries (Note
  /// [Calls that run code chosen at run time]). Null when nothing is known.
  const FunctionSummary *callSummary(const CallExpr *Call);

  /// The definitions each call may run.
  CallTargets &callTargets() { return Targets; }

  /// The analysis of Function, run on first request.
  const FunctionAliasAnalysis &analyze(const FunctionDecl *Function);

  /// Whether the call or construction keeps its argument Arg (Note
  /// [Escapes]); std::nullopt when the callee has no summary here.
  std::optional<bool> keepsArgument(const Expr *CallOrConstruct, unsigned Arg);

  /// For a call that returns one of its arguments' handle unchanged: an
  /// in-place operator's `self`, or a function of this translation unit that
  /// returns its parameter (`assign(w, v)` returning `w`). Null otherwise.
  const Expr *returnedArgument(const CallExpr *Call);

private:
  ASTContext &AST;
  const OperatorTable &Table;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionSummary>>
      Summaries;
  llvm::DenseSet<const FunctionDecl *> InProgress;
  CallTargets Targets;
  /// Per dispatching call, its merged summary (owned by MergedSummaries) or
  /// its one target's.
  llvm::DenseMap<const CallExpr *, const FunctionSummary *> CallSummaries;
  std::vector<std::unique_ptr<FunctionSummary>> MergedSummaries;
  llvm::StringSet<> Names;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionAliasAnalysis>>
      Analyses;
};

using AliasEnvironment = llvm::DenseMap<const VarDecl *, AliasValue>;

/// The dataflow over one function body (or one lambda body, seeded with the
/// values of its captures).
class FunctionAliasAnalysis {
public:
  FunctionAliasAnalysis(const FunctionDecl *Function, const Stmt *Body,
                        AliasAnalysisContext &Context,
                        FunctionAliasAnalysis *Parent = nullptr,
                        AliasEnvironment Seed = AliasEnvironment());

  const FunctionDecl *function() const { return Function; }
  AliasAnalysisContext &context() const { return Context; }
  /// The outermost function, for a lambda body the function that holds it.
  const FunctionDecl *enclosingFunction() const { return Enclosing; }
  /// For a lambda body, the analysis of the body that holds it.
  const FunctionAliasAnalysis *parent() const { return Parent; }
  bool built() const { return Cfg != nullptr; }

  /// Every in-place write, including those in lambda bodies, in source order.
  const std::vector<WriteEvent> &writes() const { return Writes; }

  /// Calls to methods of the translation unit that write members of their
  /// object in place (FunctionSummary::WrittenMembers), one per member: the
  /// Target is the object, the Value's root the member, CalleeWrite the
  /// write in the method. Kept apart from writes(): only the stale-view
  /// rule reads them (Note [A view read after its base changed]).
  const std::vector<WriteEvent> &memberWrites() const { return MemberWrites; }

  /// Element writes through an accessor or a data pointer of a tensor (Note
  /// [Element writes through an accessor]), and calls of functions of the
  /// translation unit that make them on an argument: the Target is the
  /// tensor, the Value detached at the `accessor()` or `data_ptr()` call.
  /// Kept apart from writes(): only libtorch-detached-write reads them.
  const std::vector<WriteEvent> &rawWrites() const { return RawWrites; }

  /// Every escape of a tensor (Note [Escapes]), lambda bodies included.
  const std::vector<EscapeEvent> &escapes() const { return Escapes; }

  /// Whether Escape happens before Write on some path. Both must belong to
  /// this analysis (their Owner).
  bool isBefore(const EscapeEvent &Escape, const WriteEvent &Write) const;

  /// The join of every returned value.
  const std::optional<AliasValue> &returned() const { return Returned; }

  /// Whether Root, or another holder of it, is referenced after Write on some
  /// path (the write's own statement excluded). A path ends where Root is
  /// rebound (`t = ...`), since later references see the new tensor. Ask
  /// Write.Owner.
  bool isReferencedAfter(const WriteEvent &Write, const ValueDecl *Root) const;

  /// A reference to the local variable Var after Write, on some path, that
  /// reads it: not the target of an in-place write, and before Var is
  /// declared or rebound again (a path ends at either, and at a write of
  /// Var). Null if there is none. Ask Write.Owner.
  const DeclRefExpr *readAfter(const WriteEvent &Write, const VarDecl *Var) const;

  /// The variable declared or assigned with AliasSite as its whole
  /// initializer, if any; fix-its only touch such variables. Lambda bodies
  /// share the map of the function that holds them.
  const VarDecl *viewBinding(const Expr *AliasSite) const {
    return outermost().ViewBindings.lookup(AliasSite);
  }

  /// The value of E in Environment.
  AliasValue evaluate(const Expr *E, const AliasEnvironment &Environment) const;

private:
  void run(AliasEnvironment Seed);
  AliasEnvironment entryEnvironment(const CFGBlock &Block,
                                    const std::vector<AliasEnvironment> &Exits,
                                    const AliasEnvironment &Seed) const;
  void transfer(const Stmt *S, AliasEnvironment &Environment, bool Record,
                unsigned Block, unsigned Element);
  void bind(const VarDecl *Var, AliasValue Value, const Expr *Init,
            AliasEnvironment &Environment, bool Record);
  /// A write at Site of Target, with Target's value there.
  WriteEvent newWrite(const Expr *Site, const Expr *Target,
                      llvm::StringRef Operator,
                      const AliasEnvironment &Environment, unsigned Block,
                      unsigned Element);
  void recordWrites(const CallExpr *Call, const AliasEnvironment &Environment,
                    unsigned Block, unsigned Element);
  void recordParameterMemberWrites(const CallExpr *Call,
                                   const FunctionSummary &Summary,
                                   const AliasEnvironment &Environment,
                                   unsigned Block, unsigned Element);
  void recordRawWrites(const Stmt *S, const AliasEnvironment &Environment,
                       unsigned Block, unsigned Element);
  void recordMemberWrites(const CXXMemberCallExpr *Call,
                          const AliasEnvironment &Environment, unsigned Block,
                          unsigned Element);
  void recordEscapes(const Stmt *S, const AliasEnvironment &Environment,
                     unsigned Block, unsigned Element);
  void recordEscape(const Expr *E, EscapeKind Kind, llvm::StringRef Into,
                    const AliasEnvironment &Environment, unsigned Block,
                    unsigned Element);
  void analyzeLambda(const LambdaExpr *Lambda,
                     const AliasEnvironment &Environment);
  AliasValue evaluateCall(const CallExpr *Call,
                          const AliasEnvironment &Environment) const;
  AliasValue variableValue(const VarDecl *Var,
                           const AliasEnvironment &Environment) const;
  void indexReferences();
  const FunctionAliasAnalysis &outermost() const {
    return Parent ? Parent->outermost() : *this;
  }
  FunctionAliasAnalysis &outermost() { return Parent ? Parent->outermost() : *this; }

  const FunctionDecl *Function;
  FunctionAliasAnalysis *Parent;
  const FunctionDecl *Enclosing;
  const Stmt *Body;
  AliasAnalysisContext &Context;
  std::unique_ptr<CFG> Cfg;
  std::vector<WriteEvent> Writes;
  std::vector<WriteEvent> MemberWrites;
  std::vector<WriteEvent> RawWrites;
  std::vector<EscapeEvent> Escapes;
  std::optional<AliasValue> Returned;
  llvm::DenseMap<const Expr *, const VarDecl *> ViewBindings;
  llvm::DenseMap<const VarDecl *, const Expr *> RangeForInits;
  /// Per block, the declarations referenced by each element, the variables
  /// each element rebinds (`t = ...`), and those it declares.
  struct Reference {
    unsigned Element;
    const ValueDecl *Decl;
    bool Rebinds;
    const Expr *Ref = nullptr; ///< The reference, for one that is no rebinding.
    bool Declares = false;
  };
  std::vector<std::vector<Reference>> References;
  std::vector<std::unique_ptr<FunctionAliasAnalysis>> Lambdas;
};

/// A cheap syntactic pre-pass: whether Body contains an in-place tensor write
/// or a call that passes a tensor to a function defined in this translation
/// unit. The dataflow runs only on functions for which this holds.
bool mayWriteTensors(const Stmt *Body, const OperatorTable &Table);

/// Whether Callee is a function of the user's code with a body here, so that
/// it has a summary: not libtorch's, not the standard library's, not in a
/// system header.
bool isSummarizable(const FunctionDecl *Callee, const ASTContext &AST);

/// A method of a standard container that keeps its argument (`push_back`,
/// `insert`, `emplace`, ...).
bool isStoringMethod(const CXXMethodDecl *Method);

/// Human-readable names used in diagnostics.
llvm::StringRef describeOrigin(Origin O);

} // namespace clang::tidy::libtorch

#endif
