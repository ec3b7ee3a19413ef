//===- ModuleState.h - what a module's forward saves, what writes it -----===//
//
// Problem: a module call (`net(x)`, `net->forward(x)`) saves some of the
// module's parameters and buffers for backward: a Linear layer its weight,
// a user's module whatever its forward's operations save. A write into that
// state between the forward and the backward that differentiates it makes
// backward throw (through `detach()`, or a direct write under a
// NoGradGuard) or silently compute wrong gradients (through `.data()`): the
// weight clipping or renormalisation placed before `backward()`, a setter
// that `copy_()`s into a buffer. The write is often in a helper, or in a
// method of another object that holds the module.
//
// Approach: facts about modules and functions, read from the source of the
// translation unit and from the measured tables:
// - which members a module class's forward saves (ModuleStateAnalysis::
//   savedBy): a library module's from the API effect table (`saves_members`
//   of torch::nn::Linear), a user's module's from the operations of its
//   forward (AutogradAnalysis) and the module calls it makes;
// - which module state a function writes in place (writesOf): a tensor
//   member (`net->pool->p.clamp_(...)`, `inv_temp_.copy_(...)`), or every
//   parameter of a module (a loop over `critic->parameters()`), directly,
//   through views, `.data()` and `detach()`, or through the functions of the
//   translation unit it calls, with the module each write reaches named
//   relative to the function (a parameter, `this`, or a variable of its
//   own).
//
// Simplifications, and what they cost:
// - Targets are followed syntactically: through views, local initializers
//   and loops over `parameters()`/`named_parameters()`/`buffers()`. A tensor
//   reached any other way is not module state.
// - A module instance is the variable its handle starts from (`net` in
//   `net->pool`); members that are not modules end the path, and a write
//   whose module cannot be named that way is matched by class only.
// - A library module the table does not measure saves an unknown set of
//   members: only writes of every parameter match it.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_MODULESTATE_H
#define TORCHALIAS_ANALYSIS_MODULESTATE_H

#include "OperatorTable.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// Which module instance an expression reaches, relative to the function
/// it is in: a variable (or parameter) holding a module handle, `this` of a
/// module class, or neither (Unknown); then the submodule members on the
/// way from that root (`item_emb` in `this->item_emb`, `enc` in
/// `model->enc`), outermost first.
struct ModuleInstance {
  enum class Kind { Unknown, Variable, This };
  Kind Of = Kind::Unknown;
  const ValueDecl *Variable = nullptr;
  llvm::SmallVector<const ValueDecl *, 2> Path;

  bool known() const { return Of != Kind::Unknown; }
  bool operator==(const ModuleInstance &Other) const {
    return Of == Other.Of && Variable == Other.Variable && Path == Other.Path;
  }
  /// Whether the two may share state: either is unknown, or they have one
  /// root and one path leads into the other (a module holds its
  /// submodules' state; two sibling submodules share none).
  bool mayOverlap(const ModuleInstance &Other) const {
    if (!known() || !Other.known())
      return true;
    if (Of != Other.Of || Variable != Other.Variable)
      return false;
    size_t Common = std::min(Path.size(), Other.Path.size());
    return std::equal(Path.begin(), Path.begin() + Common, Other.Path.begin());
  }
  /// This instance, then the path of Inner, an instance relative to it.
  ModuleInstance then(const ModuleInstance &Inner) const {
    ModuleInstance Result = *this;
    if (Result.known())
      Result.Path.append(Inner.Path.begin(), Inner.Path.end());
    return Result;
  }
};

/// A call that runs a module's forward, or another method of a module class
/// that builds a graph and returns it (Note [Methods that build a graph]).
struct ModuleCall {
  const CallExpr *Call = nullptr;
  const CXXRecordDecl *Impl = nullptr; ///< The module class.
  const Expr *Module = nullptr;        ///< The handle or object called.
  /// The method called, when it is not `forward`.
  const CXXMethodDecl *Method = nullptr;
};

/// `net(x)`, `net->forward(x)`, `net.forward(x)`, `(*net)(x)`.
std::optional<ModuleCall> moduleCallOf(const CallExpr *Call);

/// `policy.step(obs)`: a call of a method of a module class of the
/// translation unit, other than `forward`, that returns tensors and does not
/// disable grad mode (Note [Methods that build a graph]).
std::optional<ModuleCall> graphMethodCallOf(const CallExpr *Call);

/// Whether the tensor member Field is a parameter: registered with
/// `register_parameter`, or a public tensor member of a library module.
bool isRegisteredParameter(const FieldDecl *Field);

/// The module instance a module expression (`net`, `net->pool`, `*model`,
/// `this`) starts from; Unknown when the path leaves modules.
ModuleInstance moduleInstanceOf(const Expr *Module);

/// The expressions that construct the module a module expression names:
/// a variable's initializer, or a member's default initializer,
/// constructor initializer and assignments in its class's constructors
/// (`act = register_module("act", ReLU(...))`), empty holders (`{nullptr}`)
/// left out. Empty when they cannot be found (a parameter).
llvm::SmallVector<const Expr *, 2> moduleConstructions(const Expr *Module);

/// Whether the tensor member Field is registered as a buffer in its class's
/// constructors (`scale_ = register_buffer("scale", ...)`), so that it
/// does not require grad.
bool isRegisteredBuffer(const FieldDecl *Field);

/// An in-place write into the state of a module.
struct ModuleStateWrite {
  /// The member written; null when every parameter of the module is
  /// (a loop over its `parameters()`).
  const FieldDecl *Member = nullptr;
  /// The module class whose parameters are written, when Member is null.
  const CXXRecordDecl *Module = nullptr;
  /// The module reached, relative to the function the write belongs to.
  ModuleInstance Instance;
  const Expr *Site = nullptr; ///< The writing call, in any function.
  /// The call of the function the write is relative to that makes it:
  /// Site itself, or the call of the function that holds Site.
  const CallExpr *Call = nullptr;
  /// Through `.data()` or `.variable_data()`, the spelling it uses: no
  /// version bump.
  std::string ThroughData;
  bool ThroughDetach = false; ///< Through `detach()`.
  /// The write is in a no-grad scope of its own function, so autograd
  /// allows it on a parameter (a leaf that requires grad).
  bool InNoGradScope = false;
};

/// What a module's forward saves for backward.
struct SavedModuleState {
  llvm::SmallPtrSet<const FieldDecl *, 4> Members;
  /// It calls a module whose saves are not known.
  bool Unknown = false;

  bool savesAny() const { return Unknown || !Members.empty(); }
};

/// Per translation unit: the module facts above, memoised.
class ModuleStateAnalysis {
public:
  explicit ModuleStateAnalysis(const OperatorTable &Ops) : Ops(Ops) {}

  /// The members a call of Impl's forward saves for backward, the module
  /// calls it makes included.
  const SavedModuleState &savedBy(const CXXRecordDecl *Impl);
  /// What Call saves: its forward's saves, or its method's.
  const SavedModuleState &savedBy(const ModuleCall &Call);

  /// The module state a call in Caller of a function of the translation
  /// unit writes, with each write's module named relative to Caller: the
  /// callee's parameters bound to the call's arguments, its `this` to the
  /// call's object. A tensor parameter the callee writes is module state
  /// when the argument is.
  std::vector<ModuleStateWrite> writesAt(const CallExpr *Call,
                                         const FunctionDecl *Caller);

  /// The module state Function writes, directly and through the functions
  /// of the translation unit it calls, in source order of its calls.
  const std::vector<ModuleStateWrite> &writesIn(const FunctionDecl *Function) {
    return writesOf(Function).State;
  }

  /// Whether Write reaches state that Call's forward saved: the same module
  /// instance where both are known, the same class otherwise.
  bool reachesSavedState(const ModuleStateWrite &Write, const ModuleCall &Call);

private:
  /// A write into a tensor parameter of the function: module state or not
  /// depending on the caller's argument.
  struct ParameterWrite {
    unsigned Index;
    ModuleStateWrite Write; ///< Site and flags; no member or module yet.
  };
  struct FunctionWrites {
    std::vector<ModuleStateWrite> State;
    std::vector<ParameterWrite> Parameters;
  };
  const FunctionWrites &writesOf(const FunctionDecl *Function);
  /// `opt.step()` of an optimizer built from one module's parameters.
  std::optional<ModuleStateWrite> optimizerStep(const CallExpr *Call);
  /// What a library module's call writes of its own tensors (Note [A module
  /// call writes its own state]).
  std::vector<ModuleStateWrite> ownStateWrites(const CallExpr *Call);
  /// A write target followed to module state, or to a tensor parameter of
  /// Function (Parameter set).
  std::optional<ModuleStateWrite> follow(const Expr *Target, const Expr *Site,
                                         const FunctionDecl *Function,
                                         std::optional<unsigned> *Parameter);

  const OperatorTable &Ops;
  /// What the forward (or the method) of Impl saves, with the module calls
  /// its body makes.
  void addSaves(const FunctionDecl &Body, SavedModuleState &State);

  llvm::DenseMap<const CXXRecordDecl *, std::unique_ptr<SavedModuleState>>
      Saved;
  llvm::DenseMap<const CXXMethodDecl *, std::unique_ptr<SavedModuleState>>
      SavedByMethod;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionWrites>> Writes;
  llvm::DenseSet<const Decl *> InProgress;
};

} // namespace clang::tidy::libtorch

#endif
