//===- AutogradAnalysis.h - what autograd still needs in one function -----===//
//
// Problem: a write through `.data()` or `detach()` is harmless on a tensor
// autograd does not know about and corrupts gradients (or makes backward
// throw) on one that is part of a graph that is still to be differentiated.
// Whether a tensor requires grad is a run-time property.
//
// Simplification: facts are read from the function's source, in source order:
// - a tensor requires grad if it is a module parameter (a member of a class
//   derived from torch::nn::Module, or the variable of a loop over
//   `parameters()`), or was created with `requires_grad(true)` options, or
//   had `requires_grad_()`/`set_requires_grad(true)` called on it (for a
//   member of another class: where its constructors initialise it);
// - a local is a graph result if it is initialised by a module's output
//   (`net->forward(x)`, `net(x)`), or its initializer or an assignment to it
//   reads a tensor that requires grad or is itself a graph result;
// - a tensor is used in the graph before a write if an initializer or an
//   assignment that precedes the write reads it;
// - the graph is still needed at a write if `backward()` (or
//   torch::autograd::backward/grad) is called after it, or if the function
//   is a module's `forward` and returns a tensor computed from it;
// - the parameter-update idiom is a write in a block that declares a
//   NoGradGuard (or InferenceMode, AutoGradMode) before it, or in a range-for
//   loop over `parameters()`, `params()` or `named_parameters()`.
//
// - given the operator and saved-tensor tables, an operator call saves what
//   the measured table says it saves (Note [Saved tensors]) when grad mode
//   is on and one of its operands is part of a graph; the call's result flows
//   into the variable its initializer or assignment defines, and a backward
//   needs what it saved when the tensor backward starts from reads that
//   variable, directly or through later initializers and assignments.
//
// - a function that builds a graph and returns it is differentiated where a
//   caller of the translation unit runs a backward from its result (Note [A
//   graph returned to the caller]); a function that returns what one of its
//   operations saved hands the save to its caller (Note [Saved by a
//   function that returns it]). Toward the backward, callers that return
//   the graph on are followed (Note [A graph returned through several
//   callers]); one level of call is followed toward the save.
//
// Limitations: parameters read implicitly by a module call (`model(x)`) are
// not seen as used in the graph, nor what a module call saves; a backward
// call that precedes the write in the source but follows it in a loop's next
// iteration is not seen; a tensor saved inside a braced list (`torch::cat`)
// or a container is not followed; saves are ordered by source position, so a
// save and a write in the two branches of an `if` are taken to follow each
// other.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_AUTOGRADANALYSIS_H
#define TORCHALIAS_ANALYSIS_AUTOGRADANALYSIS_H

#include "ModuleState.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

class OperatorTable;
class SavedTensorTable;

/// A call that saved a tensor for backward.
struct SavedTensor {
  const CallExpr *Saver = nullptr;
  std::string Operator; ///< The table's name for it, e.g. "exp".
  const ValueDecl *Tensor = nullptr;
  bool IsResult = false; ///< Saved as the call's result, else as an input.
  /// Saved whatever else requires grad: the result, an input of a call with
  /// one tensor operand, or an input next to another operand of the graph.
  /// Otherwise the table's "most it saves" may not apply (`x.mul(w)` saves
  /// `w` only if `x` requires grad).
  bool Definite = false;
  /// The variable the saving call's result flows into.
  const ValueDecl *Consumer = nullptr;
  /// Where Saver calls a function of the translation unit that returns what
  /// an operation in it saved (Note [Saved by a function that returns it]):
  /// that operation.
  const CallExpr *Inner = nullptr;
};

/// An operation of a function that saved its result for backward, and the
/// member of the returned struct that holds it (null: the returned tensor):
/// what the function hands its caller (Note [Saved by a function that
/// returns it]).
struct ReturnedSave {
  const CallExpr *Saver = nullptr;
  std::string Operator;
  const FieldDecl *Field = nullptr;
  /// The element of a returned std::tuple or std::pair that holds it.
  std::optional<unsigned> Element;
  /// For a parameter of the function that an operation in it saved as an
  /// input (Note [Saved by a function of its arguments]): its index. Field
  /// and Element are unset; Definite says whether the operation saves it
  /// whatever else requires grad.
  std::optional<unsigned> Parameter;
  bool Definite = true;
};

/// A module call whose forward saved the module's state for a backward
/// (ModuleStateAnalysis::savedBy says which), made with grad mode on.
struct ModuleSave {
  ModuleCall Call;
  /// The variable the call's result flows into.
  const ValueDecl *Consumer = nullptr;
};

/// For a call of a function of the translation unit that runs the forward
/// of a module it is given and returns a tensor (`critic_loss(critic, x)`):
/// that forward as a call of the module the caller passes (Note [A forward
/// inside a helper]).
std::optional<ModuleCall> helperForward(const CallExpr *Call);

/// A call, in another function of the translation unit, that runs a
/// backward from what a function returns (Note [A graph returned to the
/// caller]), directly or through callers that return it on (Note [A graph
/// returned through several callers]).
struct CallerBackward {
  const CallExpr *Call = nullptr;
  SourceLocation Backward;
  /// The function's parameters whose argument is part of the caller's graph.
  llvm::SmallVector<const ParmVarDecl *, 4> GraphParams;
  /// The calls of the callers that return the graph on, innermost first:
  /// Backward is in the function that makes the last of them.
  llvm::SmallVector<const CallExpr *, 2> Through;
};

/// The calls of the main file's functions, by the callee's canonical
/// declaration, each with the function it is in.
class MainFileCalls {
public:
  explicit MainFileCalls(ASTContext &AST);
  llvm::ArrayRef<std::pair<const CallExpr *, const FunctionDecl *>>
  of(const FunctionDecl &Callee) const;

private:
  llvm::DenseMap<const FunctionDecl *,
                 llvm::SmallVector<std::pair<const CallExpr *, const FunctionDecl *>, 2>>
      Calls;
};

/// The first call of Function, in another function of the main file, whose
/// result a backward of the caller starts from, or that a caller returns on
/// to one that does; none when Function is not given such a call or returns
/// nothing that holds a tensor.
/// Whether Function is a module's `forward` whose every call in the main
/// file runs with grad disabled: in a no-grad scope, or in a function whose
/// own calls all do (Note [Forwards run only without grad]). False for a
/// forward the main file never calls.
bool forwardRunsOnlyWithoutGrad(const FunctionDecl &Function,
                                const MainFileCalls &Calls);

std::optional<CallerBackward> callerBackward(const FunctionDecl &Function,
                                             const MainFileCalls &Calls,
                                             ASTContext &AST,
                                             const OperatorTable *Ops);

/// A tensor, or a value whose copy copies tensor handles: a container of
/// them or a user's struct of them. A backward from such a value starts
/// from the tensors it holds.
bool carriesTensors(QualType Type);

/// A member made to require grad where its class initialises it:
/// `w_(torch::randn({4, 4}).requires_grad_())`, a default member
/// initializer, or `w_.requires_grad_()` or an assignment in a
/// constructor's body.
bool memberRequestsGrad(const FieldDecl *Field);

/// Whether S declares a guard that disables grad mode (`NoGradGuard`,
/// `AutoGradMode(false)`, `InferenceMode`) for the rest of its block.
bool declaresNoGradGuard(const Stmt *S);

/// Whether Function's body declares such a guard anywhere.
bool disablesGradMode(const FunctionDecl &Function);

class AutogradAnalysis {
public:
  /// Without tables, nothing is known to be saved (savedFor is always null).
  /// With Caller, what the function returns is differentiated by that
  /// caller, and the parameters it names are part of the graph.
  /// With Differentiated, what the function returns is differentiated by its
  /// callers, as a module's `forward` is (Note [Methods that build a
  /// graph]).
  /// RunsWithoutGrad says that a module's forward is only ever run with grad
  /// disabled (Note [Forwards run only without grad]), so its return is no
  /// backward.
  AutogradAnalysis(const FunctionDecl &Function, ASTContext &AST,
                   const OperatorTable *Ops = nullptr,
                   const SavedTensorTable *Saved = nullptr,
                   const CallerBackward *Caller = nullptr,
                   bool Differentiated = false, bool RunsWithoutGrad = false);

  /// The latest call before Write that saved Root (not rebound since) for a
  /// backward that follows Write and starts from a tensor computed from that
  /// call's result; with DefiniteOnly, only a Definite one.
  const SavedTensor *savedFor(const ValueDecl *Root, const Expr *Write,
                              bool DefiniteOnly) const;

  /// The members of a class that an operation of the function saved for
  /// backward, whatever its result flows into.
  const llvm::SmallPtrSetImpl<const FieldDecl *> &savedMembers() const {
    return SavedMembers;
  }

  /// The module calls of the function whose result flows into a variable,
  /// in source order, when a backward follows somewhere.
  const std::vector<ModuleSave> &moduleSaves() const { return ModuleSaves; }
  /// Where the first backward after After that starts from a tensor
  /// computed from Save's result runs.
  std::optional<SourceLocation> backwardNeeding(const ModuleSave &Save,
                                                const Expr *After) const;

  /// Where the first backward after After that starts from a tensor
  /// computed from Save's result runs.
  std::optional<SourceLocation> backwardNeeding(const SavedTensor &Save,
                                                const Expr *After) const;

  /// Where the first backward after Call, with grad mode on at Call,
  /// starts from a tensor computed from Call's result.
  std::optional<SourceLocation> backwardFromResultOf(const CallExpr *Call);
  /// E takes part in a graph where At runs.
  bool carriesGraph(const Expr *E, const Expr *At) const {
    return isPartOfGraph(E, At->getBeginLoc());
  }
  /// The caller that differentiates what the function returns, if any.
  const CallerBackward *caller() const {
    return Caller ? &*Caller : nullptr;
  }
  /// Loc is a return of a graph the caller differentiates.
  bool isReturnOfGraph(SourceLocation Loc) const {
    return llvm::is_contained(GraphReturns, Loc);
  }

  /// A module parameter or a tensor made to require grad.
  bool requiresGrad(const ValueDecl *Root) const;
  /// Computed, before Write, from a tensor that requires grad.
  bool isGraphResult(const ValueDecl *Root, const Expr *Write) const;
  /// Read by an initializer or assignment of another tensor before Write.
  bool isUsedInGraphBefore(const ValueDecl *Root, const Expr *Write) const;
  /// The function calls backward (or torch::autograd::backward/grad).
  bool hasBackward() const { return !BackwardCalls.empty(); }
  /// A backward call follows Write.
  bool isBackwardAfter(const Expr *Write) const;
  /// Write is in a no-grad scope or an optimizer-style loop over parameters.
  bool isParameterUpdate(const Expr *Write) const;
  /// Write follows a NoGradGuard (or InferenceMode, AutoGradMode) declared
  /// in an enclosing block of the function.
  bool isInNoGradScope(const Expr *Write) const;

private:
  struct GraphEdge {
    const ValueDecl *Result;
    const ValueDecl *Input;
    SourceLocation Where;
  };
  void collect(const Stmt *S);
  void collectSaves(const Stmt *S);
  void recordSave(const CallExpr *Call);
  /// Note [Custom autograd functions].
  void recordCustomSave(const CallExpr *Call, llvm::ArrayRef<unsigned> Positions,
                        llvm::StringRef Name);
  void recordHelperSave(const CallExpr *Call);
  bool isPartOfGraph(const Expr *E, SourceLocation Before) const;
  /// The call's result reaches its consumer through `detach()` or `data()`,
  /// out of the graph.
  bool isDetachedOnItsWay(const CallExpr *Call) const;
  const ValueDecl *consumerOf(const CallExpr *Call);
  /// The member of `this` that Call's whole result (or a view of it) is
  /// assigned to, or null.
  const FieldDecl *memberAssignedResult(const CallExpr *Call) const;
  const Expr *stripViews(const Expr *E) const;
  const ValueDecl *viewedDecl(const Expr *E) const;
  const FieldDecl *savedMember(const Expr *E) const;
  bool dependsOn(const ValueDecl *Tensor, const ValueDecl *On,
                 llvm::DenseSet<const ValueDecl *> &Seen) const;
  bool isReboundBetween(const SavedTensor &Save, const Expr *Write) const;
  void collectReads(const Stmt *S, const ValueDecl *Result, SourceLocation Where);
  bool isBefore(SourceLocation A, SourceLocation B) const;
  bool isGraphResult(const ValueDecl *Root, SourceLocation Before,
                     llvm::DenseSet<const ValueDecl *> &Seen) const;

  ASTContext &AST;
  /// Parents within the function body only: ASTContext::getParents would
  /// build a map of the whole translation unit, libtorch's headers included.
  ParentMap Parents;
  llvm::DenseSet<const ValueDecl *> RequiresGrad;
  llvm::DenseSet<const ValueDecl *> ModuleOutputs;
  /// Parameters whose argument is part of the caller's graph.
  llvm::DenseSet<const ValueDecl *> CallerGraph;
  llvm::SmallVector<SourceLocation, 2> GraphReturns;
  mutable llvm::DenseMap<const FieldDecl *, bool> MemberGrad;
  /// What each function of the translation unit called here returns that
  /// it saved, read once.
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<ReturnedSave, 2>>
      HelperSaves;
  std::vector<GraphEdge> Edges;
  /// The first backward after After, not skipped, that starts from a tensor
  /// computed from Consumer.
  std::optional<SourceLocation>
  backwardFrom(const ValueDecl *Consumer, const Expr *After,
               llvm::function_ref<bool(SourceLocation)> Skip) const;

  llvm::SmallVector<SourceLocation, 4> BackwardCalls;
  /// Per backward call, the tensors it starts from (object and arguments).
  std::vector<
      std::pair<SourceLocation, llvm::SmallVector<const ValueDecl *, 2>>>
      BackwardRoots;
  /// Assignments `t = ...` to tensor variables.
  std::vector<std::pair<const ValueDecl *, SourceRange>> Rebinds;
  /// Those whose right-hand side does not read the variable.
  std::vector<std::pair<const ValueDecl *, SourceRange>> FreshRebinds;
  const OperatorTable *Ops;
  const SavedTensorTable *Saved;
  std::vector<SavedTensor> Saves;
  llvm::SmallPtrSet<const FieldDecl *, 4> SavedMembers;
  std::vector<ModuleSave> ModuleSaves;
  /// Saving calls whose whole result (or a view of it) a variable holds.
  llvm::DenseMap<const CallExpr *, const ValueDecl *> ResultHolders;
  llvm::SmallVector<SourceRange, 4> ParameterLoops;
  /// The function is a module's `forward` (Note [A module's forward is
  /// differentiated]), or a caller differentiates what it returns.
  bool ReturnsGraph = false;
  std::optional<CallerBackward> Caller;
};

} // namespace clang::tidy::libtorch

#endif
