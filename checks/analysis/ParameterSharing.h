//===- ParameterSharing.h - which module parameters are the same tensor ---===//
//
// Problem: libtorch's C++ `Module::parameters()` does not de-duplicate. A
// tensor registered under two names, or a module registered in two parents,
// comes back twice, and an optimizer built from the list steps it twice.
// Whether a list holds a duplicate depends on how the modules were built:
// in the constructors of module classes, through the members they register,
// and in the function that assembles the model.
//
// Approach: module and tensor identities are ObjectKeys, a root (a variable,
// a constructor parameter, `this` of a class, or the expression that made a
// fresh object) and a path of members. The constructors of each module class
// are read once into a ModuleClassModel: its registrations in source order,
// with keys relative to `this` and to the constructor's parameters. A module
// expression evaluates to a ModuleValue by following local initializers and
// instantiating the class model with the construction's arguments. A list
// expression (`m->parameters()`, a local list grown with `insert`, a brace
// list of parameter groups) evaluates to ParameterEntries, each the route of
// registrations that leads to one tensor; two entries with one key are a
// duplicate, and the routes say where the sharing came from.
//
// Simplifications, and what they cost:
// - Flow-insensitive: a local is its initializer plus the known mutations
//   anywhere in its function (`insert` of another list, `push_back` into a
//   Sequential). A variable assigned after its declaration is unknown.
// - A list is a multiset of tensor identities, built from its initializer
//   and, in source order, `push_back`/`emplace_back`/`insert`/`assign` of
//   tensors, of parameter groups and of other lists' ranges, or returned by
//   a function of the translation unit with a single `return`
//   (ParameterListBuilder in ParameterLists.h). A list grown any other way
//   (a loop filtering duplicates, a conditional `push_back`, an unknown
//   callee such as `torchalias::unique_parameters`) is unknown and never
//   reported: precision over recall.
// - Library modules (torch::nn::LinearImpl, ...) are assumed to register each
//   of their tensor members as a parameter under the member's name.
// - A constructor is chosen by its number of parameters.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_PARAMETERSHARING_H
#define TORCHALIAS_ANALYSIS_PARAMETERSHARING_H

#include "OperatorTable.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// The identity of a module or a tensor: a root and a path of members.
struct ObjectKey {
  /// A VarDecl or ParmVarDecl, the CXXRecordDecl standing for `this`, or the
  /// Expr that created a fresh object. Null when unknown.
  const void *Root = nullptr;
  /// FieldDecls, and for objects created inside a constructor the Expr or
  /// local VarDecl that made them (so that each instance gets its own key).
  llvm::SmallVector<const void *, 3> Path;

  bool known() const { return Root != nullptr; }
  ObjectKey member(const void *Field) const {
    ObjectKey Result = *this;
    if (Result.known())
      Result.Path.push_back(Field);
    return Result;
  }
  bool operator==(const ObjectKey &Other) const {
    return Root == Other.Root && Path == Other.Path;
  }
};

/// One step from the root of a list to a parameter: a registration, a
/// container element, or the `parameters()` call the list starts from.
struct RegistrationStep {
  std::string Name;           ///< "emb", "weight"; empty for a list root.
  const Expr *Site = nullptr; ///< The register_* call, construction or call.
  ObjectKey Object;           ///< The module or tensor reached.
  /// For an element of a container filled with one handle
  /// (`std::vector<Linear>(n, Linear(...))`): the fill.
  const Expr *FillSite = nullptr;
  bool View = false; ///< The tensor registered is a view of Object.
  /// The step puts a tensor into a list by hand (`push_back`, `insert`,
  /// `emplace_back`) rather than registering it.
  bool Added = false;
  /// For a handle added once per iteration of a loop that does not change
  /// it (`for (...) v.push_back(shared)`): the loop.
  const Stmt *RepeatLoop = nullptr;
  /// With RepeatLoop: the handle, or the argument of the module built, that
  /// is the same on every pass (`shared`, `root_`).
  const Expr *Repeated = nullptr;
  /// The step is a call of a function of the translation unit whose
  /// returned list holds the rest of the route; Object is unknown.
  bool Returned = false;
  /// Name is the source text of an argument that is not a literal
  /// (`register_module("layer" + std::to_string(i), ...)`), not the name
  /// libtorch gives.
  bool NameFromSource = false;
  /// The step is a push_back of the items of a loop that tests their names;
  /// Site is the push_back and Object is unknown (Note [Lists filtered by
  /// parameter name]).
  bool Filtered = false;
};

/// One tensor of a parameter list and how the list reaches it.
struct ParameterEntry {
  llvm::SmallVector<RegistrationStep, 4> Route;
  const ObjectKey &tensor() const { return Route.back().Object; }
  /// "emb.weight", as named_parameters() spells it.
  std::string name() const;
};

/// Why two entries of a list are one tensor: the two steps where their
/// routes reach the same object from different places.
struct ParameterTie {
  enum class Kind {
    SameTensor,    ///< One tensor registered twice (possibly as a view).
    SameModule,    ///< One module registered in two places.
    SameList,      ///< The parameters of one module added to a list twice.
    FilledElement, ///< Elements of a container filled with one handle.
    /// One registration statement reached through two parents, e.g. a
    /// constructor that registers its argument, given the same module twice.
    SharedArgument,
    /// The parameters() of a module and those of one of its submodules, both
    /// in the list (overlapping parameter groups).
    Overlap,
    /// A tensor added to the list by hand that the list already holds.
    AddedTensor,
    /// One handle added to a container once per iteration of a loop.
    RepeatedHandle,
    /// One parameter whose name passes the tests of two push_backs of a
    /// loop over named_parameters().
    FilteredTwice,
  };
  Kind K = Kind::SameTensor;
  std::string Parameter, OtherParameter; ///< Names of the two entries.
  const RegistrationStep *First = nullptr, *Second = nullptr;
  /// For SharedArgument: the registration both paths reach. For Overlap:
  /// the registration of the submodule.
  const RegistrationStep *Registration = nullptr;
  /// For FilledElement: the fill the elements come from.
  const Expr *fillSite() const {
    return First->FillSite ? First->FillSite : Second->FillSite;
  }
};

/// A module: its identity, the parameters it registers (directly or through
/// submodules, in registration order) and what its members hold. The model of
/// a module class is a ModuleValue whose keys are relative to the class (the
/// root standing for `this`) and to its constructor's parameters.
struct ModuleValue {
  ObjectKey Identity;
  const CXXRecordDecl *Impl = nullptr;
  std::vector<ParameterEntry> Parameters;
  /// Set for an element of a container filled with one handle.
  const Expr *FillSite = nullptr;
  std::map<const FieldDecl *, std::shared_ptr<const ModuleValue>> FieldModules;
  std::map<const FieldDecl *, ObjectKey> FieldTensors;
  /// Tensor members registered as parameters, with the name used.
  std::map<const FieldDecl *, std::string> RegisteredFields;
  /// While the constructor runs: module members registered so far, with the
  /// registration (Note [Containers filled after their registration]).
  std::map<const FieldDecl *, RegistrationStep> RegisteredModules;
};

/// The modules of a range of module handles, each with the step that names
/// it (the element, or the call that put it in a container).
using ModuleElements = std::vector<std::pair<ModuleValue, RegistrationStep>>;

class ParameterSharingAnalysis {
public:
  ParameterSharingAnalysis(ASTContext &AST, const OperatorTable &Table)
      : AST(AST), Table(Table) {}

  ASTContext &ast() const { return AST; }
  const OperatorTable &table() const { return Table; }

  /// The tensors a parameter list expression holds, in order, or
  /// std::nullopt if the list is built in a way the analysis cannot follow.
  std::optional<std::vector<ParameterEntry>> parameterList(const Expr *E);

  /// The tensors List, an expression in the body of Call's callee, holds
  /// when the callee's module parameters are the modules Call passes
  /// (Note [Sinks in helper functions]); std::nullopt if Call passes no
  /// module or the list cannot be followed.
  std::optional<std::vector<ParameterEntry>>
  parameterListThrough(const Expr *List, const CallExpr *Call);

  /// The module an expression denotes, or std::nullopt if it is not one.
  std::optional<ModuleValue> moduleValue(const Expr *E);

  /// The identity of a tensor expression, through views of it.
  ObjectKey tensorKey(const Expr *E, bool *IsView = nullptr);

  /// For `m->parameters(false)`, where `m` is the variable of a loop over
  /// `root->modules()`: every tensor the two loops visit, in order, prefixed
  /// by the modules() call. Also for `m->parameters()` where `m` walks a
  /// local container of module handles (`std::vector<Linear>`), prefixed by
  /// the step that put each element in. std::nullopt for any other list.
  std::optional<std::vector<ParameterEntry>>
  moduleLoopParameters(const Expr *List);

  /// A parameter a loop over modules() visits more than once because the
  /// inner parameters() recurses.
  struct RepeatedVisit {
    std::string Parameter;                    ///< "0.weight".
    unsigned Visits = 0;                      ///< Per pass of the loops.
    const CXXMemberCallExpr *Modules = nullptr; ///< The modules() call.
  };
  /// For `m->parameters()` (recursing) where `m` is the variable of a loop
  /// over `root->modules()` that reaches the list on every iteration: the
  /// first parameter the two loops visit more than once (Note [Recursive
  /// parameters in a loop over modules]).
  std::optional<RepeatedVisit> recursiveModuleLoop(const Expr *List);
  /// A parameter a sink's list holds more than once because it was
  /// collected in a loop over modules() whose inner parameters() recurses.
  struct CollectedVisit {
    RepeatedVisit Visit;
    const CXXMemberCallExpr *Parameters = nullptr; ///< The inner call.
    const VarDecl *List = nullptr;                 ///< The list it fills.
  };
  /// For a sink's list that is, or is built from, a local list filled with
  /// the parameters of such a pair of loops (Note [Lists collected over
  /// modules()]).
  std::optional<CollectedVisit> collectedOverModules(const Expr *ListExpr);
  /// For the range `m->parameters(false)` of Inner, a loop nested in a walk
  /// of `root->modules()` that binds `m`, whose body pushes each item into
  /// List, declared before the walk: every tensor the two loops push, in
  /// order (Note [Own parameters collected over modules()]); std::nullopt
  /// for any other loop.
  std::optional<std::vector<ParameterEntry>>
  ownParametersOverWalk(const CXXForRangeStmt *Inner, const VarDecl *List);
  /// A container of module handles filled with copies of one handle:
  /// `std::vector<Linear> v(n, Linear(...))` or `v.assign(n, ...)`.
  struct ContainerFill {
    const VarDecl *Container = nullptr;
    const Expr *Site = nullptr; ///< The container's construction, or assign.
    const Expr *Count = nullptr;
    const Expr *Value = nullptr;
  };
  /// For a list moduleLoopParameters accepts whose outer loop walks a local
  /// container of module handles: the container; null otherwise.
  const VarDecl *moduleLoopContainer(const Expr *List);

  /// The fill of a local container variable, if it has one.
  std::optional<ContainerFill> containerFill(const VarDecl *Var);
  /// The fill whose site is Site, once containerFill has seen it.
  const ContainerFill *fillAt(const Expr *Site) const;

  /// The first pair of entries of List that are one tensor.
  static std::optional<ParameterTie>
  firstTie(const std::vector<ParameterEntry> &List);

  /// What the constructor of Impl that takes NumArgs arguments registers;
  /// null for libtorch's classes, classes without a user-written constructor
  /// and while that constructor is being read (recursion).
  const ModuleValue *classModel(const CXXRecordDecl *Impl,
                                std::optional<unsigned> NumArgs);

private:
  /// Evaluates lists with this analysis's modules, tensors and state.
  friend class ParameterListBuilder;

  /// ArgsKnown is false for a module not seen constructed (a parameter, a
  /// factory's result): then the class's only constructor models it.
  ModuleValue construct(const Expr *Site, const CXXRecordDecl *Impl,
                        llvm::ArrayRef<const Expr *> Args, ObjectKey Identity,
                        bool ArgsKnown = true);
  /// Loop is the innermost loop around S in the constructor, or null.
  void readStatement(const Stmt *S, ModuleValue &Model, const Stmt *Loop);
  void insertParameter(const CXXMemberCallExpr *Insert, const FieldDecl *Field,
                       ModuleValue &Model, const Stmt *Loop);
  ObjectKey parameterElement(const CXXOperatorCallExpr *Index);
  void pushIntoMember(const CXXMemberCallExpr *Push, const FieldDecl *Field,
                      ModuleValue &Model, const Stmt *Loop);
  void bindField(const FieldDecl *Field, const Expr *Init, ModuleValue &Model,
                 const Stmt *Loop);
  void registerCall(const CXXMemberCallExpr *Call, ModuleValue &Model,
                    const FieldDecl *BoundTo, const Stmt *Loop);
  /// Loop registers Module on every pass (Note [Registrations repeated by a
  /// loop]): adds a second copy of what each pass registers again.
  void repeatRegistration(const CXXMemberCallExpr *Call,
                          const ModuleValue &Module, RegistrationStep Step,
                          const Stmt *Loop, ModuleValue &Model);
  /// Adds the entries Container gained from index Before to Model, if
  /// Field's module is registered already.
  void addToRegistered(const FieldDecl *Field, const ModuleValue &Container,
                       size_t Before, ModuleValue &Model);
  std::optional<ModuleValue> localModule(const VarDecl *Var, const Expr *Ref);
  /// An object of a class that is not a module but holds modules (Note
  /// [Objects that hold modules]).
  std::optional<ModuleValue> moduleHolderValue(const Expr *E);
  void applyModuleEdits(const VarDecl *Var, ModuleValue &Value);
  std::optional<ModuleValue> elementOf(const Expr *Container);
  /// Note [Elements of a Sequential by index].
  std::optional<ModuleValue> indexedElement(const Expr *E);
  /// The modules a local container of handles holds, each with the step
  /// that put it in (two for a fill or a loop that repeats one handle).
  std::optional<ModuleElements> handleElements(const VarDecl *Container);
  /// The modules of the (name, module) pairs a ModuleDict is built from,
  /// each with its key as the step's name (Note [Dictionaries of modules]).
  std::optional<ModuleElements> dictElements(const Expr *Pairs);
  /// Whether Arg, added in Loop, is the same handle on every iteration.
  bool sameEachIteration(const Expr *Arg, const Stmt *Loop);
  const VarDecl *loopContainerOf(const Expr *List);
  /// For Push, a mutation of List with the item Param of a loop: the
  /// repeated visit, when the loops are those of collectedOverModules.
  std::optional<CollectedVisit> collectedVisit(const CallExpr *Push,
                                               const VarDecl *Param,
                                               const VarDecl *List);
  ObjectKey freshKey(const void *Creator) const;
  const ModuleValue *modelOfThis(const CXXRecordDecl *Impl);
  std::string nameArgument(const Expr *E, bool *FromSource = nullptr) const;

  /// Where a call is: its innermost loop, and whether a branch lies between
  /// the two (an `if`, `?:`, `switch`, `&&`, `||`).
  struct CallPlace {
    const Stmt *Loop = nullptr;
    bool Conditional = false;
  };
  struct FunctionIndex {
    /// The member and operator calls on each variable, and the standard
    /// algorithms that append to it through `std::back_inserter(v)` or
    /// `std::inserter(v, ...)`.
    llvm::DenseMap<const VarDecl *, std::vector<const CallExpr *>> Calls;
    /// The calls that pass each variable to a non-const lvalue reference
    /// parameter of a function of the user's, with the argument's index
    /// (Note [Lists filled by a helper]).
    llvm::DenseMap<const VarDecl *,
                   std::vector<std::pair<const CallExpr *, unsigned>>>
        PassedByReference;
    llvm::DenseSet<const VarDecl *> Reassigned;
    /// The assignments (`operator=`) of each variable, in order.
    llvm::DenseMap<const VarDecl *, std::vector<const CXXOperatorCallExpr *>> Assignments;
    llvm::DenseMap<const VarDecl *, const Expr *> RangeInits;
    llvm::DenseMap<const VarDecl *, const CXXForRangeStmt *> RangeLoops;
    llvm::DenseMap<const CallExpr *, CallPlace> Places;
    /// The loop each nested loop is in.
    llvm::DenseMap<const Stmt *, const Stmt *> OuterLoops;
    /// The `root->apply(...)` call each lambda's closure class is handed to.
    llvm::DenseMap<const CXXRecordDecl *, const CXXMemberCallExpr *> Applies;
  };
  /// A walk over a module tree that binds a module variable (Note [Walks
  /// over modules]).
  struct ModuleWalk {
    /// `root->modules()`, `root->named_modules()` or `root->apply(...)`.
    const CXXMemberCallExpr *Call = nullptr;
    const Stmt *Body = nullptr; ///< The loop's body, or the lambda's.
    SourceLocation Begin;       ///< Where the walk starts.
    /// The lambda's parameters (the module's name, for a named apply).
    llvm::SmallVector<const ValueDecl *, 2> Bound;
  };
  std::optional<ModuleWalk> moduleWalkOf(const VarDecl *Module);
  void readConstructor(const CXXConstructorDecl *Ctor, ModuleValue &Model,
                       unsigned Level);
  static void collectIndex(const Stmt *S, FunctionIndex &Index,
                           CallPlace Place);
  std::optional<ModuleElements> mapElements(const VarDecl *Map,
                                            const FunctionIndex &Index);
  const FunctionIndex &indexOf(const VarDecl *Var);
  const FunctionIndex &indexOf(const DeclContext *Function);

  ASTContext &AST;
  const OperatorTable &Table;
  llvm::DenseMap<const CXXConstructorDecl *, std::unique_ptr<ModuleValue>>
      Models;
  /// The class whose constructor is being read, innermost last.
  llvm::SmallVector<std::pair<const CXXRecordDecl *, ModuleValue *>, 4>
      Building;
  llvm::DenseMap<const DeclContext *, std::unique_ptr<FunctionIndex>> Indexes;
  llvm::DenseMap<const Expr *, ContainerFill> Fills;
  /// Variables whose edits are being applied: inside, they are unedited.
  llvm::DenseSet<const VarDecl *> Editing;
  /// Module parameters of a helper bound to the modules a call passes.
  llvm::DenseMap<const VarDecl *, std::shared_ptr<const ModuleValue>> Bound;
  /// Container parameters of a helper bound to the range of module handles,
  /// or the parameter list, a call passes (Note [Lists built over a range of
  /// modules], Note [Lists returned by functions]).
  llvm::DenseMap<const VarDecl *, const Expr *> BoundRanges;
  /// Lists whose accumulating assignment is being applied, with their value
  /// before it (Note [Lists that accumulate by assignment]).
  llvm::DenseMap<const VarDecl *, std::vector<ParameterEntry>> CurrentLists;
  /// Variables of the loops over module handles that the list mutation
  /// being applied runs once per iteration of, and the modules of their
  /// ranges.
  llvm::DenseMap<const VarDecl *, ModuleElements> UnrolledLoops;
  /// The tensors a statement of the translation unit may freeze
  /// (`requires_grad_(false)`), found once; Frozen is unset while they are
  /// being found, and FreezesUnknown when one such statement's tensor is not
  /// known (Note [Lists filtered by requires_grad()]).
  std::optional<std::vector<ObjectKey>> Frozen;
  bool FreezesUnknown = false;
  /// The local and global variables of the main file, the roots of the
  /// objects whose requires_grad() fact can be known.
  llvm::DenseSet<const void *> NamedRoots;
  unsigned Depth = 0;
};

/// Module-type helpers shared with the checks.
const CXXRecordDecl *moduleImplOf(QualType Type);
bool isModuleHolderType(QualType Type);
bool isModuleClass(const CXXRecordDecl *Record);
/// Whether the module class Impl derives from libtorch's Cloneable, so that
/// its clone() makes a deep copy (Module::clone() throws otherwise).
bool isCloneableModule(const CXXRecordDecl *Impl);
/// Strips implicit nodes, handle copies of modules and tensors, std::move,
/// `ptr()`/`get()`/`*` on module handles.
const Expr *skipModuleHandleCopies(const Expr *E);
/// Whether E copies a module object rather than its handle
/// (`std::make_shared<NetImpl>(*online)`, `NetImpl copy = *online`), also
/// inside a handle made from the copy (Note [Modules copied by their copy
/// constructor]).
bool copiesModuleObject(const Expr *E);
/// Whether S refers to Decl: names it, or accesses it as a member.
bool mentions(const Stmt *S, const ValueDecl *Decl);

} // namespace clang::tidy::libtorch

#endif
