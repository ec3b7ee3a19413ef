//===- GenerateOverlapSemantics.cpp - measure which overlaps are refused --===//
//
// Runs every in-place and out= aten:: operator overload that can be called
// from its schema alone, with a tensor input that is the written argument
// itself and with one that partially overlaps it, and records whether
// libtorch refuses each (Note [Measuring overlap semantics]). The table this
// writes is where libtorch-overlapping-inplace can learn which operator
// refuses which overlap from the library rather than from a list. See
// docs/operator-table.md for the format.
//
//===----------------------------------------------------------------------===//

#include "GenericCalls.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
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

// Note [Measuring overlap semantics]
// libtorch checks overlap per operator. TensorIterator refuses an input that
// partially overlaps the output and accepts one that is the output itself
// (`x.add_(x)`); `index_put_` refuses even the exact alias; many kernels check
// nothing and compute from memory they are overwriting. So each operator is
// run twice per tensor input, on a fresh call that otherwise runs:
// - exact alias: one tensor is both the written argument and the input;
// - partial overlap: both are windows one element apart into one buffer.
// The verdict is `rejects` when the call throws libtorch's overlap error
// (every variant says "memory location": "some elements of the input tensor
// and the written-to tensor refer to a single memory location", "the input
// tensors cannot refer to any of the output memory locations"), `accepts`
// when it runs, and `untested` when it throws anything else (a shape or type
// error says nothing about overlap) or the operands cannot be built:
// - an index or mask input of another element size than the written tensor
//   cannot share its memory; an index input that does reads the written
//   tensor's bytes as int64, so the buffer holds zeros, valid indices;
// - an input of another shape than the written argument cannot be it: an
//   out= argument would be resized, and the input with it, before the
//   operator read it;
// - a partial overlap needs an input of two elements or more.
// A call that runs is run again with the same values in memory of their
// own (the input a copy of what it would have read), and the written
// argument compared: `accepts` when it holds the same result, `corrupts`
// when the overlap changed it (`mm.out` reading a matrix it is overwriting).
// Both runs start from one seed, so a random operator draws the same
// values; a result that is not finite where the copy's is, or differs by
// more than rounding, is a changed result. `accepts` says that the result
// was right for the profile measured, not that it is for every shape.
constexpr llvm::StringLiteral OverlapError = "memory location";

enum class Overlap { ExactAlias, Partial };

/// The first profile under which the operator runs, or nullopt with the
/// first profile's reason.
std::optional<GenericCall> baselineCall(const c10::OperatorHandle &Op,
                                        const InputProfile *&Chosen,
                                        SkipReason &WhyNot) {
  for (const InputProfile &Profile : inputProfiles()) {
    std::optional<GenericCall> Call =
        GenericCall::build(Op.schema(), Profile, WhyNot.Reason);
    if (!Call)
      return std::nullopt;
    try {
      Call->run(Op);
      Chosen = &Profile;
      return Call;
    } catch (const std::exception &E) {
      if (WhyNot.Message.empty()) {
        WhyNot.Message = firstLine(E);
        WhyNot.Reason = callFailure(WhyNot.Message);
      }
    }
  }
  return std::nullopt;
}

/// A buffer whose bytes are valid both as the written tensor's dtype and as
/// the input's: zeros when either is not floating point.
at::Tensor sharedBuffer(int64_t Elements, at::ScalarType Written,
                        at::ScalarType Input) {
  if (at::isFloatingType(Written) && at::isFloatingType(Input))
    return at::rand({Elements}, Written);
  return at::zeros({Elements}, Written);
}

/// Whether the call's written argument ends up as in \p Reference.
bool sameResult(const at::Tensor &Written, const at::Tensor &Reference) {
  if (Written.sizes() != Reference.sizes() ||
      Written.scalar_type() != Reference.scalar_type())
    return false;
  if (!at::isFloatingType(Written.scalar_type()) &&
      !at::isComplexType(Written.scalar_type()))
    return Written.equal(Reference);
  return at::allclose(Written, Reference, /*rtol=*/1e-6, /*atol=*/1e-9,
                      /*equal_nan=*/true);
}

/// Runs Call from the seed every generic call starts from.
void runSeeded(const GenericCall &Call, const c10::OperatorHandle &Op) {
  at::manual_seed(CallSeed);
  Call.run(Op);
}

/// Runs a fresh call in which the input at \p In overlaps the written
/// argument at \p Out as \p Kind says, and returns the verdict.
const char *probe(const c10::OperatorHandle &Op, const InputProfile &Profile,
                  TensorSlot Out, at::IntArrayRef OutShape, TensorSlot In,
                  Overlap Kind) {
  std::string Ignored;
  GenericCall Call = *GenericCall::build(Op.schema(), Profile, Ignored);
  GenericCall Reference = *GenericCall::build(Op.schema(), Profile, Ignored);
  at::ScalarType WrittenType = Call.tensor(Out).scalar_type();
  at::ScalarType InputType = Call.tensor(In).scalar_type();
  if (c10::elementSize(WrittenType) != c10::elementSize(InputType))
    return "untested";
  std::vector<int64_t> InShape = Call.tensor(In).sizes().vec();
  int64_t InElements = c10::multiply_integers(InShape);
  if (Kind == Overlap::ExactAlias) {
    if (!OutShape.equals(InShape))
      return "untested";
    at::Tensor Shared =
        sharedBuffer(InElements, WrittenType, InputType).view(InShape);
    Call.tensor(Out) = Shared;
    Call.tensor(In) =
        InputType == WrittenType ? Shared : Shared.view(InputType);
  } else {
    int64_t OutElements = c10::multiply_integers(OutShape);
    if (InElements < 2 || OutElements < 1)
      return "untested";
    at::Tensor Buffer = sharedBuffer(std::max(InElements, OutElements) + 1,
                                     WrittenType, InputType);
    Call.tensor(Out) = Buffer.narrow(0, 1, OutElements).view(OutShape);
    Call.tensor(In) =
        Buffer.narrow(0, 0, InElements).view(InShape).view(InputType);
  }
  // The same values, each in memory of its own.
  Reference.tensor(Out) = Call.tensor(Out).clone();
  Reference.tensor(In) = Call.tensor(In).clone();
  try {
    runSeeded(Call, Op);
  } catch (const std::exception &E) {
    return llvm::StringRef(E.what()).contains(OverlapError) ? "rejects"
                                                            : "untested";
  }
  try {
    runSeeded(Reference, Op);
  } catch (const std::exception &) {
    return "untested";
  }
  return sameResult(Call.tensor(Out), Reference.tensor(Out)) ? "accepts"
                                                             : "corrupts";
}

// Note [Counts other than one]
// An int argument that names no dimension is 1 in the generic call, and
// for some operators 1 is the one value that computes nothing:
// `matrix_power_out(s, s, 1)` copies s into itself, right, while
// `matrix_power_out(s, s, 2)` multiplies s by a matrix it is overwriting.
// So each overlap is probed with such arguments at 1 and at 2, and the
// verdict is the worse of the two: `corrupts`, then `rejects`, then
// `accepts`; `untested` only where neither call ran. An operator without
// such an argument gets the same verdict twice.
const char *probeCounts(const c10::OperatorHandle &Op,
                        const InputProfile &Profile, TensorSlot Out,
                        at::IntArrayRef OutShape, TensorSlot In,
                        Overlap Kind) {
  static constexpr llvm::StringLiteral Worst[] = {"corrupts", "rejects",
                                                  "accepts"};
  InputProfile Twice = Profile;
  Twice.Count = 2;
  std::string Ignored;
  llvm::StringRef One = probe(Op, Profile, Out, OutShape, In, Kind);
  // A count that changes the result's shape is no call of this profile.
  std::optional<GenericCall> Call =
      GenericCall::build(Op.schema(), Twice, Ignored);
  llvm::StringRef Two = "untested";
  if (Call) {
    try {
      Call->run(Op);
      if (Call->tensor(Out).sizes().equals(OutShape))
        Two = probe(Op, Twice, Out, OutShape, In, Kind);
    } catch (const std::exception &) {
    }
  }
  for (llvm::StringRef Verdict : Worst)
    if (One == Verdict || Two == Verdict)
      return Verdict.data();
  return "untested";
}

/// The verdicts for every tensor input against the written argument at
/// \p Out. An optional tensor the profile leaves out is untested.
llvm::json::Object verdicts(const c10::OperatorHandle &Op,
                            const InputProfile &Profile,
                            const GenericCall &Baseline,
                            const std::vector<TensorSlot> &Inputs,
                            TensorSlot Out, at::IntArrayRef OutShape) {
  llvm::json::Object ByInput;
  for (const TensorSlot &In : Inputs)
    ByInput[Baseline.argument(In).name()] = llvm::json::Object{
        {"exact_alias",
         probeCounts(Op, Profile, Out, OutShape, In, Overlap::ExactAlias)},
        {"partial_overlap",
         probeCounts(Op, Profile, Out, OutShape, In, Overlap::Partial)}};
  for (const std::string &Absent : Baseline.absentTensors())
    ByInput[Absent] = llvm::json::Object{{"exact_alias", "untested"},
                                         {"partial_overlap", "untested"}};
  return ByInput;
}

/// The first tensor of each argument that the predicate picks.
template <typename Predicate>
std::vector<TensorSlot> firstSlots(const GenericCall &Call, Predicate Pick) {
  std::vector<TensorSlot> Slots;
  for (const TensorSlot &Slot : Call.tensorSlots())
    if (Slot.Element <= 0 && Pick(Call.argument(Slot)))
      Slots.push_back(Slot);
  return Slots;
}

bool hasWrittenArgument(const c10::FunctionSchema &Schema) {
  return std::any_of(Schema.arguments().begin(), Schema.arguments().end(),
                     [](const c10::Argument &Arg) { return isWritten(Arg); });
}

/// The table entry of one operator, or nullopt with the reason it is
/// skipped.
std::optional<llvm::json::Object> measure(const c10::OperatorHandle &Op,
                                          SkipReason &WhyNot) {
  const InputProfile *Profile = nullptr;
  std::optional<GenericCall> Baseline = baselineCall(Op, Profile, WhyNot);
  if (!Baseline)
    return std::nullopt;
  std::vector<TensorSlot> Outs = firstSlots(*Baseline, isWritten);
  std::vector<TensorSlot> Inputs = firstSlots(
      *Baseline, [](const c10::Argument &Arg) { return !isWritten(Arg); });
  if (Outs.empty()) {
    WhyNot = {"the written argument is an optional tensor left out", ""};
    return std::nullopt;
  }
  if (Inputs.empty() && Baseline->absentTensors().empty()) {
    WhyNot = {"no tensor input besides the written arguments", ""};
    return std::nullopt;
  }
  // An out= argument takes the result's shape in the call that ran; the
  // windows of a partial overlap must have it already, for a resize would
  // move them.
  auto Verdicts = [&](TensorSlot Out) {
    return verdicts(Op, *Profile, *Baseline, Inputs, Out,
                    Baseline->tensor(Out).sizes());
  };
  const c10::FunctionSchema &Schema = Op.schema();
  llvm::json::Object Entry{{"name", operatorName(Schema)},
                           {"overload", Schema.overload_name()},
                           {"destination", Baseline->argument(Outs[0]).name()},
                           {"inputs", Verdicts(Outs[0])}};
  describeProfile(*Profile, Entry);
  if (Outs.size() > 1) {
    llvm::json::Object Others;
    for (size_t I = 1; I < Outs.size(); ++I)
      Others[Baseline->argument(Outs[I]).name()] = Verdicts(Outs[I]);
    Entry["other_destinations"] = std::move(Others);
  }
  return Entry;
}

/// The table entry of one operator, or its skipped entry.
llvm::json::Object measureOperator(const c10::OperatorHandle &Op) {
  SkipReason WhyNot;
  if (std::optional<llvm::json::Object> Entry = measure(Op, WhyNot))
    return std::move(*Entry);
  return skippedEntry(Op.schema(), WhyNot);
}

} // namespace

int main(int Argc, char **Argv) {
  restartWithDeterministicHeap(Argv);
  llvm::cl::ParseCommandLineOptions(
      Argc, Argv,
      "Measures which overlaps each in-place and out= aten:: operator "
      "refuses\n");
  QuietLibtorch Quiet;

  std::vector<c10::OperatorHandle> Writing;
  for (const c10::OperatorHandle &Op : atenOperators())
    if (hasWrittenArgument(Op.schema()))
      Writing.push_back(Op);
  std::vector<llvm::json::Object> Operators, Skipped;
  for (llvm::json::Object &Entry : measureIsolated(Writing, measureOperator))
    (isSkippedEntry(Entry) ? Skipped : Operators).push_back(std::move(Entry));
  takeMessages(Skipped, Explain ? &llvm::errs() : nullptr);
  return writeFactTable(OutputPath, LibtorchVersion, Operators, Skipped) ? 0
                                                                         : 1;
}
