//===- OperatorTable.cpp - aten:: operator facts from PyTorch's schemas ---===//

#include "OperatorTable.h"
#include "GeneratedTable.h"
#include "Compat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <mutex>

namespace clang::tidy::libtorch {

namespace {

const char BuiltinTable[] =
#include "OperatorTableData.inc"
    ;

llvm::Error tableError(const llvm::Twine &Message) {
  return generatedTableError("operator table", Message);
}

std::optional<unsigned> argumentIndex(const OperatorOverload &Op,
                                      llvm::StringRef Name) {
  for (unsigned I = 0; I < Op.Arguments.size(); ++I)
    if (Op.Arguments[I] == Name)
      return I;
  return std::nullopt;
}

/// Reads a list of argument names into indices of Op.Arguments.
llvm::Error readArgumentList(const llvm::json::Object &Entry,
                             llvm::StringRef Key, const OperatorOverload &Op,
                             llvm::SmallVectorImpl<unsigned> &Indices) {
  const llvm::json::Array *Names = Entry.getArray(Key);
  if (!Names)
    return llvm::Error::success();
  for (const llvm::json::Value &Name : *Names) {
    auto Text = Name.getAsString();
    std::optional<unsigned> Index = Text ? argumentIndex(Op, *Text) : std::nullopt;
    if (!Index)
      return tableError("'" + Key + "' names an unknown argument of '" +
                        *Entry.getString("name") + "'");
    Indices.push_back(*Index);
  }
  return llvm::Error::success();
}

llvm::Expected<OperatorOverload> readOverload(const llvm::json::Object &Entry) {
  OperatorOverload Op;
  const llvm::json::Array *Arguments = Entry.getArray("arguments");
  if (!Entry.getString("name") || !Arguments)
    return tableError("every operator needs 'name' and 'arguments'");
  Op.Overload = compat::valueOr(Entry.getString("overload"), "").str();
  for (const llvm::json::Value &Argument : *Arguments)
    Op.Arguments.push_back(compat::valueOr(Argument.getAsString(), "").str());
  if (llvm::Error E = readArgumentList(Entry, "written", Op, Op.Written))
    return std::move(E);
  if (llvm::Error E = readArgumentList(Entry, "out", Op, Op.Out))
    return std::move(E);
  if (const llvm::json::Array *Returns = Entry.getArray("returns_alias"))
    if (!Returns->empty())
      if (auto Name = (*Returns)[0].getAsString())
        Op.ResultAliases = argumentIndex(Op, *Name);
  llvm::StringRef View = compat::valueOr(Entry.getString("view"), "");
  Op.View = View == "definite"    ? ViewKind::Definite
            : View == "may-alias" ? ViewKind::MayAlias
                                  : ViewKind::None;
  Op.ReturnsList = compat::valueOr(Entry.getBoolean("list"), false);
  Op.Expands = compat::valueOr(Entry.getBoolean("expands"), false);
  Op.MetadataOnly = compat::valueOr(Entry.getBoolean("metadata_only"), false);
  return Op;
}

/// Where schema argument SchemaIndex of Op sits in a C++ call.
unsigned cppPosition(const OperatorOverload &Op, CallSpelling Spelling,
                     unsigned SchemaIndex) {
  if (Spelling != CallSpelling::OutFirst)
    return SchemaIndex;
  const auto *OutPos = llvm::find(Op.Out, SchemaIndex);
  if (OutPos != Op.Out.end())
    return OutPos - Op.Out.begin();
  unsigned OutsBefore = llvm::count_if(
      Op.Out, [&](unsigned Out) { return Out < SchemaIndex; });
  return Op.Out.size() + SchemaIndex - OutsBefore;
}

void addUnique(llvm::SmallVectorImpl<unsigned> &Positions, unsigned Position) {
  if (!llvm::is_contained(Positions, Position))
    Positions.push_back(Position);
}

} // namespace

bool CallEffect::writesArgument(unsigned Position) const {
  return llvm::is_contained(WrittenArgs, Position);
}

llvm::Expected<std::shared_ptr<const OperatorTable>>
OperatorTable::parse(llvm::StringRef JSON) {
  auto Table = std::make_shared<OperatorTable>();
  auto ReadOperator = [&](const llvm::json::Object &Entry) -> llvm::Error {
    llvm::Expected<OperatorOverload> Op = readOverload(Entry);
    if (!Op)
      return Op.takeError();
    Table->ByName[*Entry.getString("name")].push_back(std::move(*Op));
    ++Table->NumOverloads;
    return llvm::Error::success();
  };
  if (llvm::Error E = readGeneratedTable(JSON, "operator table",
                                         "torchalias-gen-operator-table",
                                         Table->LibtorchVersion, ReadOperator))
    return std::move(E);
  return std::shared_ptr<const OperatorTable>(std::move(Table));
}

std::shared_ptr<const OperatorTable> OperatorTable::builtin() {
  static const std::shared_ptr<const OperatorTable> Table = [] {
    llvm::Expected<std::shared_ptr<const OperatorTable>> Parsed =
        parse(BuiltinTable);
    if (!Parsed)
      llvm::report_fatal_error(Parsed.takeError());
    return *Parsed;
  }();
  return Table;
}

llvm::Expected<std::shared_ptr<const OperatorTable>>
OperatorTable::load(llvm::StringRef Path) {
  if (Path.empty())
    return builtin();
  static std::mutex CacheMutex;
  static std::map<std::string, std::shared_ptr<const OperatorTable>> Cache;
  std::lock_guard<std::mutex> Lock(CacheMutex);
  auto Cached = Cache.find(Path.str());
  if (Cached != Cache.end())
    return Cached->second;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return tableError("cannot read '" + Path + "': " +
                      Buffer.getError().message());
  llvm::Expected<std::shared_ptr<const OperatorTable>> Table =
      parse((*Buffer)->getBuffer());
  if (!Table)
    return tableError("'" + Path + "': " + llvm::toString(Table.takeError()));
  Cache.emplace(Path.str(), *Table);
  return Table;
}

llvm::ArrayRef<OperatorOverload>
OperatorTable::overloads(llvm::StringRef Name) const {
  auto It = ByName.find(Name);
  if (It == ByName.end())
    return {};
  return It->second;
}

std::optional<CallEffect>
OperatorTable::resolveMethod(llvm::StringRef Name, unsigned NumArgs) const {
  return resolve(Name, CallSpelling::Method, NumArgs);
}

std::optional<CallEffect>
OperatorTable::resolveFunction(llvm::StringRef Name, unsigned NumArgs) const {
  // A real operator name wins over the _out/_outf reading of it.
  if (ByName.count(Name))
    return resolve(Name, CallSpelling::Function, NumArgs);
  if (compat::endsWith(Name, "_outf"))
    return resolve(Name.drop_back(5), CallSpelling::OutLast, NumArgs);
  if (compat::endsWith(Name, "_out"))
    return resolve(Name.drop_back(4), CallSpelling::OutFirst, NumArgs);
  return std::nullopt;
}

std::optional<CallEffect> OperatorTable::resolve(llvm::StringRef Name,
                                                 CallSpelling Spelling,
                                                 unsigned NumArgs) const {
  bool WantsOut =
      Spelling == CallSpelling::OutFirst || Spelling == CallSpelling::OutLast;
  llvm::SmallVector<const OperatorOverload *, 4> Candidates;
  for (const OperatorOverload &Op : overloads(Name)) {
    if (WantsOut != !Op.Out.empty())
      continue;
    if (Spelling == CallSpelling::Method &&
        (Op.Arguments.empty() || Op.Arguments[0] != "self"))
      continue;
    Candidates.push_back(&Op);
  }
  if (Candidates.empty())
    return std::nullopt;
  // C++ overloads mostly mirror schema overloads, so the arity picks among
  // them; where it does not (TensorOptions bundles four schema arguments),
  // every overload of the name contributes.
  llvm::SmallVector<const OperatorOverload *, 4> SameArity;
  llvm::copy_if(Candidates, std::back_inserter(SameArity),
                [&](const OperatorOverload *Op) {
                  return Op->Arguments.size() == NumArgs;
                });
  if (!SameArity.empty())
    Candidates = SameArity;

  CallEffect Effect;
  Effect.Operator = Name.str();
  for (const OperatorOverload *Op : Candidates) {
    for (unsigned Written : Op->Written)
      addUnique(Effect.WrittenArgs, cppPosition(*Op, Spelling, Written));
    for (unsigned Out : Op->Out)
      addUnique(Effect.OutArgs, cppPosition(*Op, Spelling, Out));
    if (Op->ResultAliases && !Effect.ResultAliases)
      Effect.ResultAliases = cppPosition(*Op, Spelling, *Op->ResultAliases);
    // Where overloads disagree, the weaker claim (may-alias) is kept.
    if (Op->View != ViewKind::None &&
        (Effect.View == ViewKind::None || Op->View == ViewKind::MayAlias))
      Effect.View = Op->View;
    Effect.ReturnsList |= Op->ReturnsList;
    Effect.Expands |= Op->Expands;
    Effect.MetadataOnly |= Op->MetadataOnly;
  }
  return Effect;
}

} // namespace clang::tidy::libtorch
