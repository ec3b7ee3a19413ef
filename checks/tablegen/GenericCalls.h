//===- GenericCalls.h - call aten:: operators from schemas ------*- C++ -*-===//
//
// The libtorch-fact generators measure what an operator does by running it.
// They know nothing about any one operator: the arguments of a call are built
// from its schema alone, under a few input profiles, and the first profile
// under which the operator runs is the one measured (Note [Input profiles]).
//
// A GenericCall owns the arguments it builds. Its tensors can be replaced
// before the call (by a clone, by an alias of another argument), which is
// how the generators set up each measurement.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_CHECKS_TABLEGEN_GENERICCALLS_H
#define TORCHALIAS_CHECKS_TABLEGEN_GENERICCALLS_H

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace torchalias::tablegen {

/// The seed every generic call starts from, so that each measurement of an
/// operator sees the same values.
inline constexpr uint64_t CallSeed = 20230111;

/// The shape every tensor argument of a generic call takes, whether
/// `Tensor?` arguments are given a tensor or None, whether arguments named
/// for their rank keep it (Note [Tensor roles]), and the dtype of values.
struct InputProfile {
  std::vector<int64_t> Shape;
  bool OptionalTensorsPresent;
  bool RanksFromNames = false;
  at::ScalarType Values = at::kDouble;
  /// The value of an int argument that names no dimension and has no
  /// default (`matrix_power`'s n, `repeat_interleave`'s repeats).
  int64_t Count = 1;
};

/// The profiles in the order they are tried.
const std::vector<InputProfile> &inputProfiles();

/// The place of one tensor in a call: its argument, and its element in a
/// list argument (-1 for a tensor argument).
struct TensorSlot {
  size_t Argument;
  int Element;
};

/// Arguments for one call of an operator, built from its schema.
class GenericCall {
public:
  /// Builds arguments under \p Profile, with tensor values drawn from the
  /// seeded generator. Returns nullopt and says why in \p WhyNot when an
  /// argument cannot be built from its type and name.
  static std::optional<GenericCall> build(const c10::FunctionSchema &Schema,
                                          const InputProfile &Profile,
                                          std::string &WhyNot);

  /// Every tensor the call passes, in argument order.
  const std::vector<TensorSlot> &tensorSlots() const { return Slots; }
  at::Tensor &tensor(TensorSlot Slot);
  const c10::Argument &argument(TensorSlot Slot) const;
  /// The `Tensor?` arguments this profile passes as None.
  std::vector<std::string> absentTensors() const;

  /// Runs the operator on the current arguments and returns its results.
  /// Whatever the operator throws propagates.
  std::vector<c10::IValue> run(const c10::OperatorHandle &Op) const;

private:
  enum class ArgumentKind { Value, Tensor, TensorList, OptionalTensorList };
  struct ArgumentValue {
    ArgumentKind Kind = ArgumentKind::Value;
    c10::IValue Value;
    std::vector<at::Tensor> Tensors;
  };

  explicit GenericCall(const c10::FunctionSchema &Schema) : Schema(&Schema) {}

  const c10::FunctionSchema *Schema;
  std::vector<ArgumentValue> Arguments;
  std::vector<TensorSlot> Slots;
};

/// The `aten::` operators, sorted by name and overload.
std::vector<c10::OperatorHandle> atenOperators();

/// Whether the argument is annotated as written (`Tensor(a!)`,
/// `Tensor(a!)[]`).
bool isWritten(const c10::Argument &Arg);

/// The index of the argument that a result aliases by its annotation, or -1.
int aliasedArgument(const c10::FunctionSchema &Schema, size_t Result);

/// Every defined tensor in a result (a tensor, a list or an optional one).
std::vector<at::Tensor> tensorsIn(const c10::IValue &Result);

/// The first line of an exception's message, without libtorch's backtrace:
/// short and stable enough to record as a reason.
std::string firstLine(const std::exception &Error);

/// Executes the generator again, once, with glibc's heap set to hand out
/// memory of fixed contents (Note [Deterministic garbage]). Call it first in
/// main(), with main's argv.
void restartWithDeterministicHeap(char **Argv);

/// Silences libtorch while the generators run thousands of failing calls:
/// no warnings on stderr, no backtrace collected for each c10::Error (which
/// would dominate the run time), and one thread, so that no measurement
/// depends on the machine.
class QuietLibtorch {
public:
  QuietLibtorch();
  ~QuietLibtorch();
  QuietLibtorch(const QuietLibtorch &) = delete;
  QuietLibtorch &operator=(const QuietLibtorch &) = delete;

private:
  c10::WarningHandler *PreviousHandler;
};

/// Measures every operator in \p Operators with \p Measure, in child
/// processes, and returns the objects in the same order. An operator called
/// with arguments it does not expect may crash or hang rather than throw;
/// its object is then a skipped entry saying so (Note [Isolated
/// measurements]).
std::vector<llvm::json::Object> measureIsolated(
    const std::vector<c10::OperatorHandle> &Operators,
    const std::function<llvm::json::Object(const c10::OperatorHandle &)>
        &Measure);

/// Whether an object is a skipped entry rather than a table entry.
bool isSkippedEntry(const llvm::json::Object &Entry);

/// Writes `{"format": 1, "libtorch": ..., "operators": [...], "skipped":
/// [...]}` with one entry a line, so that the checked-in file reads well in
/// diffs. Returns false and reports on stderr when the file cannot be
/// written.
bool writeFactTable(llvm::StringRef Path, llvm::StringRef LibtorchVersion,
                    const std::vector<llvm::json::Object> &Operators,
                    const std::vector<llvm::json::Object> &Skipped);

/// Why an operator is left out of a table: a reason from a fixed vocabulary
/// and libtorch's message, which is not stable (Note [Stable reasons]).
struct SkipReason {
  std::string Reason;
  std::string Message;
};

/// The reason for a call that threw \p Message.
std::string callFailure(llvm::StringRef Message);

/// The reason for a backward pass that threw \p Message.
std::string backwardFailure(llvm::StringRef Message);

/// Records in a table entry the profile its measurements used:
/// `input_shape`, and `ranks_from_names` and `input_dtype` where they are not
/// the defaults.
void describeProfile(const InputProfile &Profile, llvm::json::Object &Entry);

/// A skipped operator and the reason, as the tables list it, with the
/// message under "message" until takeMessages removes it.
llvm::json::Object skippedEntry(const c10::FunctionSchema &Schema,
                                const SkipReason &Why);

/// Removes the messages from skipped entries and prints them, one operator
/// a line, to \p Explain when it is given.
void takeMessages(std::vector<llvm::json::Object> &Skipped,
                  llvm::raw_ostream *Explain);

/// The schema name without `aten::`.
std::string operatorName(const c10::FunctionSchema &Schema);

} // namespace torchalias::tablegen

#endif // TORCHALIAS_CHECKS_TABLEGEN_GENERICCALLS_H
