//===- GenericCalls.cpp - call aten:: operators from their schemas --------===//

#include "GenericCalls.h"

#include <ATen/Parallel.h>
#include <c10/util/Logging.h>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

namespace torchalias::tablegen {

// Note [Input profiles]
// A schema says that an argument is a Tensor, not which shape the operator
// accepts: `mm` wants matrices, `dot` vectors, `bmm` batches of matrices,
// `conv2d` images, and a `Tensor? bias` may have to be None for the shapes to
// fit. Every tensor argument of a call gets one shape (but see Note [Tensor
// roles]), and the profiles are tried in this order until the operator runs.
// Square shapes make most pairs of operands compatible (`mm(a, b)`,
// `conv2d(x, w)` with a kernel as large as the image). Then come mixed ranks
// for operators such as `addmv`, and integer values, for the bitwise
// operators. The order is part of the output: a fact that could depend on
// the shape is measured on the first profile that works, and the tables
// record which (`input_shape`).
const std::vector<InputProfile> &inputProfiles() {
  using Shape = std::vector<int64_t>;
  static const std::vector<InputProfile> Profiles = {
      {Shape{3, 3}, true},
      {Shape{3, 3}, false},
      {Shape{3}, true},
      {Shape{3}, false},
      {Shape{2, 3, 3}, true},
      {Shape{2, 3, 3}, false},
      {Shape{2, 2, 3, 3}, true},
      {Shape{2, 2, 3, 3}, false},
      {Shape{2, 2, 3, 3, 3}, false},
      {Shape{}, true},
      {Shape{}, false},
      {Shape{3, 3}, true, true},
      {Shape{3, 3}, false, true},
      {Shape{3}, true, true},
      {Shape{3}, false, true},
      {Shape{3, 3}, true, false, at::kLong},
      {Shape{3}, true, false, at::kLong}};
  return Profiles;
}

namespace {

// Note [Tensor roles]
// An operator that takes indices or a mask rejects a floating-point tensor
// there, and its schema types it only as Tensor; the argument's name decides:
// - `index`/`indices` and the elements of `Tensor?[]` get int64 zeros (a
//   valid index into any non-empty dimension);
// - `mask`/`condition` get a boolean tensor;
// - in the profiles that say so, `vec*`, `mat*` and `batch*` take the rank
//   their names give them, so that `addmv(self, mat, vec)` and
//   `addbmm(self, batch1, batch2)` can run (`bmm(self, mat2)` cannot);
// - everything else gets the profile's values, in [0, 1) when they are
//   floating point, which are also valid probabilities and targets.
enum class TensorRole { Values, Indices, Mask };

TensorRole roleOf(llvm::StringRef Name) {
  if (Name == "index" || Name == "indices")
    return TensorRole::Indices;
  if (Name == "mask" || Name == "condition")
    return TensorRole::Mask;
  return TensorRole::Values;
}

std::vector<int64_t> shapeFor(llvm::StringRef Name,
                              const InputProfile &Profile) {
  if (!Profile.RanksFromNames)
    return Profile.Shape;
  if (Name == "vec" || Name == "vec1" || Name == "vec2")
    return {3};
  if (Name == "mat" || Name == "mat1" || Name == "mat2")
    return {3, 3};
  if (Name == "batch1" || Name == "batch2")
    return {2, 3, 3};
  return Profile.Shape;
}

at::Tensor makeTensor(TensorRole Role, const std::vector<int64_t> &Shape,
                      at::ScalarType Values) {
  switch (Role) {
  case TensorRole::Indices:
    return at::zeros(Shape, at::kLong);
  case TensorRole::Mask:
    return at::rand(Shape, at::kDouble) > 0.5;
  case TensorRole::Values:
    break;
  }
  if (at::isFloatingType(Values))
    return at::rand(Shape, Values);
  // Integer values from 1, so that no integer division divides by zero.
  return at::randint(1, 4, Shape, at::TensorOptions(Values));
}

bool isDimension(llvm::StringRef Name) { return Name.contains("dim"); }

bool isShape(llvm::StringRef Name) {
  return Name == "size" || Name == "shape" || Name == "sizes" ||
         Name.take_back(6) == "_shape";
}

/// An int list for an argument without a default: the profile's shape for a
/// shape, else N (or one) entries.
c10::IValue intList(const c10::Argument &Arg, const InputProfile &Profile) {
  llvm::StringRef Name = Arg.name();
  if (isShape(Name) && !Arg.N())
    return c10::IValue(Profile.Shape);
  size_t Length = Arg.N() ? static_cast<size_t>(*Arg.N()) : 1;
  int64_t Entry = isDimension(Name) || Name.contains("padding") ? 0 : 1;
  return c10::IValue(std::vector<int64_t>(Length, Entry));
}

template <typename T> c10::IValue listOf(size_t Length, T Entry) {
  c10::List<T> List;
  for (size_t I = 0; I < Length; ++I)
    List.push_back(Entry);
  return c10::IValue(std::move(List));
}

/// A value for a non-tensor argument: its default, or one chosen from its
/// type and name. Returns nullopt for types no generic value fits.
std::optional<c10::IValue> plainValue(const c10::Argument &Arg,
                                      const InputProfile &Profile) {
  if (Arg.default_value())
    return *Arg.default_value();
  // The real type tells ScalarType, Layout and MemoryFormat from int.
  const c10::TypePtr &Type = Arg.real_type();
  size_t Length = Arg.N() ? static_cast<size_t>(*Arg.N()) : 1;
  switch (Type->kind()) {
  case c10::TypeKind::OptionalType:
    return c10::IValue();
  case c10::TypeKind::IntType:
  case c10::TypeKind::SymIntType:
    return c10::IValue(isDimension(Arg.name()) ? int64_t(0) : Profile.Count);
  case c10::TypeKind::FloatType:
    return c10::IValue(0.5);
  case c10::TypeKind::NumberType:
    return c10::IValue(c10::Scalar(2.0));
  case c10::TypeKind::BoolType:
    return c10::IValue(false);
  case c10::TypeKind::ScalarTypeType:
    return c10::IValue(at::kDouble);
  case c10::TypeKind::LayoutType:
    return c10::IValue(at::kStrided);
  case c10::TypeKind::MemoryFormatType:
    return c10::IValue(at::MemoryFormat::Contiguous);
  case c10::TypeKind::DeviceObjType:
    return c10::IValue(c10::Device(c10::kCPU));
  case c10::TypeKind::StringType:
    // The other strings name dimensions or modes no value fits generally.
    if (Arg.name() == "equation")
      return c10::IValue(std::string("ij,jk->ik"));
    return std::nullopt;
  case c10::TypeKind::ListType:
    switch (Type->expectRef<c10::ListType>().getElementType()->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      return intList(Arg, Profile);
    case c10::TypeKind::FloatType:
      return listOf(Length, 1.0);
    case c10::TypeKind::BoolType:
      return listOf(Length, true);
    default:
      return std::nullopt;
    }
  default:
    return std::nullopt;
  }
}

/// The tensor type an argument holds, seen through Optional and List.
enum class TensorShape { None, Single, Optional, List, OptionalList };

TensorShape tensorShapeOf(const c10::TypePtr &Type) {
  auto IsTensor = [](const c10::TypePtr &T) {
    return T->kind() == c10::TypeKind::TensorType;
  };
  if (IsTensor(Type))
    return TensorShape::Single;
  if (Type->kind() == c10::TypeKind::OptionalType &&
      IsTensor(Type->expectRef<c10::OptionalType>().getElementType()))
    return TensorShape::Optional;
  if (Type->kind() != c10::TypeKind::ListType)
    return TensorShape::None;
  const c10::TypePtr &Element =
      Type->expectRef<c10::ListType>().getElementType();
  if (IsTensor(Element))
    return TensorShape::List;
  if (Element->kind() == c10::TypeKind::OptionalType &&
      IsTensor(Element->expectRef<c10::OptionalType>().getElementType()))
    return TensorShape::OptionalList;
  return TensorShape::None;
}

// A list argument holds two tensors: enough for `cat` and `stack` to
// combine, few enough to keep every call small.
constexpr int ListLength = 2;

std::vector<c10::Symbol> aliasSets(const c10::AliasInfo &Info) {
  std::vector<c10::Symbol> Sets(Info.beforeSets().begin(),
                                Info.beforeSets().end());
  for (const c10::AliasInfo &Element : Info.containedTypes())
    Sets.insert(Sets.end(), Element.beforeSets().begin(),
                Element.beforeSets().end());
  return Sets;
}

} // namespace

std::optional<GenericCall> GenericCall::build(const c10::FunctionSchema &Schema,
                                              const InputProfile &Profile,
                                              std::string &WhyNot) {
  at::manual_seed(CallSeed);
  GenericCall Call(Schema);
  const auto &Args = Schema.arguments();
  for (size_t I = 0; I < Args.size(); ++I) {
    const c10::Argument &Arg = Args[I];
    ArgumentValue Value;
    TensorRole Role = roleOf(Arg.name());
    switch (tensorShapeOf(Arg.type())) {
    case TensorShape::None:
      if (std::optional<c10::IValue> Plain = plainValue(Arg, Profile)) {
        Value.Value = std::move(*Plain);
        break;
      }
      WhyNot = "cannot build argument '" + Arg.name() + "' of type " +
               Arg.real_type()->str();
      return std::nullopt;
    case TensorShape::Optional:
      if (!Profile.OptionalTensorsPresent)
        break;
      [[fallthrough]];
    case TensorShape::Single:
      Value.Kind = ArgumentKind::Tensor;
      Value.Tensors.push_back(
          makeTensor(Role, shapeFor(Arg.name(), Profile), Profile.Values));
      Call.Slots.push_back({I, -1});
      break;
    case TensorShape::List:
      Value.Kind = ArgumentKind::TensorList;
      for (int E = 0; E < ListLength; ++E) {
        Value.Tensors.push_back(
            makeTensor(Role, Profile.Shape, Profile.Values));
        Call.Slots.push_back({I, E});
      }
      break;
    case TensorShape::OptionalList:
      Value.Kind = ArgumentKind::OptionalTensorList;
      Value.Tensors.push_back(
          makeTensor(TensorRole::Indices, Profile.Shape, Profile.Values));
      Call.Slots.push_back({I, 0});
      break;
    }
    Call.Arguments.push_back(std::move(Value));
  }
  return Call;
}

at::Tensor &GenericCall::tensor(TensorSlot Slot) {
  return Arguments[Slot.Argument].Tensors[Slot.Element < 0 ? 0 : Slot.Element];
}

const c10::Argument &GenericCall::argument(TensorSlot Slot) const {
  return Schema->arguments()[Slot.Argument];
}

std::vector<std::string> GenericCall::absentTensors() const {
  std::vector<std::string> Absent;
  for (size_t I = 0; I < Arguments.size(); ++I)
    if (Arguments[I].Kind == ArgumentKind::Value &&
        tensorShapeOf(Schema->arguments()[I].type()) == TensorShape::Optional)
      Absent.push_back(Schema->arguments()[I].name());
  return Absent;
}

std::vector<c10::IValue> GenericCall::run(const c10::OperatorHandle &Op) const {
  std::vector<c10::IValue> Stack;
  for (const ArgumentValue &Value : Arguments) {
    switch (Value.Kind) {
    case ArgumentKind::Value:
      Stack.push_back(Value.Value);
      break;
    case ArgumentKind::Tensor:
      Stack.emplace_back(Value.Tensors.front());
      break;
    case ArgumentKind::TensorList:
      Stack.emplace_back(c10::List<at::Tensor>(Value.Tensors));
      break;
    case ArgumentKind::OptionalTensorList: {
      c10::List<c10::optional<at::Tensor>> List;
      for (const at::Tensor &T : Value.Tensors)
        List.push_back(T);
      Stack.emplace_back(std::move(List));
      break;
    }
    }
  }
  Op.callBoxed(&Stack);
  return Stack;
}

std::vector<c10::OperatorHandle> atenOperators() {
  std::vector<c10::OperatorHandle> Operators;
  for (const c10::OperatorName &Name :
       c10::Dispatcher::singleton().getAllOpNames())
    if (Name.name.rfind("aten::", 0) == 0)
      if (auto Handle = c10::Dispatcher::singleton().findSchema(Name))
        Operators.push_back(*Handle);
  std::sort(Operators.begin(), Operators.end(),
            [](const c10::OperatorHandle &A, const c10::OperatorHandle &B) {
              return std::tie(A.schema().name(), A.schema().overload_name()) <
                     std::tie(B.schema().name(), B.schema().overload_name());
            });
  return Operators;
}

bool isWritten(const c10::Argument &Arg) {
  const c10::AliasInfo *Info = Arg.alias_info();
  if (!Info)
    return false;
  if (Info->isWrite())
    return true;
  return std::any_of(Info->containedTypes().begin(),
                     Info->containedTypes().end(),
                     [](const c10::AliasInfo &E) { return E.isWrite(); });
}

int aliasedArgument(const c10::FunctionSchema &Schema, size_t Result) {
  const c10::AliasInfo *ResultInfo = Schema.returns()[Result].alias_info();
  if (!ResultInfo)
    return -1;
  std::vector<c10::Symbol> ResultSets = aliasSets(*ResultInfo);
  const auto &Args = Schema.arguments();
  for (size_t I = 0; I < Args.size(); ++I)
    if (const c10::AliasInfo *ArgInfo = Args[I].alias_info())
      for (const c10::Symbol &Set : aliasSets(*ArgInfo))
        if (std::find(ResultSets.begin(), ResultSets.end(), Set) !=
            ResultSets.end())
          return static_cast<int>(I);
  return -1;
}

std::vector<at::Tensor> tensorsIn(const c10::IValue &Result) {
  std::vector<at::Tensor> Tensors;
  if (Result.isTensor()) {
    if (Result.toTensor().defined())
      Tensors.push_back(Result.toTensor());
  } else if (Result.isList()) {
    for (const c10::IValue &Element : Result.toListRef()) {
      std::vector<at::Tensor> Inner = tensorsIn(Element);
      Tensors.insert(Tensors.end(), Inner.begin(), Inner.end());
    }
  }
  return Tensors;
}

std::string firstLine(const std::exception &Error) {
  const auto *C10Error = dynamic_cast<const c10::Error *>(&Error);
  llvm::StringRef Message =
      C10Error ? C10Error->what_without_backtrace() : Error.what();
  Message = Message.take_until([](char C) { return C == '\n'; }).rtrim();
  // Messages that list every registered backend run to pages.
  constexpr size_t MaxLength = 160;
  if (Message.size() > MaxLength)
    return (Message.take_front(MaxLength) + "...").str();
  return Message.str();
}

namespace {
class DiscardWarnings : public c10::WarningHandler {
public:
  void process(const c10::SourceLocation &, const std::string &,
               bool) override {}
};
DiscardWarnings Discard;
} // namespace

QuietLibtorch::QuietLibtorch()
    : PreviousHandler(c10::Warning::get_warning_handler()) {
  c10::Warning::set_warning_handler(&Discard);
  c10::SetStackTraceFetcher([] { return std::string(); });
  at::set_num_threads(1);
}

QuietLibtorch::~QuietLibtorch() {
  c10::Warning::set_warning_handler(PreviousHandler);
}

// Note [Isolated measurements]
// Generic arguments reach kernels that validate nothing: some internal
// `*_backward` operators dereference tensors that a forward pass would have
// created, and crash. The operators are therefore measured in a forked
// child, which writes one object a line to a pipe while the parent only
// collects. When the child dies or runs past the time limit, the operator it
// was measuring is measured again alone in a fresh child, so that an
// operator that corrupted the heap cannot make the next one look like the
// culprit; if that child dies too, the operator is skipped with the signal as
// the reason, and a new child goes on with the next operator. The parent runs
// no operator, and libtorch runs one thread (QuietLibtorch), so nothing is
// lost in the fork. Every call reseeds the random generator, so the
// measurements do not depend on which child made them.
namespace {

constexpr unsigned TimeLimitSeconds = 20;

struct ChildRun {
  std::vector<llvm::json::Object> Objects;
  /// Why the child stopped before measuring every operator it was given.
  std::string Death;
};

[[noreturn]] void measureInChild(
    const std::vector<c10::OperatorHandle> &Operators, size_t Begin, size_t End,
    const std::function<llvm::json::Object(const c10::OperatorHandle &)>
        &Measure,
    int Pipe) {
  int DevNull = ::open("/dev/null", O_WRONLY);
  if (DevNull >= 0)
    ::dup2(DevNull, STDERR_FILENO);
  for (size_t I = Begin; I < End; ++I) {
    ::alarm(TimeLimitSeconds);
    std::string Line;
    llvm::raw_string_ostream(Line)
        << llvm::json::Value(Measure(Operators[I])) << "\n";
    for (const char *Data = Line.data(), *Stop = Data + Line.size();
         Data < Stop;) {
      ssize_t Written = ::write(Pipe, Data, Stop - Data);
      if (Written < 0 && errno == EINTR)
        continue;
      if (Written <= 0)
        ::_exit(2);
      Data += Written;
    }
  }
  ::_exit(0);
}

ChildRun
runChild(const std::vector<c10::OperatorHandle> &Operators, size_t Begin,
         size_t End,
         const std::function<llvm::json::Object(const c10::OperatorHandle &)>
             &Measure) {
  ChildRun Run;
  int Pipe[2];
  if (::pipe(Pipe) != 0) {
    Run.Death = "cannot create a pipe";
    return Run;
  }
  pid_t Child = ::fork();
  if (Child == 0) {
    ::close(Pipe[0]);
    measureInChild(Operators, Begin, End, Measure, Pipe[1]);
  }
  ::close(Pipe[1]);
  std::string Text;
  char Chunk[1 << 16];
  for (ssize_t Read;
       Child > 0 && (Read = ::read(Pipe[0], Chunk, sizeof(Chunk))) != 0;) {
    if (Read < 0 && errno == EINTR)
      continue;
    if (Read < 0)
      break;
    Text.append(Chunk, static_cast<size_t>(Read));
  }
  ::close(Pipe[0]);
  if (Child < 0) {
    Run.Death = "cannot fork";
    return Run;
  }
  int Status = 0;
  while (::waitpid(Child, &Status, 0) < 0 && errno == EINTR)
    ;
  // Only complete lines count: a child that died while writing leaves a
  // partial one.
  llvm::StringRef Rest(Text);
  while (Rest.contains('\n')) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Line);
    if (!Parsed) {
      llvm::consumeError(Parsed.takeError());
      break;
    }
    if (llvm::json::Object *Object = Parsed->getAsObject())
      Run.Objects.push_back(std::move(*Object));
  }
  if (WIFSIGNALED(Status))
    Run.Death = WTERMSIG(Status) == SIGALRM
                    ? "the call runs past the time limit"
                    : "the call crashes";
  else if (Run.Objects.size() < End - Begin)
    Run.Death = "the measuring process fails";
  return Run;
}

} // namespace

// Note [Deterministic garbage]
// Given generic arguments, a few operators read memory they never
// initialised (`histogramdd` reads entries past the end of a `bins` list
// shorter than it expects), and what they find there decides whether they
// throw, crash or run. That made regenerations differ.
// glibc can fill every chunk it hands out and takes back with a fixed byte
// (the tunable `glibc.malloc.perturb`), except the chunks on its per-thread
// cache, so the generators run with that cache off, and a stale chunk reads
// the same in every run. Whether a read past the end of a chunk finds mapped
// memory or faults depends on where the heap and the mappings are, which
// address-space randomisation changes from run to run (`unfold_backward`
// with generic arguments crashed in most runs and ran in some), so the
// restarted generator runs without it, as `setarch -R` does. Tunables and
// the personality are read when a program starts: the generator executes
// itself again once, with them set.
void restartWithDeterministicHeap(char **Argv) {
  constexpr const char *Restarted = "TORCHALIAS_DETERMINISTIC_HEAP";
  if (std::getenv(Restarted))
    return;
  std::string Tunables = "glibc.malloc.tcache_count=0:glibc.malloc.perturb=85";
  if (const char *Existing = std::getenv("GLIBC_TUNABLES"))
    Tunables = std::string(Existing) + ":" + Tunables;
  ::setenv("GLIBC_TUNABLES", Tunables.c_str(), 1);
  ::setenv(Restarted, "1", 1);
  int Current = ::personality(0xffffffff);
  if (Current != -1)
    ::personality(static_cast<unsigned long>(Current) | ADDR_NO_RANDOMIZE);
  ::execv("/proc/self/exe", Argv);
  // Where that fails the generator goes on as it is; only the operators
  // above can come out differently.
}

std::vector<llvm::json::Object> measureIsolated(
    const std::vector<c10::OperatorHandle> &Operators,
    const std::function<llvm::json::Object(const c10::OperatorHandle &)>
        &Measure) {
  std::vector<llvm::json::Object> Objects;
  while (Objects.size() < Operators.size()) {
    ChildRun Run =
        runChild(Operators, Objects.size(), Operators.size(), Measure);
    for (llvm::json::Object &Object : Run.Objects)
      Objects.push_back(std::move(Object));
    if (Run.Death.empty() || Objects.size() == Operators.size())
      break;
    size_t Culprit = Objects.size();
    ChildRun Alone = runChild(Operators, Culprit, Culprit + 1, Measure);
    Objects.push_back(
        Alone.Objects.empty()
            ? skippedEntry(Operators[Culprit].schema(), {Alone.Death, ""})
            : std::move(Alone.Objects.front()));
  }
  return Objects;
}

bool isSkippedEntry(const llvm::json::Object &Entry) {
  return Entry.find("reason") != Entry.end();
}

bool writeFactTable(llvm::StringRef Path, llvm::StringRef LibtorchVersion,
                    const std::vector<llvm::json::Object> &Operators,
                    const std::vector<llvm::json::Object> &Skipped) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::errs() << "error: cannot write '" << Path << "': " << EC.message()
                 << "\n";
    return false;
  }
  auto WriteLines = [&OS](const std::vector<llvm::json::Object> &Entries) {
    for (size_t I = 0; I < Entries.size(); ++I)
      OS << llvm::json::Value(llvm::json::Object(Entries[I]))
         << (I + 1 < Entries.size() ? ",\n" : "\n");
  };
  OS << "{\"format\": 1, \"libtorch\": " << llvm::json::Value(LibtorchVersion)
     << ", \"operators\": [\n";
  WriteLines(Operators);
  OS << "], \"skipped\": [\n";
  WriteLines(Skipped);
  OS << "]}\n";
  return true;
}

std::string operatorName(const c10::FunctionSchema &Schema) {
  llvm::StringRef Name = Schema.name();
  Name.consume_front("aten::");
  return Name.str();
}

// Note [Stable reasons]
// The operators of Note [Deterministic garbage] put what they read into
// their messages (`sizes=[4583929122262089729]`), and die of one signal or
// another. Even with the heap made deterministic, the checked-in tables must
// not depend on such bytes, so a skipped entry gives a reason from a fixed
// vocabulary, and libtorch's messages are printed only on request
// (`--explain`).
std::string callFailure(llvm::StringRef Message) {
  if (Message.contains("Could not run '") && Message.contains("backend"))
    return "call fails: no kernel for dense CPU tensors";
  if (Message.contains("not implemented for '"))
    return "call fails: no kernel for the dtypes tried";
  return "call fails: the generic arguments do not pass its checks";
}

std::string backwardFailure(llvm::StringRef Message) {
  if (Message.contains("derivative for") || Message.contains("not implemented"))
    return "backward fails: not implemented";
  return "backward fails on the generic arguments";
}

void describeProfile(const InputProfile &Profile, llvm::json::Object &Entry) {
  llvm::json::Array Shape;
  for (int64_t Extent : Profile.Shape)
    Shape.push_back(Extent);
  Entry["input_shape"] = std::move(Shape);
  if (Profile.RanksFromNames)
    Entry["ranks_from_names"] = true;
  if (Profile.Values != at::kDouble)
    Entry["input_dtype"] = std::string(c10::toString(Profile.Values));
}

llvm::json::Object skippedEntry(const c10::FunctionSchema &Schema,
                                const SkipReason &Why) {
  llvm::json::Object Entry{{"name", operatorName(Schema)},
                           {"overload", Schema.overload_name()},
                           {"reason", Why.Reason}};
  if (!Why.Message.empty())
    Entry["message"] = Why.Message;
  return Entry;
}

void takeMessages(std::vector<llvm::json::Object> &Skipped,
                  llvm::raw_ostream *Explain) {
  for (llvm::json::Object &Entry : Skipped) {
    auto Name = Entry.getString("name");
    auto Overload = Entry.getString("overload");
    auto Reason = Entry.getString("reason");
    auto Message = Entry.getString("message");
    if (Explain)
      *Explain << *Name << "." << *Overload << ": " << *Reason
               << (Message ? (": " + *Message).str() : std::string()) << "\n";
    // Rebuilt rather than erased from: LLVM 19's Object::erase leaves a key
    // it parsed behind with its value destroyed.
    Entry = llvm::json::Object{{"name", Name->str()},
                               {"overload", Overload->str()},
                               {"reason", Reason->str()}};
  }
}

} // namespace torchalias::tablegen
