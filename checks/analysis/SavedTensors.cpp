//===- SavedTensors.cpp - what autograd saves for backward, per operator --===//

#include "SavedTensors.h"
#include "GeneratedTable.h"
#include "Compat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

namespace clang::tidy::libtorch {

namespace {

const char BuiltinSavedTensors[] =
#include "SavedTensorsData.inc"
    ;

llvm::Error tableError(const llvm::Twine &Message) {
  return generatedTableError("saved-tensor table", Message);
}

llvm::Expected<SavedTensorEntry> readEntry(const llvm::json::Object &Object) {
  SavedTensorEntry Entry;
  const llvm::json::Array *Inputs = Object.getArray("saves_inputs");
  const llvm::json::Array *Results = Object.getArray("saves_result");
  if (!Object.getString("name") || !Inputs || !Results)
    return tableError(
        "every operator needs 'name', 'saves_inputs' and 'saves_result'");
  Entry.Overload = compat::valueOr(Object.getString("overload"), "").str();
  for (const llvm::json::Value &Name : *Inputs) {
    auto Text = Name.getAsString();
    if (!Text)
      return tableError("'saves_inputs' of '" + *Object.getString("name") +
                        "' must list argument names");
    Entry.SavedInputs.push_back(Text->str());
  }
  for (const llvm::json::Value &Index : *Results) {
    auto Number = Index.getAsUINT64();
    if (!Number)
      return tableError("'saves_result' of '" + *Object.getString("name") +
                        "' must list result indices");
    Entry.SavedResults.push_back(static_cast<unsigned>(*Number));
  }
  return Entry;
}

std::optional<unsigned> argumentIndex(const OperatorOverload &Op,
                                      llvm::StringRef Name) {
  for (unsigned I = 0; I < Op.Arguments.size(); ++I)
    if (Op.Arguments[I] == Name)
      return I;
  return std::nullopt;
}

const OperatorOverload *schemaOf(llvm::ArrayRef<OperatorOverload> Schemas,
                                 llvm::StringRef Overload) {
  for (const OperatorOverload &Op : Schemas)
    if (Op.Overload == Overload)
      return &Op;
  return nullptr;
}

struct Candidate {
  const SavedTensorEntry *Entry;
  const OperatorOverload *Schema;
};

/// The saved inputs' C++ positions, or std::nullopt when the call passes a
/// saved argument as something that cannot be a tensor: then the call is not
/// of this overload. Method and free-function spellings both keep the schema
/// order (out= overloads, which reorder, are never recorded by autograd).
std::optional<llvm::SmallVector<unsigned, 2>>
savedPositions(const Candidate &C, llvm::ArrayRef<bool> MayHoldTensor) {
  llvm::SmallVector<unsigned, 2> Positions;
  for (const std::string &Name : C.Entry->SavedInputs) {
    std::optional<unsigned> Index = argumentIndex(*C.Schema, Name);
    if (!Index)
      continue;
    if (*Index >= MayHoldTensor.size() || !MayHoldTensor[*Index])
      return std::nullopt;
    Positions.push_back(*Index);
  }
  return Positions;
}

} // namespace

bool SavedOperands::savesInput(unsigned Position) const {
  return llvm::is_contained(Inputs, Position);
}

llvm::Expected<std::shared_ptr<const SavedTensorTable>>
SavedTensorTable::parse(llvm::StringRef JSON) {
  auto Table = std::make_shared<SavedTensorTable>();
  auto ReadOperator = [&](const llvm::json::Object &Entry) -> llvm::Error {
    llvm::Expected<SavedTensorEntry> Saved = readEntry(Entry);
    if (!Saved)
      return Saved.takeError();
    Table->ByName[*Entry.getString("name")].push_back(std::move(*Saved));
    ++Table->NumOverloads;
    return llvm::Error::success();
  };
  if (llvm::Error E = readGeneratedTable(JSON, "saved-tensor table",
                                         "torchalias-gen-saved-tensors",
                                         Table->LibtorchVersion, ReadOperator))
    return std::move(E);
  return std::shared_ptr<const SavedTensorTable>(std::move(Table));
}

std::shared_ptr<const SavedTensorTable> SavedTensorTable::builtin() {
  static const std::shared_ptr<const SavedTensorTable> Table = [] {
    llvm::Expected<std::shared_ptr<const SavedTensorTable>> Parsed =
        parse(BuiltinSavedTensors);
    if (!Parsed)
      llvm::report_fatal_error(Parsed.takeError());
    return *Parsed;
  }();
  return Table;
}

llvm::ArrayRef<SavedTensorEntry>
SavedTensorTable::entries(llvm::StringRef Name) const {
  auto It = ByName.find(Name);
  if (It == ByName.end())
    return {};
  return It->second;
}

SavedOperands SavedTensorTable::savedBy(llvm::StringRef Operator, bool Method,
                                        llvm::ArrayRef<bool> MayHoldTensor,
                                        const OperatorTable &Ops) const {
  llvm::SmallVector<Candidate, 4> Candidates;
  llvm::ArrayRef<OperatorOverload> Schemas = Ops.overloads(Operator);
  for (const SavedTensorEntry &Entry : entries(Operator)) {
    const OperatorOverload *Schema = schemaOf(Schemas, Entry.Overload);
    if (!Schema || (Method && (Schema->Arguments.empty() ||
                               Schema->Arguments[0] != "self")))
      continue;
    Candidates.push_back({&Entry, Schema});
  }
  // As in OperatorTable::resolve: the arity picks among C++ overloads where
  // it can, and every overload contributes where it cannot.
  llvm::SmallVector<Candidate, 4> SameArity;
  llvm::copy_if(Candidates, std::back_inserter(SameArity),
                [&](const Candidate &C) {
                  return C.Schema->Arguments.size() == MayHoldTensor.size();
                });
  if (!SameArity.empty())
    Candidates = SameArity;

  SavedOperands Saved;
  for (const Candidate &C : Candidates) {
    std::optional<llvm::SmallVector<unsigned, 2>> Positions =
        savedPositions(C, MayHoldTensor);
    if (!Positions)
      continue;
    for (unsigned Position : *Positions)
      if (!Saved.savesInput(Position))
        Saved.Inputs.push_back(Position);
    Saved.Result |= llvm::is_contained(C.Entry->SavedResults, 0u);
  }
  return Saved;
}

} // namespace clang::tidy::libtorch
