//===- GenerateSavedTensors.cpp - measure what autograd saves -------------===//
//
// Runs every aten:: operator overload that can be called from its schema
// alone and measures which of its tensor arguments and which of its results
// autograd saves for backward (Note [Measuring saved tensors]). A write into
// a saved tensor through `.data()` silently corrupts the gradient, and any
// other in-place write makes backward throw, so the table this writes tells
// libtorch-detached-write which tensors must stay as they are until backward.
// See docs/operator-table.md for the format.
//
//===----------------------------------------------------------------------===//

#include "GenericCalls.h"

#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/variable.h>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>
#include <vector>

using namespace torchalias::tablegen;

namespace {

llvm::cl::opt<std::string> OutputPath("o", llvm::cl::desc("Output file"),
                                      llvm::cl::value_desc("path"),
                                      llvm::cl::init("-"));
llvm::cl::opt<std::string>
    LibtorchVersion("libtorch-version",
                    llvm::cl::desc("Version recorded in the table"),
                    llvm::cl::init(TORCHALIAS_LIBTORCH_VERSION));
llvm::cl::opt<bool>
    Explain("explain",
            llvm::cl::desc("Print libtorch's message for each skipped "
                           "operator on stderr (Note [Stable reasons])"));

// Note [Measuring saved tensors]
// Autograd saves a tensor for backward together with the tensor's version,
// the count of in-place writes into it, and backward refuses a saved tensor
// whose version has moved on: "one of the variables needed for gradient
// computation has been modified by an inplace operation". A tensor is
// therefore saved exactly when bumping its version between the call and
// backward makes backward throw that. The bump changes no value, so nothing
// else about the run changes, and every measurement is a fresh call built
// from the same seed.
//
// - Every floating-point input requires grad, so the table says what the
//   operator saves when every gradient is wanted: the most it saves. (`mul`
//   saves `other` only for the gradient of `self`.) An input the operator
//   refuses to differentiate ("not differentiable with respect to argument")
//   is left without grad and named in `no_grad`.
// - The written argument of an in-place operator is a clone of a leaf, as
//   autograd refuses in-place writes into a leaf; what is measured for it is
//   its value after the call.
// - A result that aliases an argument (an in-place result, a view) shares the
//   argument's version counter, so the two cannot be told apart: the result
//   gets the argument's verdict.
constexpr llvm::StringLiteral ModifiedSavedTensor =
    "modified by an inplace operation";

// The name of the argument in "The function 'f' is not differentiable with
// respect to argument 'target'", or empty.
std::string nonDifferentiableArgument(llvm::StringRef Message) {
  constexpr llvm::StringLiteral Marker = "with respect to argument '";
  size_t At = Message.find(Marker);
  if (At == llvm::StringRef::npos)
    return "";
  return Message.drop_front(At + Marker.size())
      .take_until([](char C) { return C == '\''; })
      .str();
}

/// One forward call of an operator, set up for a measurement.
struct ForwardRun {
  GenericCall Call;
  std::vector<c10::IValue> Results;
};

/// How one operator is measured: the profile its calls use and the
/// arguments that must not require grad.
struct Setup {
  const c10::OperatorHandle *Op;
  const InputProfile *Profile;
  std::set<std::string> NoGrad;
};

ForwardRun runForward(const Setup &S) {
  std::string Ignored;
  ForwardRun Run{*GenericCall::build(S.Op->schema(), *S.Profile, Ignored), {}};
  for (const TensorSlot &Slot : Run.Call.tensorSlots()) {
    const c10::Argument &Arg = Run.Call.argument(Slot);
    at::Tensor &T = Run.Call.tensor(Slot);
    if (!at::isFloatingType(T.scalar_type()) || S.NoGrad.count(Arg.name()))
      continue;
    T.requires_grad_(true);
    if (isWritten(Arg))
      T = T.clone();
  }
  Run.Results = Run.Call.run(*S.Op);
  return Run;
}

std::vector<at::Tensor> gradientRoots(const std::vector<c10::IValue> &Results) {
  std::vector<at::Tensor> Roots;
  for (const c10::IValue &Result : Results)
    for (const at::Tensor &T : tensorsIn(Result))
      if (T.requires_grad())
        Roots.push_back(T);
  return Roots;
}

void runBackward(const std::vector<at::Tensor> &Roots) {
  std::vector<at::Tensor> Gradients;
  for (const at::Tensor &Root : Roots)
    Gradients.push_back(at::ones_like(Root));
  torch::autograd::backward(Roots, Gradients);
}

/// How far a profile got, for the reason an operator is skipped.
enum class Progress { Built, RanForward, HadGradient };

struct Attempt {
  Progress Reached = Progress::Built;
  SkipReason Why;
};

/// Runs forward and backward once under \p S, turning off grad for the
/// arguments the operator refuses to differentiate. Returns true when both
/// succeed.
bool tryProfile(Setup &S, Attempt &Result) {
  size_t Arguments = S.Op->schema().arguments().size();
  for (size_t Round = 0; Round <= Arguments; ++Round) {
    Result.Reached = Progress::Built;
    try {
      ForwardRun Run = runForward(S);
      Result.Reached = Progress::RanForward;
      std::vector<at::Tensor> Roots = gradientRoots(Run.Results);
      if (Roots.empty()) {
        Result.Why = {"not differentiable: no result requires grad", ""};
        return false;
      }
      Result.Reached = Progress::HadGradient;
      runBackward(Roots);
      return true;
    } catch (const std::exception &E) {
      std::string Message = firstLine(E);
      std::string Argument = nonDifferentiableArgument(Message);
      if (!Argument.empty() && S.NoGrad.insert(Argument).second)
        continue;
      Result.Why = {Result.Reached == Progress::Built
                        ? callFailure(Message)
                        : backwardFailure(Message),
                    Message};
      return false;
    }
  }
  return false;
}

/// The first profile under which the operator runs forward and backward, or
/// nullopt with the reason of the profile that got furthest.
std::optional<Setup> chooseSetup(const c10::OperatorHandle &Op,
                                 SkipReason &WhyNot) {
  std::optional<Attempt> Furthest;
  for (const InputProfile &Profile : inputProfiles()) {
    // Autograd differentiates floating-point values only.
    if (!at::isFloatingType(Profile.Values))
      continue;
    std::optional<GenericCall> Call =
        GenericCall::build(Op.schema(), Profile, WhyNot.Reason);
    if (!Call)
      return std::nullopt;
    if (Call->tensorSlots().empty()) {
      WhyNot.Reason = "no tensor argument";
      return std::nullopt;
    }
    Setup S{&Op, &Profile, {}};
    Attempt Result;
    if (tryProfile(S, Result))
      return S;
    if (!Furthest || Result.Reached > Furthest->Reached)
      Furthest = Result;
  }
  WhyNot = Furthest->Why;
  return std::nullopt;
}

/// What backward does after a version bump of some tensors.
enum class AfterBump {
  Runs,
  /// "one of the variables needed for gradient computation has been modified
  /// by an inplace operation": the tensor is saved.
  RefusesSaved,
  /// "Output 0 of SplitBackward0 is a view and its base or another view of
  /// its base has been modified inplace": the results are views that
  /// autograd cannot replay once their storage is written (`split`,
  /// `unbind`), whatever is saved.
  RefusesViews,
};

constexpr llvm::StringLiteral ModifiedBaseOfViews =
    "its base or another view of its base has been modified inplace";

/// Bumps the version of the tensors \p Pick chooses after a fresh call, and
/// runs backward. Throws when backward fails for another reason.
template <typename Picker> AfterBump afterBump(const Setup &S, Picker Pick) {
  ForwardRun Run = runForward(S);
  for (const at::Tensor &T : Pick(Run))
    torch::autograd::impl::bump_version(T);
  try {
    runBackward(gradientRoots(Run.Results));
  } catch (const std::exception &E) {
    llvm::StringRef Message = E.what();
    if (Message.contains(ModifiedSavedTensor))
      return AfterBump::RefusesSaved;
    if (Message.contains(ModifiedBaseOfViews))
      return AfterBump::RefusesViews;
    throw;
  }
  return AfterBump::Runs;
}

/// The verdicts of one operator's measurements, by argument and by result.
struct SavedTensors {
  std::vector<AfterBump> Arguments;
  llvm::json::Array SavesInputs, SavesResult;
  bool ViewsRefuseWrites = false;

  void record(AfterBump Verdict) {
    ViewsRefuseWrites |= Verdict == AfterBump::RefusesViews;
  }
};

void measureArguments(const Setup &S, const GenericCall &Reference,
                      SavedTensors &Saved) {
  const c10::FunctionSchema &Schema = S.Op->schema();
  Saved.Arguments.assign(Schema.arguments().size(), AfterBump::Runs);
  std::set<size_t> Measured;
  for (const TensorSlot &Slot : Reference.tensorSlots()) {
    size_t Index = Slot.Argument;
    if (!Measured.insert(Index).second)
      continue;
    Saved.Arguments[Index] = afterBump(S, [Index](ForwardRun &Run) {
      std::vector<at::Tensor> Picked;
      for (const TensorSlot &Other : Run.Call.tensorSlots())
        if (Other.Argument == Index)
          Picked.push_back(Run.Call.tensor(Other));
      return Picked;
    });
    Saved.record(Saved.Arguments[Index]);
    if (Saved.Arguments[Index] == AfterBump::RefusesSaved)
      Saved.SavesInputs.push_back(Schema.arguments()[Index].name());
  }
}

void measureResults(const Setup &S, const std::vector<c10::IValue> &Results,
                    SavedTensors &Saved) {
  const c10::FunctionSchema &Schema = S.Op->schema();
  for (size_t R = 0; R < Schema.returns().size() && R < Results.size(); ++R) {
    if (tensorsIn(Results[R]).empty())
      continue;
    int Aliased = aliasedArgument(Schema, R);
    AfterBump Verdict = Aliased >= 0 ? Saved.Arguments[Aliased]
                                     : afterBump(S, [R](ForwardRun &Run) {
                                         return tensorsIn(Run.Results[R]);
                                       });
    Saved.record(Verdict);
    if (Verdict == AfterBump::RefusesSaved)
      Saved.SavesResult.push_back(static_cast<int64_t>(R));
  }
}

llvm::json::Object measure(const Setup &S) {
  const c10::FunctionSchema &Schema = S.Op->schema();
  ForwardRun Reference = runForward(S);
  SavedTensors Saved;
  measureArguments(S, Reference.Call, Saved);
  measureResults(S, Reference.Results, Saved);
  llvm::json::Object Entry{{"name", operatorName(Schema)},
                           {"overload", Schema.overload_name()},
                           {"saves_inputs", std::move(Saved.SavesInputs)},
                           {"saves_result", std::move(Saved.SavesResult)}};
  describeProfile(*S.Profile, Entry);
  if (Saved.ViewsRefuseWrites)
    Entry["views_refuse_writes"] = true;
  std::vector<std::string> Absent = Reference.Call.absentTensors();
  if (!Absent.empty())
    Entry["absent"] = llvm::json::Array(Absent);
  if (!S.NoGrad.empty())
    Entry["no_grad"] = llvm::json::Array(S.NoGrad);
  return Entry;
}

bool isOutOverload(const c10::FunctionSchema &Schema) {
  for (const c10::Argument &Arg : Schema.arguments())
    if (Arg.is_out())
      return true;
  return false;
}

/// The table entry of one operator, or its skipped entry.
llvm::json::Object measureOperator(const c10::OperatorHandle &Op) {
  if (isOutOverload(Op.schema()))
    return skippedEntry(Op.schema(),
                        {"out= overload: autograd does not record it", ""});
  SkipReason WhyNot;
  std::optional<Setup> S = chooseSetup(Op, WhyNot);
  if (!S)
    return skippedEntry(Op.schema(), WhyNot);
  try {
    return measure(*S);
  } catch (const std::exception &E) {
    return skippedEntry(Op.schema(),
                        {"backward fails after a version bump", firstLine(E)});
  }
}

} // namespace

int main(int Argc, char **Argv) {
  restartWithDeterministicHeap(Argv);
  llvm::cl::ParseCommandLineOptions(
      Argc, Argv,
      "Measures which tensors each aten:: operator saves for backward\n");
  QuietLibtorch Quiet;

  std::vector<llvm::json::Object> Operators, Skipped;
  for (llvm::json::Object &Entry :
       measureIsolated(atenOperators(), measureOperator))
    (isSkippedEntry(Entry) ? Skipped : Operators).push_back(std::move(Entry));
  takeMessages(Skipped, Explain ? &llvm::errs() : nullptr);
  return writeFactTable(OutputPath, LibtorchVersion, Operators, Skipped) ? 0
                                                                         : 1;
}
