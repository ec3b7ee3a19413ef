//===- GenerateApiEffects.cpp - measure libtorch's C++ API -----------------===//
//
// Runs the functions and module forwards of libtorch's C++ API that take
// tensors which the caller may hold elsewhere (running statistics, weights,
// inputs of `inplace` activations, the tensor an `nn::init` function fills)
// and measures what each does to them (Note [Measuring API effects]): which
// it writes in place, which it saves for backward, and what a write does when
// the written tensor is also passed as another argument. No schema says any
// of it: `aten::batch_norm` declares no written argument, and
// `torch::nn::init` and `torch::nn::functional` are C++ with no schema at
// all. The table this writes is checks/data/libtorch-api-effects.json; see
// docs/operator-table.md for the format.
//
//===----------------------------------------------------------------------===//

#include "GenericCalls.h"

#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/nn.h>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace torchalias::tablegen;
namespace F = torch::nn::functional;
namespace nn = torch::nn;

namespace {

llvm::cl::opt<std::string> OutputPath("o", llvm::cl::desc("Output file"),
                                      llvm::cl::value_desc("path"),
                                      llvm::cl::init("-"));
llvm::cl::opt<std::string>
    LibtorchVersion("libtorch-version",
                    llvm::cl::desc("Version recorded in the table"),
                    llvm::cl::init(TORCHALIAS_LIBTORCH_VERSION));

// Note [Measuring API effects]
// Each probe calls one entry point of the C++ API under one setting of the
// options that decide what it does (`training`, `inplace`, `max_norm`, a
// module's train()/eval() state), on fresh tensors drawn from a fixed seed.
// - Written: the tensor's `_version()` moved during the call, or its values
//   changed. Every in-place tensor operation bumps the version, also under
//   NoGradGuard, which is where `nn::init` and the max-norm renormalisation
//   of `embedding` write. Some kernels write through the data pointer
//   instead: `batch_norm` updates its running statistics so, and autograd
//   cannot notice such a write (`writes_without_version`).
// - Saved: bumping the tensor's version after the call (which changes no
//   value) makes backward of the result throw "modified by an inplace
//   operation", as in Note [Measuring saved tensors]. The differentiable
//   tensors of a probe require grad; a written one is a clone of a leaf, as
//   autograd refuses in-place writes into a leaf.
// - Aliased: for each written tensor and each other tensor of the same
//   shape, the call runs again with the other tensor replaced by the written
//   one, and its result and the written tensor are compared with a run on
//   equal copies: `corrupts` where they differ, `rejects` where the call
//   threw, `accepts` where they are the same.
// - Into a leaf: the call also writes the tensor when it is a leaf that
//   requires grad (`writes_grad_leaves`), as functions that write under
//   their own NoGradGuard do; autograd refuses any other such write.
// - Returned: the result shares storage with the tensor (`returns`), as
//   an `inplace` activation returns its input.
// A module's tensors are its input and its parameters and buffers, by the
// names `named_parameters()` and `named_buffers()` give them.

/// A tensor a probe passes, by the C++ parameter or option that takes it.
struct TensorSpec {
  std::string Name;
  std::vector<int64_t> Shape;
  bool Differentiable = true;
  bool Indices = false; ///< Integer indices into a table (`embedding`).
  bool Positive = false; ///< A variance.
};

using Tensors = std::map<std::string, at::Tensor>;

/// One setting of the options, by option or parameter name.
using Setting = std::vector<std::pair<std::string, bool>>;

/// A call of a function of the API.
struct FunctionProbe {
  Setting When;
  std::function<at::Tensor(Tensors &)> Call;
};

/// A module built under one setting, and its forward.
struct ModuleRun {
  std::shared_ptr<nn::Module> Module;
  std::function<at::Tensor(const at::Tensor &)> Forward;
};

struct ModuleProbe {
  Setting When;
  std::function<ModuleRun()> Build;
};

/// An entry point and the settings it is measured under.
struct Entry {
  std::string Api;
  bool IsModule = false;
  std::vector<TensorSpec> Inputs; ///< For a module, only its input.
  /// The options' defaults, where the C++ API has them.
  Setting Defaults;
  std::vector<FunctionProbe> Functions;
  std::vector<ModuleProbe> Modules;
};

constexpr uint64_t Seed = 20261204;
constexpr llvm::StringLiteral ModifiedSavedTensor =
    "modified by an inplace operation";

at::Tensor freshTensor(const TensorSpec &Spec) {
  if (Spec.Indices)
    return at::randint(0, 5, Spec.Shape, at::kLong);
  if (Spec.Positive)
    return at::rand(Spec.Shape, at::kFloat) + 0.5;
  // Values on both sides of zero, so that activations change some of them.
  return at::randn(Spec.Shape, at::kFloat);
}

Tensors freshTensors(const std::vector<TensorSpec> &Specs) {
  torch::manual_seed(Seed);
  Tensors Result;
  for (const TensorSpec &Spec : Specs)
    Result[Spec.Name] = freshTensor(Spec);
  return Result;
}

/// How a call changed a tensor.
enum class Change {
  None,
  Versioned,  ///< Its version moved (and perhaps its values).
  ValuesOnly, ///< Its values changed and its version did not: a kernel
              ///< that writes through the data pointer (`batch_norm`'s
              ///< running statistics), which autograd cannot notice.
};

/// The versions and values of some tensors before a call.
class Snapshot {
public:
  explicit Snapshot(const Tensors &Named) {
    for (const auto &[Name, T] : Named)
      Before[Name] = {T._version(), T.clone()};
  }

  Change change(const std::string &Name, const at::Tensor &After) const {
    const auto &[Version, Values] = Before.at(Name);
    if (After._version() != Version)
      return Change::Versioned;
    return at::equal(After, Values) ? Change::None : Change::ValuesOnly;
  }

private:
  std::map<std::string, std::pair<int64_t, at::Tensor>> Before;
};

llvm::json::Array namesOf(const std::vector<std::string> &Names) {
  return llvm::json::Array(Names);
}

llvm::json::Object settingObject(const Setting &S) {
  llvm::json::Object Result;
  for (const auto &[Name, Value] : S)
    Result[Name] = Value;
  return Result;
}

void runBackward(const at::Tensor &Result) {
  torch::autograd::backward({Result.sum()});
}

/// Whether backward throws for a saved tensor after \p Bump bumps the
/// version of some of the probe's tensors.
bool backwardRefuses(const std::function<at::Tensor(Tensors &)> &Call,
                     const std::vector<TensorSpec> &Specs,
                     const std::set<std::string> &Written,
                     const std::function<void(Tensors &, at::Tensor &)> &Bump) {
  Tensors Named = freshTensors(Specs);
  for (const TensorSpec &Spec : Specs) {
    if (!Spec.Differentiable || Spec.Indices)
      continue;
    at::Tensor &T = Named[Spec.Name];
    T.requires_grad_(true);
    if (Written.count(Spec.Name))
      T = T.clone();
  }
  at::Tensor Result = Call(Named);
  if (!Result.requires_grad())
    return false;
  Bump(Named, Result);
  try {
    runBackward(Result);
  } catch (const std::exception &E) {
    if (llvm::StringRef(E.what()).contains(ModifiedSavedTensor))
      return true;
    throw;
  }
  return false;
}

/// What a call computes: its result and the final value of every tensor.
struct Outcome {
  bool Threw = false;
  at::Tensor Result;
  Tensors Final;
};

Outcome runOnCopies(const std::function<at::Tensor(Tensors &)> &Call,
                    Tensors Named) {
  Outcome Out;
  try {
    torch::NoGradGuard NoGrad;
    torch::manual_seed(Seed + 1);
    Out.Result = Call(Named).clone();
  } catch (const std::exception &) {
    Out.Threw = true;
  }
  Out.Final = std::move(Named);
  return Out;
}

/// The verdict of passing the written tensor \p Written as \p Other too.
std::string aliasVerdict(const std::function<at::Tensor(Tensors &)> &Call,
                         const std::vector<TensorSpec> &Specs,
                         const std::string &Written, const std::string &Other) {
  Tensors Copies = freshTensors(Specs);
  Copies[Other] = Copies[Written].clone();
  Tensors Reference;
  for (const auto &[Name, T] : Copies)
    Reference[Name] = T.clone();
  Tensors Aliased = Copies;
  Aliased[Other] = Aliased[Written];
  Outcome Expected = runOnCopies(Call, Reference);
  Outcome Actual = runOnCopies(Call, Aliased);
  if (Actual.Threw && !Expected.Threw)
    return "rejects";
  if (Expected.Threw)
    return "untested";
  bool Same = at::allclose(Expected.Result, Actual.Result) &&
              at::allclose(Expected.Final[Written], Actual.Final[Written]);
  return Same ? "accepts" : "corrupts";
}

llvm::json::Object measureFunction(const Entry &E, const FunctionProbe &P) {
  std::vector<std::string> Writes, Unversioned, Saves;
  std::set<std::string> Written;
  std::string Returns;
  {
    Tensors Named = freshTensors(E.Inputs);
    Snapshot Before(Named);
    torch::NoGradGuard NoGrad;
    at::Tensor Result = P.Call(Named);
    for (const auto &[Name, T] : Named)
      if (Result.is_alias_of(T))
        Returns = Name;
    for (const auto &[Name, T] : Named) {
      Change C = Before.change(Name, T);
      if (C == Change::None)
        continue;
      Writes.push_back(Name);
      Written.insert(Name);
      if (C == Change::ValuesOnly)
        Unversioned.push_back(Name);
    }
  }
  // A write under the function's own NoGradGuard (`nn::init`, max-norm
  // renormalisation) is allowed into a leaf that requires grad; any other
  // throws "a leaf Variable that requires grad is being used in an in-place
  // operation".
  std::vector<std::string> WritesLeaves;
  for (const TensorSpec &Spec : E.Inputs) {
    if (!Written.count(Spec.Name) || !Spec.Differentiable)
      continue;
    Tensors Named = freshTensors(E.Inputs);
    Named[Spec.Name].requires_grad_(true);
    try {
      P.Call(Named);
      WritesLeaves.push_back(Spec.Name);
    } catch (const std::exception &) {
    }
  }
  bool SavesResult = false;
  for (const TensorSpec &Spec : E.Inputs) {
    if (!Spec.Differentiable || Spec.Indices)
      continue;
    if (backwardRefuses(P.Call, E.Inputs, Written,
                        [&](Tensors &Named, at::Tensor &) {
                          torch::autograd::impl::bump_version(Named[Spec.Name]);
                        }))
      Saves.push_back(Spec.Name);
  }
  // A result that aliases a written input shares its version counter, so it
  // is not told apart from it.
  if (Written.empty())
    SavesResult = backwardRefuses(P.Call, E.Inputs, Written,
                                  [](Tensors &, at::Tensor &Result) {
                                    torch::autograd::impl::bump_version(Result);
                                  });
  llvm::json::Object Aliasing;
  for (const std::string &W : Writes) {
    llvm::json::Object Verdicts;
    const TensorSpec *WrittenSpec = nullptr;
    for (const TensorSpec &Spec : E.Inputs)
      if (Spec.Name == W)
        WrittenSpec = &Spec;
    for (const TensorSpec &Spec : E.Inputs)
      if (Spec.Name != W && !Spec.Indices && Spec.Shape == WrittenSpec->Shape)
        Verdicts[Spec.Name] = aliasVerdict(P.Call, E.Inputs, W, Spec.Name);
    if (!Verdicts.empty())
      Aliasing[W] = std::move(Verdicts);
  }
  llvm::json::Object Case{{"when", settingObject(P.When)},
                          {"writes", namesOf(Writes)},
                          {"saves", namesOf(Saves)}};
  if (!Unversioned.empty())
    Case["writes_without_version"] = namesOf(Unversioned);
  if (!WritesLeaves.empty())
    Case["writes_grad_leaves"] = namesOf(WritesLeaves);
  if (!Returns.empty())
    Case["returns"] = Returns;
  if (SavesResult)
    Case["saves_result"] = true;
  if (!Aliasing.empty())
    Case["aliasing"] = std::move(Aliasing);
  return Case;
}

/// The module's parameters and buffers, by name.
Tensors moduleTensors(const nn::Module &M) {
  Tensors Result;
  for (const auto &Item : M.named_parameters())
    Result[Item.key()] = Item.value();
  for (const auto &Item : M.named_buffers())
    Result[Item.key()] = Item.value();
  return Result;
}

/// What moduleBackwardRefuses bumps the version of.
constexpr llvm::StringLiteral TheInput = "", TheResult = "<result>";

/// Whether backward throws for a saved tensor after bumping the version of
/// the module's member \p Member, of the input (TheInput) or of the result
/// (TheResult).
bool moduleBackwardRefuses(const Entry &E, const ModuleProbe &P,
                           const std::string &Member, bool InputWritten) {
  torch::manual_seed(Seed);
  ModuleRun Run = P.Build();
  at::Tensor Input = freshTensor(E.Inputs.front());
  bool Differentiable = E.Inputs.front().Differentiable;
  if (Differentiable) {
    Input.requires_grad_(true);
    if (InputWritten)
      Input = Input.clone();
  }
  at::Tensor Result = Run.Forward(Input);
  if (!Result.requires_grad())
    return false;
  if (Member == TheResult) {
    torch::autograd::impl::bump_version(Result);
  } else if (Member == TheInput) {
    if (!Differentiable)
      return false;
    torch::autograd::impl::bump_version(Input);
  } else {
    torch::autograd::impl::bump_version(moduleTensors(*Run.Module)[Member]);
  }
  try {
    runBackward(Result);
  } catch (const std::exception &Error) {
    if (llvm::StringRef(Error.what()).contains(ModifiedSavedTensor))
      return true;
    throw;
  }
  return false;
}

llvm::json::Object measureModule(const Entry &E, const ModuleProbe &P) {
  std::vector<std::string> WritesMembers, Unversioned, SavesMembers;
  bool WritesInput = false, ReturnsInput = false;
  std::vector<std::string> Members;
  {
    torch::manual_seed(Seed);
    ModuleRun Run = P.Build();
    Tensors Named = moduleTensors(*Run.Module);
    Named["input"] = freshTensor(E.Inputs.front());
    Snapshot Before(Named);
    torch::NoGradGuard NoGrad;
    ReturnsInput = Run.Forward(Named["input"]).is_alias_of(Named["input"]);
    for (const auto &[Name, T] : Named) {
      Change C = Before.change(Name, T);
      if (Name == "input") {
        WritesInput = C != Change::None;
        continue;
      }
      Members.push_back(Name);
      if (C == Change::None)
        continue;
      WritesMembers.push_back(Name);
      if (C == Change::ValuesOnly)
        Unversioned.push_back(Name);
    }
  }
  for (const std::string &Member : Members)
    if (at::isFloatingType(moduleTensors(*P.Build().Module)[Member]
                               .scalar_type()) &&
        moduleBackwardRefuses(E, P, Member, WritesInput))
      SavesMembers.push_back(Member);
  bool SavesInput = moduleBackwardRefuses(E, P, TheInput.str(), WritesInput);
  // A result that is the written input shares its version counter, so it is
  // not told apart from it.
  bool SavesResult =
      !WritesInput && moduleBackwardRefuses(E, P, TheResult.str(), false);
  llvm::json::Object Case{{"when", settingObject(P.When)},
                          {"writes", WritesInput ? llvm::json::Array{"input"}
                                                 : llvm::json::Array{}},
                          {"writes_members", namesOf(WritesMembers)},
                          {"saves", SavesInput ? llvm::json::Array{"input"}
                                               : llvm::json::Array{}},
                          {"saves_members", namesOf(SavesMembers)}};
  if (!Unversioned.empty())
    Case["writes_without_version"] = namesOf(Unversioned);
  if (ReturnsInput)
    Case["returns"] = "input";
  if (SavesResult)
    Case["saves_result"] = true;
  return Case;
}

llvm::json::Object measure(const Entry &E) {
  llvm::json::Array Cases;
  for (const FunctionProbe &P : E.Functions)
    Cases.push_back(measureFunction(E, P));
  for (const ModuleProbe &P : E.Modules)
    Cases.push_back(measureModule(E, P));
  llvm::json::Array Inputs;
  for (const TensorSpec &Spec : E.Inputs)
    Inputs.push_back(Spec.Name);
  llvm::json::Object Result{{"api", E.Api},
                            {"kind", E.IsModule ? "module" : "function"},
                            {"tensors", std::move(Inputs)},
                            {"cases", std::move(Cases)}};
  if (!E.Defaults.empty())
    Result["defaults"] = settingObject(E.Defaults);
  return Result;
}

//===----------------------------------------------------------------------===//
// The probes. What is written here is only how to call each entry point;
// what it does is measured.
//===----------------------------------------------------------------------===//

const std::vector<int64_t> Batch = {2, 3, 4}; // N, C, L
const std::vector<int64_t> Channels = {3};
const std::vector<int64_t> Matrix = {3, 4};

std::vector<Entry> normalisationEntries() {
  std::vector<Entry> Entries;
  std::vector<TensorSpec> NormInputs = {{"input", Batch},
                                        {"weight", Channels},
                                        {"bias", Channels},
                                        {"running_mean", Channels, false},
                                        {"running_var", Channels, false, false, true}};
  Entry AtBatchNorm{"at::batch_norm", false, NormInputs, {}, {}, {}};
  Entry AtInstanceNorm{"at::instance_norm", false, NormInputs, {}, {}, {}};
  for (bool On : {false, true}) {
    AtBatchNorm.Functions.push_back({{{"training", On}}, [On](Tensors &T) {
      return at::batch_norm(T["input"], T["weight"], T["bias"],
                            T["running_mean"], T["running_var"], On,
                            0.1, 1e-5, false);
    }});
    AtInstanceNorm.Functions.push_back(
        {{{"use_input_stats", On}}, [On](Tensors &T) {
           return at::instance_norm(T["input"], T["weight"], T["bias"],
                                    T["running_mean"], T["running_var"],
                                    On, 0.1, 1e-5, false);
         }});
  }
  Entries.push_back(std::move(AtBatchNorm));
  Entries.push_back(std::move(AtInstanceNorm));

  Entry FBatchNorm{"torch::nn::functional::batch_norm", false, NormInputs,
                   {{"training", F::BatchNormFuncOptions().training()}}, {},
                   {}};
  for (bool On : {false, true})
    FBatchNorm.Functions.push_back({{{"training", On}}, [On](Tensors &T) {
      return F::batch_norm(T["input"], T["running_mean"],
                           T["running_var"],
                           F::BatchNormFuncOptions()
                               .weight(T["weight"])
                               .bias(T["bias"])
                               .training(On));
    }});
  Entries.push_back(std::move(FBatchNorm));

  Entry FInstanceNorm{
      "torch::nn::functional::instance_norm", false, NormInputs,
      {{"use_input_stats", F::InstanceNormFuncOptions().use_input_stats()}},
      {}, {}};
  for (bool On : {false, true})
    FInstanceNorm.Functions.push_back(
        {{{"use_input_stats", On}}, [On](Tensors &T) {
           return F::instance_norm(T["input"],
                                   F::InstanceNormFuncOptions()
                                       .running_mean(T["running_mean"])
                                       .running_var(T["running_var"])
                                       .weight(T["weight"])
                                       .bias(T["bias"])
                                       .use_input_stats(On));
         }});
  Entries.push_back(std::move(FInstanceNorm));

  auto BatchNormModule = [](std::string Api, auto Make,
                            std::vector<int64_t> Shape) {
    Entry E{std::move(Api), true, {{"input", std::move(Shape)}},
            {{"training", Make()->is_training()}}, {}, {}};
    for (bool Training : {false, true})
      E.Modules.push_back({{{"training", Training}}, [Make, Training] {
        auto M = Make();
        M->train(Training);
        return ModuleRun{M.ptr(), [M](const at::Tensor &X) mutable {
                           return M->forward(X);
                         }};
      }});
    return E;
  };
  Entries.push_back(BatchNormModule(
      "torch::nn::BatchNorm1d", [] { return nn::BatchNorm1d(3); }, Batch));
  Entries.push_back(BatchNormModule(
      "torch::nn::BatchNorm2d", [] { return nn::BatchNorm2d(3); },
      {2, 3, 2, 2}));
  Entries.push_back(BatchNormModule(
      "torch::nn::BatchNorm3d", [] { return nn::BatchNorm3d(3); },
      {2, 3, 2, 2, 2}));
  Entries.push_back(BatchNormModule(
      "torch::nn::InstanceNorm1d",
      [] {
        return nn::InstanceNorm1d(
            nn::InstanceNorm1dOptions(3).track_running_stats(true));
      },
      Batch));
  return Entries;
}

std::vector<Entry> embeddingEntries() {
  std::vector<Entry> Entries;
  Entry FEmbedding{"torch::nn::functional::embedding",
                   false,
                   {{"input", {2, 2}, false, true}, {"weight", {5, 3}}},
                   {{"max_norm", false}},
                   {},
                   {}};
  for (bool Set : {false, true})
    FEmbedding.Functions.push_back({{{"max_norm", Set}}, [Set](Tensors &T) {
      F::EmbeddingFuncOptions Options;
      if (Set)
        Options.max_norm(0.5);
      return F::embedding(T["input"], T["weight"], Options);
    }});
  Entries.push_back(std::move(FEmbedding));

  Entry Embedding{"torch::nn::Embedding", true,
                  {{"input", {2, 2}, false, true}}, {{"max_norm", false}},
                  {}, {}};
  for (bool Set : {false, true})
    Embedding.Modules.push_back({{{"max_norm", Set}}, [Set] {
      nn::EmbeddingOptions Options(5, 3);
      if (Set)
        Options.max_norm(0.5);
      nn::Embedding M(Options);
      return ModuleRun{M.ptr(), [M](const at::Tensor &X) mutable {
                         return M->forward(X);
                       }};
    }});
  Entries.push_back(std::move(Embedding));
  return Entries;
}

/// `inplace` activations, as functions and as modules.
std::vector<Entry> activationEntries() {
  std::vector<Entry> Entries;
  std::vector<TensorSpec> Input = {{"input", Matrix}};
  auto Function = [&](std::string Api,
                      std::function<at::Tensor(at::Tensor, bool)> Call) {
    Entry E{std::move(Api), false, Input, {{"inplace", false}}, {}, {}};
    for (bool On : {false, true})
      E.Functions.push_back({{{"inplace", On}}, [Call, On](Tensors &T) {
        return Call(T["input"], On);
      }});
    Entries.push_back(std::move(E));
  };
  Function("torch::nn::functional::relu", [](at::Tensor X, bool On) {
    return F::relu(X, F::ReLUFuncOptions().inplace(On));
  });
  Function("torch::nn::functional::relu6", [](at::Tensor X, bool On) {
    return F::relu6(X, F::ReLU6FuncOptions().inplace(On));
  });
  Function("torch::nn::functional::leaky_relu", [](at::Tensor X, bool On) {
    return F::leaky_relu(X, F::LeakyReLUFuncOptions().inplace(On));
  });
  Function("torch::nn::functional::elu", [](at::Tensor X, bool On) {
    return F::elu(X, F::ELUFuncOptions().inplace(On));
  });
  Function("torch::nn::functional::selu", [](at::Tensor X, bool On) {
    return F::selu(X, F::SELUFuncOptions().inplace(On));
  });
  Function("torch::nn::functional::celu", [](at::Tensor X, bool On) {
    return F::celu(X, F::CELUFuncOptions().inplace(On));
  });
  Function("torch::nn::functional::hardtanh", [](at::Tensor X, bool On) {
    return F::hardtanh(X, F::HardtanhFuncOptions().inplace(On));
  });
  Function("torch::nn::functional::threshold", [](at::Tensor X, bool On) {
    return F::threshold(X, F::ThresholdFuncOptions(0.1, 0.0).inplace(On));
  });
  Function("torch::nn::functional::dropout", [](at::Tensor X, bool On) {
    return F::dropout(X, F::DropoutFuncOptions().p(0.5).inplace(On));
  });

  auto Module = [&](std::string Api, std::function<ModuleRun(bool)> Build,
                    std::vector<int64_t> Shape = Matrix) {
    Entry E{std::move(Api), true, {{"input", std::move(Shape)}},
            {{"inplace", false}}, {}, {}};
    for (bool On : {false, true})
      E.Modules.push_back({{{"inplace", On}}, [Build, On] { return Build(On); }});
    Entries.push_back(std::move(E));
  };
  auto Run = [](auto M) {
    return ModuleRun{M.ptr(),
                     [M](const at::Tensor &X) mutable { return M->forward(X); }};
  };
  Module("torch::nn::ReLU", [Run](bool On) {
    return Run(nn::ReLU(nn::ReLUOptions().inplace(On)));
  });
  Module("torch::nn::ReLU6", [Run](bool On) {
    return Run(nn::ReLU6(nn::ReLU6Options().inplace(On)));
  });
  Module("torch::nn::LeakyReLU", [Run](bool On) {
    return Run(nn::LeakyReLU(nn::LeakyReLUOptions().inplace(On)));
  });
  Module("torch::nn::ELU", [Run](bool On) {
    return Run(nn::ELU(nn::ELUOptions().inplace(On)));
  });
  Module("torch::nn::Hardtanh", [Run](bool On) {
    return Run(nn::Hardtanh(nn::HardtanhOptions().inplace(On)));
  });
  Module("torch::nn::Dropout", [Run](bool On) {
    return Run(nn::Dropout(nn::DropoutOptions(0.5).inplace(On)));
  });
  Module("torch::nn::SELU", [Run](bool On) {
    return Run(nn::SELU(nn::SELUOptions().inplace(On)));
  });
  Module("torch::nn::CELU", [Run](bool On) {
    return Run(nn::CELU(nn::CELUOptions().inplace(On)));
  });
  Module("torch::nn::Threshold", [Run](bool On) {
    return Run(nn::Threshold(nn::ThresholdOptions(0.1, 0.0).inplace(On)));
  });
  Module("torch::nn::Dropout2d",
         [Run](bool On) {
           return Run(nn::Dropout2d(nn::Dropout2dOptions(0.5).inplace(On)));
         },
         {2, 3, 2, 2});
  Module("torch::nn::Dropout3d",
         [Run](bool On) {
           return Run(nn::Dropout3d(nn::Dropout3dOptions(0.5).inplace(On)));
         },
         {2, 3, 2, 2, 2});
  Module("torch::nn::AlphaDropout", [Run](bool On) {
    return Run(nn::AlphaDropout(nn::AlphaDropoutOptions(0.5).inplace(On)));
  });
  Module("torch::nn::FeatureAlphaDropout",
         [Run](bool On) {
           return Run(nn::FeatureAlphaDropout(
               nn::FeatureAlphaDropoutOptions(0.5).inplace(On)));
         },
         {2, 3, 2, 2});
  return Entries;
}

/// The `nn::init` functions: each one a single case.
std::vector<Entry> initEntries() {
  std::vector<Entry> Entries;
  auto Init = [&](std::string Api, std::function<void(at::Tensor)> Call,
                  std::vector<int64_t> Shape = Matrix) {
    Entry E{std::move(Api), false, {{"tensor", std::move(Shape)}}, {}, {}, {}};
    E.Functions.push_back({{}, [Call](Tensors &T) {
      Call(T["tensor"]);
      return at::Tensor(T["tensor"]);
    }});
    Entries.push_back(std::move(E));
  };
  namespace init = nn::init;
  Init("torch::nn::init::constant_", [](at::Tensor T) { init::constant_(T, 0.5); });
  Init("torch::nn::init::dirac_", [](at::Tensor T) { init::dirac_(T); },
       {3, 3, 3});
  Init("torch::nn::init::eye_", [](at::Tensor T) { init::eye_(T); });
  Init("torch::nn::init::kaiming_normal_",
       [](at::Tensor T) { init::kaiming_normal_(T); });
  Init("torch::nn::init::kaiming_uniform_",
       [](at::Tensor T) { init::kaiming_uniform_(T); });
  Init("torch::nn::init::normal_", [](at::Tensor T) { init::normal_(T); });
  Init("torch::nn::init::ones_", [](at::Tensor T) { init::ones_(T); });
  Init("torch::nn::init::orthogonal_", [](at::Tensor T) { init::orthogonal_(T); });
  Init("torch::nn::init::sparse_", [](at::Tensor T) { init::sparse_(T, 0.5); });
  Init("torch::nn::init::uniform_", [](at::Tensor T) { init::uniform_(T); });
  Init("torch::nn::init::xavier_normal_",
       [](at::Tensor T) { init::xavier_normal_(T); });
  Init("torch::nn::init::xavier_uniform_",
       [](at::Tensor T) { init::xavier_uniform_(T); });
  Init("torch::nn::init::zeros_", [](at::Tensor T) { init::zeros_(T); });
  return Entries;
}

/// Modules whose forward writes nothing, for what they save.
std::vector<Entry> savingModuleEntries() {
  std::vector<Entry> Entries;
  auto Module = [&](std::string Api, std::vector<int64_t> Shape,
                    std::function<ModuleRun()> Build) {
    Entry E{std::move(Api), true, {{"input", std::move(Shape)}}, {}, {}, {}};
    E.Modules.push_back({{}, std::move(Build)});
    Entries.push_back(std::move(E));
  };
  auto Run = [](auto M) {
    return ModuleRun{M.ptr(),
                     [M](const at::Tensor &X) mutable { return M->forward(X); }};
  };
  Module("torch::nn::Linear", Matrix, [Run] { return Run(nn::Linear(4, 2)); });
  Module("torch::nn::Conv1d", Batch, [Run] { return Run(nn::Conv1d(3, 2, 2)); });
  Module("torch::nn::LayerNorm", Matrix, [Run] {
    return Run(nn::LayerNorm(nn::LayerNormOptions({4})));
  });
  Module("torch::nn::GroupNorm", Batch, [Run] { return Run(nn::GroupNorm(1, 3)); });
  Module("torch::nn::PReLU", Matrix, [Run] { return Run(nn::PReLU()); });
  Module("torch::nn::Conv2d", {2, 3, 3, 3},
         [Run] { return Run(nn::Conv2d(3, 2, 2)); });
  Module("torch::nn::Conv3d", {2, 3, 3, 3, 3},
         [Run] { return Run(nn::Conv3d(3, 2, 2)); });
  Module("torch::nn::ConvTranspose1d", Batch,
         [Run] { return Run(nn::ConvTranspose1d(3, 2, 2)); });
  Module("torch::nn::ConvTranspose2d", {2, 3, 3, 3},
         [Run] { return Run(nn::ConvTranspose2d(3, 2, 2)); });
  Module("torch::nn::Bilinear", Matrix, [Run] {
    auto M = nn::Bilinear(4, 4, 2);
    return ModuleRun{
        M.ptr(), [M](const at::Tensor &X) mutable { return M->forward(X, X); }};
  });
  // Activations without options: what they save of their input or result.
  Module("torch::nn::Sigmoid", Matrix, [Run] { return Run(nn::Sigmoid()); });
  Module("torch::nn::Tanh", Matrix, [Run] { return Run(nn::Tanh()); });
  Module("torch::nn::GELU", Matrix, [Run] { return Run(nn::GELU()); });
  Module("torch::nn::SiLU", Matrix, [Run] { return Run(nn::SiLU()); });
  Module("torch::nn::Mish", Matrix, [Run] { return Run(nn::Mish()); });
  Module("torch::nn::Softplus", Matrix, [Run] { return Run(nn::Softplus()); });
  Module("torch::nn::Softmax", Matrix, [Run] { return Run(nn::Softmax(1)); });
  Module("torch::nn::LogSoftmax", Matrix,
         [Run] { return Run(nn::LogSoftmax(1)); });
  Module("torch::nn::Identity", Matrix, [Run] { return Run(nn::Identity()); });
  return Entries;
}

std::vector<Entry> entries() {
  std::vector<Entry> All;
  for (auto Group : {normalisationEntries, embeddingEntries,
                     activationEntries, initEntries, savingModuleEntries})
    for (Entry &E : Group())
      All.push_back(std::move(E));
  llvm::sort(All, [](const Entry &A, const Entry &B) { return A.Api < B.Api; });
  return All;
}

} // namespace

int main(int Argc, char **Argv) {
  llvm::cl::ParseCommandLineOptions(
      Argc, Argv,
      "Measures what libtorch's C++ functions and module forwards write and "
      "save\n");
  at::set_num_threads(1);
  std::vector<llvm::json::Object> Measured;
  for (const Entry &E : entries()) {
    try {
      Measured.push_back(measure(E));
    } catch (const std::exception &Error) {
      llvm::errs() << "error: measuring '" << E.Api
                   << "' failed: " << firstLine(Error) << "\n";
      return 1;
    }
  }
  return writeFactTable(OutputPath, LibtorchVersion, Measured, {}) ? 0 : 1;
}
