//===- NameFilters.cpp - the names a loop's tests let through -------------===//

#include "NameFilters.h"

#include "TensorModel.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <functional>

namespace clang::tidy::libtorch {

// Note [Lists filtered by parameter name]
// `for (auto &item : model->named_parameters()) { if (ends_with(item.key(),
// "weight")) decay.push_back(item.value()); if (is_norm(item.key()))
// no_decay.push_back(item.value()); }` puts a parameter in each list whose
// tests its name passes. The names are known where the module is (each
// entry's registration route spells it), so each test is evaluated for each
// name, as the program would: the interpreter runs std::string's own
// find/rfind/compare/substr on the name and the literals, follows locals
// that are not changed after their initialiser, constant containers of
// strings (`const std::vector<std::string> no_decay = {"bias", "norm"}`),
// std::any_of/all_of/none_of over them, set membership, and the functions
// and lambdas of the translation unit whose bodies are declarations, `if`,
// range-for over such containers and `return`. Anything else in a test, for
// any name, makes the list unknown, so a list is never guessed.
// Note [Lists filtered by requires_grad()]
// The other common test keeps the trainable parameters: `if
// (p.requires_grad())`, or `std::copy_if(all.begin(), all.end(),
// std::back_inserter(trainable), [](const Tensor &p) { return
// p.requires_grad(); })`. A parameter requires grad unless the program
// freezes it, so each entry comes with that fact where it is known (no
// statement of the translation unit may freeze it, ParameterListBuilder's
// requiresGrad) and none where it is not. A test is evaluated with the
// item's `requires_grad()` as that fact; where the fact is unknown and the
// test comes out the same either way, that is the answer, and where the
// answer turns on it, the entry is left out of the list. The list is then
// a part of the program's, never more, so a parameter it holds twice the
// program's list holds twice too.

namespace {

/// A value a test computes: a string (a character is a string of one), an
/// integer with its signedness, a truth value, or the item the iteration
/// visits (a lambda's parameter given the element).
struct Value {
  enum class Kind { String, Integer, Bool, Item } K = Kind::Bool;
  std::string S;
  uint64_t I = 0;
  bool Signed = false;
  bool B = false;

  static Value string(std::string S) {
    Value V;
    V.K = Kind::String;
    V.S = std::move(S);
    return V;
  }
  static Value integer(uint64_t I, bool Signed) {
    Value V;
    V.K = Kind::Integer;
    V.I = I;
    V.Signed = Signed;
    return V;
  }
  static Value truth(bool B) {
    Value V;
    V.B = B;
    return V;
  }
  static Value item() {
    Value V;
    V.K = Kind::Item;
    return V;
  }
};

bool isStringClass(QualType Type) {
  const auto *Record = Type.getNonReferenceType()->getAsCXXRecordDecl();
  return Record && Record->isInStdNamespace() && Record->getIdentifier() &&
         (Record->getName() == "basic_string" ||
          Record->getName() == "basic_string_view");
}

llvm::StringRef nameOf(const NamedDecl *D) {
  return D && D->getIdentifier() ? D->getName() : llvm::StringRef();
}

/// What a statement of an interpreted body does next.
enum class Flow { Next, Return, Break, Continue, Fail };

class NameTestInterpreter {
public:
  NameTestInterpreter(const VarDecl *Item, ASTContext &AST)
      : Item(Item), AST(AST) {}

  std::optional<bool> test(const Expr *Condition, const std::string &Name,
                           std::optional<bool> RequiresGrad) {
    CurrentName = &Name;
    CurrentRequiresGrad = RequiresGrad;
    Steps = 0;
    std::optional<Value> V = eval(Condition);
    if (!V)
      return std::nullopt;
    return truthOf(*V);
  }

  /// The same for a callable given the item (a std::copy_if predicate).
  std::optional<bool> testCallable(const Expr *Callable, const std::string &Name,
                                   std::optional<bool> RequiresGrad) {
    CurrentName = &Name;
    CurrentRequiresGrad = RequiresGrad;
    Steps = 0;
    std::optional<Value> V = invokeCallable(Callable, {Value::item()});
    if (!V)
      return std::nullopt;
    return truthOf(*V);
  }

private:
  std::optional<bool> truthOf(const Value &V) {
    if (V.K == Value::Kind::Bool)
      return V.B;
    if (V.K == Value::Kind::Integer)
      return V.I != 0;
    return std::nullopt;
  }

  std::optional<Value> eval(const Expr *E);
  std::optional<Value> evalVariable(const VarDecl *Var);
  std::optional<Value> evalMethod(const CXXMemberCallExpr *Call);
  std::optional<Value> evalStringMethod(llvm::StringRef Method,
                                        const std::string &S,
                                        llvm::ArrayRef<const Expr *> Args);
  std::optional<Value> evalOperatorCall(const CXXOperatorCallExpr *Call);
  std::optional<Value> evalCall(const CallExpr *Call);
  std::optional<Value> compare(BinaryOperatorKind Op, const Expr *LHS,
                               const Expr *RHS);
  std::optional<Value> membership(const Expr *LHS, const Expr *RHS);
  std::optional<Value> invoke(const FunctionDecl *Callee,
                              llvm::ArrayRef<Value> Args, bool KeepScope);
  std::optional<Value> invokeCallable(const Expr *Callable,
                                      llvm::ArrayRef<Value> Args);
  std::optional<std::vector<Value>> elements(const Expr *Range);
  Flow run(const Stmt *S);

  bool unchanging(const VarDecl *Var);

  const VarDecl *Item;
  ASTContext &AST;
  const std::string *CurrentName = nullptr;
  std::optional<bool> CurrentRequiresGrad;
  llvm::DenseMap<const VarDecl *, Value> Scope;
  std::optional<Value> Returned;
  unsigned Depth = 0;
  unsigned Steps = 0;
};

const Expr *strip(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temporary->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E))
      E = Default->getExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
             Construct && Construct->getNumArgs() >= 1 &&
             isStringClass(Construct->getType()) &&
             llvm::all_of(llvm::drop_begin(Construct->arguments()),
                          [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
      // A copy, or a string made from a literal (with the default
      // allocator).
      E = Construct->getArg(0);
    else
      return E;
  }
}

bool NameTestInterpreter::unchanging(const VarDecl *Var) {
  if (Var->getType().getNonReferenceType().isConstQualified())
    return true;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  if (!Function || !Function->getBody() || Var->getType()->isReferenceType())
    return false;
  // ExprMutationAnalyzer counts a capture by reference as a change; the
  // uses inside the lambda's body say whether it is one.
  const Stmt *Body = Function->getBody();
  llvm::SmallPtrSet<const Expr *, 4> Captures;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
      for (const Expr *Init : Lambda->capture_inits())
        if (Init)
          Captures.insert(Init->IgnoreImplicit());
  });
  ExprMutationAnalyzer Mutations(*Body, AST);
  bool Changed = false;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
        Ref && Ref->getDecl() == Var && !Captures.count(Ref))
      Changed |= Mutations.isMutated(Ref);
  });
  return !Changed;
}

std::optional<Value> NameTestInterpreter::evalVariable(const VarDecl *Var) {
  if (auto Bound = Scope.find(Var); Bound != Scope.end())
    return Bound->second;
  if (isa<ParmVarDecl>(Var) || Var == Item || !Var->getInit() ||
      !unchanging(Var) || Depth > 8)
    return std::nullopt;
  ++Depth;
  std::optional<Value> V = eval(Var->getInit());
  --Depth;
  return V;
}

std::optional<Value> NameTestInterpreter::eval(const Expr *E) {
  if (!E || ++Steps > 20000)
    return std::nullopt;
  E = strip(E);
  if (E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  if (const auto *Literal = dyn_cast<StringLiteral>(E))
    return Literal->getCharByteWidth() == 1
               ? std::optional(Value::string(Literal->getString().str()))
               : std::nullopt;
  if (const auto *Char = dyn_cast<CharacterLiteral>(E))
    return Value::string(std::string(1, static_cast<char>(Char->getValue())));
  if (const auto *Bool = dyn_cast<CXXBoolLiteralExpr>(E))
    return Value::truth(Bool->getValue());
  if (E->getType()->isIntegralOrEnumerationType() &&
      !E->getType()->isBooleanType() && !E->HasSideEffects(AST)) {
    Expr::EvalResult Result;
    if (E->EvaluateAsInt(Result, AST))
      return Value::integer(Result.Val.getInt().getZExtValue(),
                            E->getType()->isSignedIntegerType());
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return evalVariable(Var);
    return std::nullopt;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    return evalMethod(Member);
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E))
    return evalOperatorCall(Operator);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return evalCall(Call);
  if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
    std::optional<Value> Operand = eval(Unary->getSubExpr());
    if (!Operand)
      return std::nullopt;
    if (Unary->getOpcode() == UO_LNot) {
      std::optional<bool> Truth = truthOf(*Operand);
      return Truth ? std::optional(Value::truth(!*Truth)) : std::nullopt;
    }
    if (Unary->getOpcode() == UO_Minus && Operand->K == Value::Kind::Integer)
      return Value::integer(-Operand->I, Operand->Signed);
    return std::nullopt;
  }
  if (const auto *Conditional = dyn_cast<ConditionalOperator>(E)) {
    std::optional<Value> Cond = eval(Conditional->getCond());
    std::optional<bool> Truth = Cond ? truthOf(*Cond) : std::nullopt;
    if (!Truth)
      return std::nullopt;
    return eval(*Truth ? Conditional->getTrueExpr() : Conditional->getFalseExpr());
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    BinaryOperatorKind Op = Binary->getOpcode();
    if (Op == BO_LAnd || Op == BO_LOr) {
      std::optional<Value> LHS = eval(Binary->getLHS());
      std::optional<bool> Left = LHS ? truthOf(*LHS) : std::nullopt;
      if (!Left)
        return std::nullopt;
      // The right operand runs only when the left does not decide.
      if (*Left == (Op == BO_LOr))
        return Value::truth(*Left);
      std::optional<Value> RHS = eval(Binary->getRHS());
      std::optional<bool> Right = RHS ? truthOf(*RHS) : std::nullopt;
      return Right ? std::optional(Value::truth(*Right)) : std::nullopt;
    }
    return compare(Op, Binary->getLHS(), Binary->getRHS());
  }
  return std::nullopt;
}

std::optional<Value> NameTestInterpreter::compare(BinaryOperatorKind Op,
                                                  const Expr *LHS,
                                                  const Expr *RHS) {
  if (Op == BO_EQ || Op == BO_NE)
    if (std::optional<Value> Found = membership(LHS, RHS))
      return Value::truth(Found->B == (Op == BO_NE));
  std::optional<Value> L = eval(LHS), R = eval(RHS);
  if (!L || !R)
    return std::nullopt;
  if (L->K == Value::Kind::Bool && R->K == Value::Kind::Bool) {
    if (Op == BO_EQ || Op == BO_NE)
      return Value::truth((L->B == R->B) == (Op == BO_EQ));
    return std::nullopt;
  }
  int Order = 0;
  if (L->K == Value::Kind::String && R->K == Value::Kind::String) {
    Order = L->S.compare(R->S);
  } else if (L->K == Value::Kind::Integer && R->K == Value::Kind::Integer) {
    bool Signed = L->Signed && R->Signed;
    switch (Op) {
    case BO_Add:
      return Value::integer(L->I + R->I, Signed);
    case BO_Sub:
      return Value::integer(L->I - R->I, Signed);
    case BO_Mul:
      return Value::integer(L->I * R->I, Signed);
    default:
      break;
    }
    if (Signed)
      Order = static_cast<int64_t>(L->I) < static_cast<int64_t>(R->I)   ? -1
              : static_cast<int64_t>(L->I) > static_cast<int64_t>(R->I) ? 1
                                                                        : 0;
    else
      Order = L->I < R->I ? -1 : L->I > R->I ? 1 : 0;
  } else {
    return std::nullopt;
  }
  switch (Op) {
  case BO_EQ:
    return Value::truth(Order == 0);
  case BO_NE:
    return Value::truth(Order != 0);
  case BO_LT:
    return Value::truth(Order < 0);
  case BO_LE:
    return Value::truth(Order <= 0);
  case BO_GT:
    return Value::truth(Order > 0);
  case BO_GE:
    return Value::truth(Order >= 0);
  default:
    return std::nullopt;
  }
}

/// The container an iterator expression walks and whether it is its end:
/// `c.end()`, `std::end(c)`, `c.begin()`.
std::pair<const VarDecl *, llvm::StringRef> iteratorOf(const Expr *E) {
  E = strip(E);
  const Expr *Object = nullptr;
  llvm::StringRef Which;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    Which = nameOf(Member->getMethodDecl());
    if (Member->getNumArgs() == 0)
      Object = Member->getImplicitObjectArgument();
  } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->isInStdNamespace() && Call->getNumArgs() == 1) {
      Which = nameOf(Callee);
      Object = Call->getArg(0);
    }
  }
  const auto *Ref = Object ? dyn_cast<DeclRefExpr>(strip(Object)) : nullptr;
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  Which.consume_front("c");
  if (Which != "begin" && Which != "end")
    return {nullptr, ""};
  return {Var, Which};
}

// `set.find(x) != set.end()` and `std::find(v.begin(), v.end(), x) !=
// v.end()`: whether x is an element. The value is a truth: true when found.
std::optional<Value> NameTestInterpreter::membership(const Expr *LHS,
                                                     const Expr *RHS) {
  auto [EndOf, Which] = iteratorOf(RHS);
  if (!EndOf || Which != "end")
    return std::nullopt;
  const Expr *Sought = nullptr;
  LHS = strip(LHS);
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(LHS);
      Member && nameOf(Member->getMethodDecl()) == "find" &&
      Member->getNumArgs() == 1) {
    const auto *Ref =
        dyn_cast<DeclRefExpr>(strip(Member->getImplicitObjectArgument()));
    if (Ref && Ref->getDecl() == EndOf)
      Sought = Member->getArg(0);
  } else if (const auto *Call = dyn_cast<CallExpr>(LHS)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->isInStdNamespace() && nameOf(Callee) == "find" &&
        Call->getNumArgs() == 3 &&
        iteratorOf(Call->getArg(0)) == std::make_pair(EndOf, llvm::StringRef("begin")) &&
        iteratorOf(Call->getArg(1)).first == EndOf)
      Sought = Call->getArg(2);
  }
  if (!Sought)
    return std::nullopt;
  std::optional<Value> X = eval(Sought);
  std::optional<std::vector<Value>> Elements =
      elements(cast<Expr>(RHS)); // Only the variable matters here.
  if (!X || X->K != Value::Kind::String || !Elements)
    return std::nullopt;
  return Value::truth(llvm::any_of(*Elements, [&](const Value &V) {
    return V.K == Value::Kind::String && V.S == X->S;
  }));
}

std::optional<Value>
NameTestInterpreter::evalMethod(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  const Expr *Object = Call->getImplicitObjectArgument();
  if (!Method || !Object)
    return std::nullopt;
  llvm::StringRef Name = nameOf(Method);
  // The item, the loop's variable or a callable's parameter given it; a
  // named item's value() is the item's tensor.
  auto IsItem = [&](const Expr *E) {
    E = strip(E);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (Ref->getDecl() == Item)
        return true;
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      auto Bound = Var ? Scope.find(Var) : Scope.end();
      return Bound != Scope.end() && Bound->second.K == Value::Kind::Item;
    }
    return false;
  };
  bool OnItem = IsItem(Object);
  if (const auto *Inner = dyn_cast<CXXMemberCallExpr>(strip(Object));
      Inner && Inner->getNumArgs() == 0 &&
      nameOf(Inner->getMethodDecl()) == "value" &&
      IsItem(Inner->getImplicitObjectArgument()))
    OnItem = true;
  // The item's key: the name this iteration visits.
  if (OnItem && Name == "key" && Call->getNumArgs() == 0)
    return Value::string(*CurrentName);
  if (OnItem && Name == "requires_grad" && Call->getNumArgs() == 0)
    return CurrentRequiresGrad ? std::optional(Value::truth(*CurrentRequiresGrad))
                               : std::nullopt;
  llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
  if (isStringClass(Object->getType())) {
    std::optional<Value> Self = eval(Object);
    if (!Self || Self->K != Value::Kind::String)
      return std::nullopt;
    return evalStringMethod(Name, Self->S, Args);
  }
  // A set's or a constant container's membership: `no_decay.count(name)`.
  if ((Name == "count" || Name == "contains") && Args.size() == 1) {
    std::optional<std::vector<Value>> Elements = elements(Object);
    std::optional<Value> X = eval(Args[0]);
    if (!Elements || !X || X->K != Value::Kind::String)
      return std::nullopt;
    size_t Count = llvm::count_if(*Elements, [&](const Value &V) {
      return V.K == Value::Kind::String && V.S == X->S;
    });
    return Name == "count" ? Value::integer(Count, false)
                           : Value::truth(Count != 0);
  }
  return std::nullopt;
}

std::optional<Value>
NameTestInterpreter::evalStringMethod(llvm::StringRef Method,
                                      const std::string &S,
                                      llvm::ArrayRef<const Expr *> Args) {
  llvm::SmallVector<Value, 4> Values;
  for (const Expr *Arg : Args) {
    std::optional<Value> V = eval(Arg);
    if (!V)
      return std::nullopt;
    Values.push_back(std::move(*V));
  }
  auto IsString = [&](size_t I) {
    return I < Values.size() && Values[I].K == Value::Kind::String;
  };
  auto IsInteger = [&](size_t I) {
    return I < Values.size() && Values[I].K == Value::Kind::Integer;
  };
  auto Size = [](uint64_t N) { return Value::integer(N, false); };
  if ((Method == "size" || Method == "length") && Values.empty())
    return Size(S.size());
  if (Method == "empty" && Values.empty())
    return Value::truth(S.empty());
  if ((Method == "c_str" || Method == "data" || Method == "str") && Values.empty())
    return Value::string(S);
  if ((Method == "find" || Method == "rfind") && IsString(0) &&
      (Values.size() == 1 || (Values.size() == 2 && IsInteger(1)))) {
    uint64_t From = Values.size() == 2 ? Values[1].I
                    : Method == "find" ? 0
                                       : std::string::npos;
    return Size(Method == "find" ? S.find(Values[0].S, From)
                                 : S.rfind(Values[0].S, From));
  }
  if ((Method == "starts_with" || Method == "ends_with" ||
       Method == "contains") &&
      Values.size() == 1 && IsString(0)) {
    const std::string &X = Values[0].S;
    if (Method == "contains")
      return Value::truth(S.find(X) != std::string::npos);
    if (X.size() > S.size())
      return Value::truth(false);
    return Value::truth(Method == "starts_with"
                            ? S.compare(0, X.size(), X) == 0
                            : S.compare(S.size() - X.size(), X.size(), X) == 0);
  }
  auto Sign = [](int C) {
    return Value::integer(static_cast<uint64_t>(C < 0 ? -1 : C > 0), true);
  };
  if (Method == "compare") {
    // Out-of-range positions throw: not evaluated.
    if (Values.size() == 1 && IsString(0))
      return Sign(S.compare(Values[0].S));
    if (Values.size() == 3 && IsInteger(0) && IsInteger(1) && IsString(2) &&
        Values[0].I <= S.size())
      return Sign(S.compare(Values[0].I, Values[1].I, Values[2].S));
    return std::nullopt;
  }
  if (Method == "substr" && Values.size() <= 2 &&
      llvm::all_of(Values, [](const Value &V) {
        return V.K == Value::Kind::Integer;
      })) {
    uint64_t Pos = Values.empty() ? 0 : Values[0].I;
    uint64_t Count = Values.size() == 2 ? Values[1].I : std::string::npos;
    if (Pos > S.size())
      return std::nullopt;
    return Value::string(S.substr(Pos, Count));
  }
  if ((Method == "front" || Method == "back") && Values.empty() && !S.empty())
    return Value::string(std::string(1, Method == "front" ? S.front() : S.back()));
  if (Method == "at" && IsInteger(0) && Values.size() == 1 && Values[0].I < S.size())
    return Value::string(std::string(1, S[Values[0].I]));
  return std::nullopt;
}

std::optional<Value>
NameTestInterpreter::evalOperatorCall(const CXXOperatorCallExpr *Call) {
  OverloadedOperatorKind Op = Call->getOperator();
  if (Op == OO_Call) {
    llvm::SmallVector<Value, 2> Args;
    for (unsigned I = 1; I < Call->getNumArgs(); ++I) {
      std::optional<Value> V = eval(Call->getArg(I));
      if (!V)
        return std::nullopt;
      Args.push_back(std::move(*V));
    }
    return invokeCallable(Call->getArg(0), Args);
  }
  if (Call->getNumArgs() != 2)
    return std::nullopt;
  if (Op == OO_Subscript) {
    std::optional<Value> S = eval(Call->getArg(0)), I = eval(Call->getArg(1));
    if (!S || !I || S->K != Value::Kind::String ||
        I->K != Value::Kind::Integer || I->I >= S->S.size())
      return std::nullopt;
    return Value::string(std::string(1, S->S[I->I]));
  }
  if (Op == OO_Plus) {
    std::optional<Value> L = eval(Call->getArg(0)), R = eval(Call->getArg(1));
    if (!L || !R || L->K != Value::Kind::String || R->K != Value::Kind::String)
      return std::nullopt;
    return Value::string(L->S + R->S);
  }
  BinaryOperatorKind Binary;
  switch (Op) {
  case OO_EqualEqual: Binary = BO_EQ; break;
  case OO_ExclaimEqual: Binary = BO_NE; break;
  case OO_Less: Binary = BO_LT; break;
  case OO_LessEqual: Binary = BO_LE; break;
  case OO_Greater: Binary = BO_GT; break;
  case OO_GreaterEqual: Binary = BO_GE; break;
  default:
    return std::nullopt;
  }
  return compare(Binary, Call->getArg(0), Call->getArg(1));
}

std::optional<Value> NameTestInterpreter::evalCall(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return std::nullopt;
  llvm::StringRef Name = nameOf(Callee);
  if (Callee->isInStdNamespace()) {
    // std::any_of(c.begin(), c.end(), pred) and its siblings.
    if ((Name != "any_of" && Name != "all_of" && Name != "none_of") ||
        Call->getNumArgs() != 3)
      return std::nullopt;
    auto [Range, First] = iteratorOf(Call->getArg(0));
    auto [Same, Last] = iteratorOf(Call->getArg(1));
    if (!Range || Range != Same || First != "begin" || Last != "end")
      return std::nullopt;
    std::optional<std::vector<Value>> Elements = elements(Call->getArg(0));
    if (!Elements)
      return std::nullopt;
    bool Any = false, All = true;
    for (const Value &Element : *Elements) {
      std::optional<Value> Result = invokeCallable(Call->getArg(2), {Element});
      std::optional<bool> Truth = Result ? truthOf(*Result) : std::nullopt;
      if (!Truth)
        return std::nullopt;
      Any |= *Truth;
      All &= *Truth;
    }
    return Value::truth(Name == "any_of" ? Any : Name == "all_of" ? All : !Any);
  }
  llvm::SmallVector<Value, 4> Args;
  for (const Expr *Arg : Call->arguments()) {
    std::optional<Value> V = eval(Arg);
    if (!V)
      return std::nullopt;
    Args.push_back(std::move(*V));
  }
  return invoke(Callee, Args, /*KeepScope=*/false);
}

std::optional<Value>
NameTestInterpreter::invokeCallable(const Expr *Callable,
                                    llvm::ArrayRef<Value> Args) {
  Callable = strip(Callable);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Callable))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
        Var && Var->getInit() && unchanging(Var))
      Callable = strip(Var->getInit());
  const auto *Lambda = dyn_cast<LambdaExpr>(Callable);
  if (!Lambda)
    return std::nullopt;
  const CXXMethodDecl *Operator = Lambda->getCallOperator();
  // A generic lambda: the one specialization the program instantiates.
  if (const FunctionTemplateDecl *Template =
          Lambda->getDependentCallOperator()) {
    auto Specializations = Template->specializations();
    if (std::distance(Specializations.begin(), Specializations.end()) != 1)
      return std::nullopt;
    Operator = cast<CXXMethodDecl>(*Specializations.begin());
  }
  // The lambda's captures are the variables of the scope it is called in.
  return invoke(Operator, Args, /*KeepScope=*/true);
}

std::optional<Value> NameTestInterpreter::invoke(const FunctionDecl *Callee,
                                                 llvm::ArrayRef<Value> Args,
                                                 bool KeepScope) {
  const FunctionDecl *Definition = nullptr;
  if (!Callee->hasBody(Definition) || Definition->getNumParams() != Args.size() ||
      Depth > 8)
    return std::nullopt;
  llvm::DenseMap<const VarDecl *, Value> Saved = Scope;
  if (!KeepScope)
    Scope.clear();
  for (unsigned I = 0; I < Args.size(); ++I)
    Scope[Definition->getParamDecl(I)] = Args[I];
  ++Depth;
  Flow F = run(Definition->getBody());
  --Depth;
  Scope = std::move(Saved);
  std::optional<Value> Result = std::move(Returned);
  Returned.reset();
  if (F != Flow::Return)
    return std::nullopt;
  return Result;
}

Flow NameTestInterpreter::run(const Stmt *S) {
  if (!S || ++Steps > 20000)
    return Flow::Fail;
  if (const auto *Compound = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : Compound->body())
      if (Flow F = run(Child); F != Flow::Next)
        return F;
    return Flow::Next;
  }
  if (isa<NullStmt>(S))
    return Flow::Next;
  if (isa<BreakStmt>(S))
    return Flow::Break;
  if (isa<ContinueStmt>(S))
    return Flow::Continue;
  if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
    Returned = eval(Return->getRetValue());
    return Returned ? Flow::Return : Flow::Fail;
  }
  if (const auto *Decls = dyn_cast<DeclStmt>(S)) {
    // Bound as initialised: a later change would be a statement that is
    // not interpreted, so the binding stays right while the run goes on.
    for (const Decl *D : Decls->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      std::optional<Value> Init =
          Var && Var->getInit() ? eval(Var->getInit()) : std::nullopt;
      if (!Init)
        return Flow::Fail;
      Scope[Var] = std::move(*Init);
    }
    return Flow::Next;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getInit() || If->getConditionVariable())
      return Flow::Fail;
    std::optional<Value> Cond = eval(If->getCond());
    std::optional<bool> Truth = Cond ? truthOf(*Cond) : std::nullopt;
    if (!Truth)
      return Flow::Fail;
    const Stmt *Branch = *Truth ? If->getThen() : If->getElse();
    return Branch ? run(Branch) : Flow::Next;
  }
  if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
    std::optional<std::vector<Value>> Elements = elements(For->getRangeInit());
    if (!Elements || For->getInit())
      return Flow::Fail;
    for (const Value &Element : *Elements) {
      Scope[For->getLoopVariable()] = Element;
      Flow F = run(For->getBody());
      if (F == Flow::Break)
        break;
      if (F == Flow::Return || F == Flow::Fail)
        return F;
    }
    return Flow::Next;
  }
  return Flow::Fail;
}

/// The strings a constant container holds, in iteration order: a brace
/// list, a local or global that is not changed after its initialiser (a
/// C array, std::array, std::vector, std::set, std::initializer_list), or
/// the container a `begin()`/`end()` iterates.
std::optional<std::vector<Value>>
NameTestInterpreter::elements(const Expr *Range) {
  if (!Range)
    return std::nullopt;
  const Expr *E = strip(Range);
  const VarDecl *Var = iteratorOf(Range).first;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E); Ref && !Var) {
    Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return std::nullopt;
  }
  bool Sorted = false;
  if (Var) {
    if (!Var->getInit() || !unchanging(Var))
      return std::nullopt;
    const auto *Record = Var->getType().getNonReferenceType()->getAsCXXRecordDecl();
    llvm::StringRef Kind = Record ? nameOf(Record) : "";
    if (Record && (!Record->isInStdNamespace() ||
                   (Kind != "vector" && Kind != "array" && Kind != "set" &&
                    Kind != "initializer_list")))
      return std::nullopt;
    Sorted = Kind == "set";
    E = strip(Var->getInit());
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() >= 1 &&
      llvm::all_of(llvm::drop_begin(Construct->arguments()),
                   [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
    E = strip(Construct->getArg(0));
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    E = strip(List->getSubExpr());
  const auto *Init = dyn_cast<InitListExpr>(E);
  // std::array's braces hold the array member's.
  if (Init && Init->getNumInits() == 1 && !Init->getType()->isArrayType() &&
      isa<InitListExpr>(strip(Init->getInit(0))))
    Init = cast<InitListExpr>(strip(Init->getInit(0)));
  if (!Init)
    return std::nullopt;
  std::vector<Value> Elements;
  for (const Expr *Element : Init->inits()) {
    std::optional<Value> V = eval(Element);
    if (!V || V->K != Value::Kind::String)
      return std::nullopt;
    Elements.push_back(std::move(*V));
  }
  if (Sorted) {
    llvm::sort(Elements, [](const Value &A, const Value &B) { return A.S < B.S; });
    Elements.erase(std::unique(Elements.begin(), Elements.end(),
                               [](const Value &A, const Value &B) {
                                 return A.S == B.S;
                               }),
                   Elements.end());
  }
  return Elements;
}

/// Whether S contains Target.
bool contains(const Stmt *S, const Stmt *Target) {
  if (!S)
    return false;
  if (S == Target)
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return contains(Child, Target); });
}

/// Whether running S may end the iteration early: a `continue`, `break`,
/// `return`, `goto` or `throw` that belongs to the loop, not to a loop,
/// switch or lambda inside it.
bool mayLeaveIteration(const Stmt *S, bool InLoop = false, bool InSwitch = false) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (isa<ReturnStmt, GotoStmt, CXXThrowExpr>(S))
    return true;
  if (isa<ContinueStmt>(S) && !InLoop)
    return true;
  if (isa<BreakStmt>(S) && !InLoop && !InSwitch)
    return true;
  bool Loop = InLoop || isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
  bool Switch = InSwitch || isa<SwitchStmt>(S);
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return mayLeaveIteration(Child, Loop, Switch);
  });
}

/// `if (c) continue;` or `if (c) { ...; continue; }` with no else: the rest
/// of the body runs only when c is false.
const Expr *skipCondition(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *Then = If->getThen();
  if (const auto *Compound = dyn_cast<CompoundStmt>(Then)) {
    if (Compound->body_empty() || !isa<ContinueStmt>(Compound->body_back()))
      return nullptr;
    if (llvm::any_of(llvm::drop_end(Compound->body()),
                     [](const Stmt *C) { return mayLeaveIteration(C); }))
      return nullptr;
    return If->getCond();
  }
  return isa<ContinueStmt>(Then) ? If->getCond() : nullptr;
}

/// Whether evaluating S reaches Target unconditionally: no operand on the
/// way that runs only sometimes.
bool reachedUnconditionally(const Stmt *S, const Stmt *Target) {
  if (S == Target)
    return true;
  if (isa<LambdaExpr, ConditionalOperator, BinaryConditionalOperator>(S))
    return false;
  if (const auto *Binary = dyn_cast<BinaryOperator>(S);
      Binary && Binary->isLogicalOp())
    return contains(Binary->getLHS(), Target) &&
           reachedUnconditionally(Binary->getLHS(), Target);
  for (const Stmt *Child : S->children())
    if (contains(Child, Target))
      return reachedUnconditionally(Child, Target);
  return false;
}

struct Guard {
  const Expr *Condition;
  bool Holds; ///< Whether Site runs when the condition is true.
};

/// The tests on the way from S to Site, or false when the way is not a
/// chain of `if` branches and skipping `continue`s.
bool guardsTo(const Stmt *S, const Stmt *Site, std::vector<Guard> &Guards) {
  if (S == Site)
    return true;
  if (const auto *Compound = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : Compound->body()) {
      if (contains(Child, Site))
        return guardsTo(Child, Site, Guards);
      if (const Expr *Skip = skipCondition(Child))
        Guards.push_back({Skip, false});
      else if (mayLeaveIteration(Child))
        return false;
    }
    return false;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getInit() || If->getConditionVariable() || If->isConstexpr())
      return false;
    for (bool Then : {true, false}) {
      const Stmt *Branch = Then ? If->getThen() : If->getElse();
      if (Branch && contains(Branch, Site)) {
        Guards.push_back({If->getCond(), Then});
        return guardsTo(Branch, Site, Guards);
      }
    }
    return false;
  }
  return isa<Expr>(S) && reachedUnconditionally(S, Site);
}

/// Whether an entry passes Test, run with its requires_grad() fact: with an
/// unknown fact, a test that does not read it answers as it is, and one
/// that does is run both ways; an answer that turns on the fact leaves the
/// entry out (Note [Lists filtered by requires_grad()]). None when the test
/// reads something else.
std::optional<bool>
passes(llvm::function_ref<std::optional<bool>(std::optional<bool>)> Test,
       std::optional<bool> RequiresGrad) {
  if (RequiresGrad)
    return Test(RequiresGrad);
  if (std::optional<bool> Regardless = Test(std::nullopt))
    return Regardless;
  std::optional<bool> IfTrue = Test(true), IfFalse = Test(false);
  if (!IfTrue || !IfFalse)
    return std::nullopt;
  return *IfTrue && *IfFalse;
}

} // namespace

std::optional<std::vector<bool>>
passesNameTests(const CXXForRangeStmt *Loop, const Stmt *Site,
                llvm::ArrayRef<std::string> Names,
                llvm::ArrayRef<std::optional<bool>> RequiresGrad,
                ASTContext &AST) {
  std::vector<Guard> Guards;
  if (!guardsTo(Loop->getBody(), Site, Guards))
    return std::nullopt;
  NameTestInterpreter Interpreter(Loop->getLoopVariable(), AST);
  std::vector<bool> Passes;
  for (size_t I = 0; I < Names.size(); ++I) {
    auto Runs = [&](std::optional<bool> Fact) -> std::optional<bool> {
      bool All = true;
      for (const Guard &G : Guards) {
        std::optional<bool> Truth = Interpreter.test(G.Condition, Names[I], Fact);
        if (!Truth)
          return std::nullopt;
        All &= *Truth == G.Holds;
      }
      return All;
    };
    std::optional<bool> Passed =
        passes(Runs, I < RequiresGrad.size() ? RequiresGrad[I] : std::nullopt);
    if (!Passed)
      return std::nullopt;
    Passes.push_back(*Passed);
  }
  return Passes;
}

std::optional<std::vector<bool>>
passesPredicate(const Expr *Predicate, llvm::ArrayRef<std::string> Names,
                llvm::ArrayRef<std::optional<bool>> RequiresGrad,
                ASTContext &AST) {
  NameTestInterpreter Interpreter(/*Item=*/nullptr, AST);
  std::vector<bool> Passes;
  for (size_t I = 0; I < Names.size(); ++I) {
    std::optional<bool> Passed = passes(
        [&](std::optional<bool> Fact) {
          return Interpreter.testCallable(Predicate, Names[I], Fact);
        },
        I < RequiresGrad.size() ? RequiresGrad[I] : std::nullopt);
    if (!Passed)
      return std::nullopt;
    Passes.push_back(*Passed);
  }
  return Passes;
}

} // namespace clang::tidy::libtorch
