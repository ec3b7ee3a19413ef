//===- OverlapSemantics.cpp - which overlaps libtorch's operators reject --===//

#include "OverlapSemantics.h"
#include "GeneratedTable.h"

#include "llvm/Support/JSON.h"

namespace clang::tidy::libtorch {

namespace {

const char BuiltinOverlapTable[] =
#include "OverlapSemanticsData.inc"
    ;

llvm::Error overlapTableError(const llvm::Twine &Message) {
  return generatedTableError("overlap table", Message);
}

std::string factKey(llvm::StringRef Operator, llvm::StringRef Destination,
                    llvm::StringRef Input) {
  std::string Key = Operator.str();
  Key += '\0';
  Key += Destination;
  Key += '\0';
  Key += Input;
  return Key;
}

std::optional<OverlapVerdict> readVerdict(const llvm::json::Object &Input,
                                          llvm::StringRef Field) {
  std::optional<llvm::StringRef> Text = Input.getString(Field);
  if (!Text)
    return std::nullopt;
  if (*Text == "rejects")
    return OverlapVerdict::Rejects;
  if (*Text == "accepts")
    return OverlapVerdict::Accepts;
  if (*Text == "corrupts")
    return OverlapVerdict::Corrupts;
  if (*Text == "untested")
    return OverlapVerdict::Untested;
  return std::nullopt;
}

/// Overloads of one name that disagree leave the fact undecided.
OverlapVerdict merge(OverlapVerdict Seen, OverlapVerdict New) {
  return Seen == New ? Seen : OverlapVerdict::Untested;
}

} // namespace

llvm::Expected<std::shared_ptr<const OverlapSemantics>>
OverlapSemantics::parse(llvm::StringRef JSON) {
  auto Table = std::make_shared<OverlapSemantics>();
  auto AddInputs = [&](llvm::StringRef Name, llvm::StringRef Destination,
                       const llvm::json::Object &Inputs) -> llvm::Error {
    for (const auto &[Input, Value] : Inputs) {
      const llvm::json::Object *Facts = Value.getAsObject();
      std::optional<OverlapVerdict> Exact =
          Facts ? readVerdict(*Facts, "exact_alias") : std::nullopt;
      std::optional<OverlapVerdict> Partial =
          Facts ? readVerdict(*Facts, "partial_overlap") : std::nullopt;
      if (!Exact || !Partial)
        return overlapTableError("input '" + llvm::StringRef(Input) + "' of '" +
                                 Name + "' needs 'exact_alias' and "
                                 "'partial_overlap' verdicts");
      auto [It, Inserted] = Table->Facts.try_emplace(
          factKey(Name, Destination, Input), MeasuredOverlap{*Exact, *Partial});
      if (!Inserted) {
        It->second.ExactAlias = merge(It->second.ExactAlias, *Exact);
        It->second.PartialOverlap = merge(It->second.PartialOverlap, *Partial);
      }
    }
    return llvm::Error::success();
  };
  auto ReadOperator = [&](const llvm::json::Object &Entry) -> llvm::Error {
    std::optional<llvm::StringRef> Name = Entry.getString("name");
    std::optional<llvm::StringRef> Destination = Entry.getString("destination");
    const llvm::json::Object *Inputs = Entry.getObject("inputs");
    if (!Name || !Destination || !Inputs)
      return overlapTableError(
          "every operator needs 'name', 'destination' and 'inputs'");
    if (llvm::Error E = AddInputs(*Name, *Destination, *Inputs))
      return E;
    if (const llvm::json::Object *Others = Entry.getObject("other_destinations"))
      for (const auto &[Other, OtherInputs] : *Others) {
        const llvm::json::Object *Object = OtherInputs.getAsObject();
        if (!Object)
          return overlapTableError("'other_destinations' of '" + *Name +
                                   "' must map names to inputs");
        if (llvm::Error E = AddInputs(*Name, Other, *Object))
          return E;
      }
    ++Table->NumOverloads;
    return llvm::Error::success();
  };
  if (llvm::Error E = readGeneratedTable(JSON, "overlap table",
                                         "torchalias-gen-overlap-semantics",
                                         Table->LibtorchVersion, ReadOperator))
    return std::move(E);
  return std::shared_ptr<const OverlapSemantics>(std::move(Table));
}

std::shared_ptr<const OverlapSemantics> OverlapSemantics::builtin() {
  static const std::shared_ptr<const OverlapSemantics> Table = [] {
    llvm::Expected<std::shared_ptr<const OverlapSemantics>> Parsed =
        parse(BuiltinOverlapTable);
    if (!Parsed)
      llvm::report_fatal_error(Parsed.takeError());
    return *Parsed;
  }();
  return Table;
}

std::optional<MeasuredOverlap>
OverlapSemantics::lookup(llvm::StringRef Operator, llvm::StringRef Destination,
                         llvm::StringRef Input) const {
  auto It = Facts.find(factKey(Operator, Destination, Input));
  if (It == Facts.end())
    return std::nullopt;
  return It->second;
}

} // namespace clang::tidy::libtorch
