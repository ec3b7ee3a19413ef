//===- GenerateOperatorTable.cpp - write the aten:: operator table --------===//
//
// Walks every schema registered with c10::Dispatcher and writes the facts the
// checks need about each aten:: operator overload as JSON: which arguments are
// written (`Tensor(a!)`), which are `out=` arguments, which arguments the
// results alias (`Tensor(a)`, `Tensor(a -> *)`), and whether an aliasing
// operator is a definite view or only may alias its input.
//
// The checks read the table; they hold no operator list of their own. See
// docs/operator-table.md for the format.
//
//===----------------------------------------------------------------------===//

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/torch.h>

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

llvm::cl::opt<std::string> OutputPath("o", llvm::cl::desc("Output file"),
                                      llvm::cl::value_desc("path"),
                                      llvm::cl::init("-"));
llvm::cl::opt<std::string>
    LibtorchVersion("libtorch-version",
                    llvm::cl::desc("Version recorded in the table"),
                    llvm::cl::init(TORCHALIAS_LIBTORCH_VERSION));

// Note [Definite views]
// PyTorch generates a `<op>_copy` twin for every operator that is implemented
// as a view (the functionalization pass needs it), so having a twin is the
// schema-level proof that an operator always returns a view. A few composite
// operators are always views too but have no twin because they are written in
// terms of twinned views; they are listed here. Every other operator whose
// result aliases an input (`reshape`, `contiguous`, `to`, `flatten`, ...)
// returns its input or a view only when the layout allows, and is "may-alias".
const llvm::StringSet<> CompositeViews = {
    "chunk",   "tensor_split", "hsplit",    "vsplit", "dsplit", "movedim",
    "moveaxis", "swapaxes",    "swapdims",  "mT",     "mH",     "adjoint",
    "real",    "imag",         "unflatten", "view_as", "expand_as",
    "broadcast_to", "numpy_T", "matrix_H"};

// Note [Expanding views]
// Zero strides cannot be read off a schema. These operators return views in
// which several elements share one memory location, so an in-place write
// through them is an internal overlap.
const llvm::StringSet<> ExpandingViews = {"expand", "expand_as",
                                          "broadcast_to", "broadcast_tensors"};

/// The alias sets an argument or result belongs to, including those of the
/// elements of a list (`Tensor(a)[]`).
std::vector<c10::Symbol> aliasSets(const c10::AliasInfo &Info) {
  std::vector<c10::Symbol> Sets(Info.beforeSets().begin(),
                                Info.beforeSets().end());
  for (const c10::AliasInfo &Element : Info.containedTypes())
    Sets.insert(Sets.end(), Element.beforeSets().begin(),
                Element.beforeSets().end());
  return Sets;
}

// Note [Metadata-only writes]
// Some operators are annotated `Tensor(a!) self` but change only the tensor's
// metadata, never the data its storage holds: the in-place forms of views
// (`squeeze_`, `t_`, `as_strided_`, found from the view table below), and these.
// A check about data written through an alias must not count them.
const llvm::StringSet<> MetadataWrites = {"requires_grad_", "set_", "resize_",
                                          "resize_as_", "retain_grad"};

// Note [Unannotated aliases]
// `type_as` returns `self` itself when the types already match, yet its schema
// carries no alias annotation. It is recorded as may-alias of `self`.
const llvm::StringSet<> UnannotatedMayAlias = {"type_as"};

bool sharesAliasSet(const c10::AliasInfo &A, const c10::AliasInfo &B) {
  std::vector<c10::Symbol> SetsOfB = aliasSets(B);
  for (const c10::Symbol &Set : aliasSets(A))
    if (std::find(SetsOfB.begin(), SetsOfB.end(), Set) != SetsOfB.end())
      return true;
  return false;
}

bool hasWildcardAfterSet(const c10::AliasInfo &Info) {
  for (const c10::Symbol &Set : Info.afterSets())
    if (Set == c10::AliasInfo::wildcardSet())
      return true;
  return false;
}

/// The index of the argument that the result `Ret` aliases, or -1.
int aliasedArgument(const c10::FunctionSchema &Schema,
                    const c10::Argument &Ret) {
  const c10::AliasInfo *RetInfo = Ret.alias_info();
  if (!RetInfo)
    return -1;
  const auto &Args = Schema.arguments();
  for (size_t I = 0; I < Args.size(); ++I)
    if (const c10::AliasInfo *ArgInfo = Args[I].alias_info())
      if (sharesAliasSet(*ArgInfo, *RetInfo))
        return static_cast<int>(I);
  return -1;
}

llvm::json::Object describe(const c10::FunctionSchema &Schema,
                            const llvm::StringSet<> &AllNames,
                            const llvm::StringSet<> &ViewNames) {
  llvm::StringRef Name = Schema.name();
  Name.consume_front("aten::");

  llvm::json::Array Arguments, Written, Out;
  bool ListOfViews = false;
  for (const c10::Argument &Arg : Schema.arguments()) {
    Arguments.push_back(Arg.name());
    const c10::AliasInfo *Info = Arg.alias_info();
    if (!Info)
      continue;
    if (Info->isWrite())
      Written.push_back(Arg.name());
    if (Arg.is_out())
      Out.push_back(Arg.name());
    ListOfViews |= hasWildcardAfterSet(*Info);
  }

  llvm::json::Array ReturnsAlias;
  for (const c10::Argument &Ret : Schema.returns()) {
    int Aliased = aliasedArgument(Schema, Ret);
    ReturnsAlias.push_back(Aliased < 0 ? llvm::json::Value(nullptr)
                                       : Schema.arguments()[Aliased].name());
    if (Aliased >= 0 && Ret.type()->kind() == c10::TypeKind::ListType)
      ListOfViews = true;
  }

  if (UnannotatedMayAlias.count(Name) && !ReturnsAlias.empty())
    ReturnsAlias[0] = "self";

  llvm::json::Object Entry{{"name", Name.str()},
                           {"overload", Schema.overload_name()},
                           {"arguments", std::move(Arguments)}};
  bool ReturnsAnAlias = llvm::any_of(
      ReturnsAlias, [](const llvm::json::Value &V) { return V.getAsString(); });
  bool InPlaceView = Name.take_back(1) == "_" && ViewNames.count(Name.drop_back());
  if (!Written.empty() && (InPlaceView || MetadataWrites.count(Name)))
    Entry["metadata_only"] = true;
  if (!Written.empty())
    Entry["written"] = std::move(Written);
  if (!Out.empty())
    Entry["out"] = std::move(Out);
  if (ReturnsAnAlias)
    Entry["returns_alias"] = std::move(ReturnsAlias);
  if (ReturnsAnAlias && Entry.find("written") == Entry.end()) {
    bool Definite = AllNames.count((Name + "_copy").str()) ||
                    CompositeViews.count(Name);
    Entry["view"] = Definite ? "definite" : "may-alias";
    if (ListOfViews)
      Entry["list"] = true;
    if (ExpandingViews.count(Name))
      Entry["expands"] = true;
  }
  return Entry;
}

} // namespace

int main(int Argc, char **Argv) {
  llvm::cl::ParseCommandLineOptions(
      Argc, Argv, "Writes the torchalias operator table for this libtorch\n");

  std::vector<c10::FunctionSchema> Schemas;
  llvm::StringSet<> AllNames;
  for (const c10::OperatorName &Op :
       c10::Dispatcher::singleton().getAllOpNames()) {
    if (llvm::StringRef(Op.name).take_front(6) == "aten::")
      if (auto Handle = c10::Dispatcher::singleton().findSchema(Op)) {
        Schemas.push_back(Handle->schema());
        AllNames.insert(llvm::StringRef(Op.name).drop_front(6));
      }
  }
  std::sort(Schemas.begin(), Schemas.end(),
            [](const c10::FunctionSchema &A, const c10::FunctionSchema &B) {
              return std::tie(A.name(), A.overload_name()) <
                     std::tie(B.name(), B.overload_name());
            });

  std::error_code EC;
  llvm::raw_fd_ostream OS(OutputPath, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::errs() << "error: cannot write '" << OutputPath
                 << "': " << EC.message() << "\n";
    return 1;
  }
  // One operator per line keeps the checked-in table reviewable in diffs.
  OS << "{\"format\": 1, \"libtorch\": " << llvm::json::Value(LibtorchVersion)
     << ", \"operators\": [\n";
  // The names of views, for Note [Metadata-only writes].
  llvm::StringSet<> ViewNames;
  for (const c10::FunctionSchema &Schema : Schemas) {
    llvm::json::Object Entry = describe(Schema, AllNames, {});
    if (Entry.getString("view"))
      ViewNames.insert(*Entry.getString("name"));
  }
  for (size_t I = 0; I < Schemas.size(); ++I)
    OS << llvm::json::Value(describe(Schemas[I], AllNames, ViewNames))
       << (I + 1 < Schemas.size() ? ",\n" : "\n");
  OS << "]}\n";
  return 0;
}
