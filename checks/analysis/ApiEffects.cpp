//===- ApiEffects.cpp - what libtorch's C++ API does to its tensors -------===//

#include "ApiEffects.h"
#include "Compat.h"
#include "GeneratedTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

namespace clang::tidy::libtorch {

namespace {

const char BuiltinApiEffects[] =
#include "ApiEffectsData.inc"
    ;

llvm::Error tableError(const llvm::Twine &Message) {
  return generatedTableError("API effect table", Message);
}

llvm::Error readNames(const llvm::json::Object &Object, llvm::StringRef Key,
                      llvm::StringRef Api, std::vector<std::string> &Names) {
  const llvm::json::Array *Array = Object.getArray(Key);
  if (!Array)
    return llvm::Error::success();
  for (const llvm::json::Value &Name : *Array) {
    auto Text = Name.getAsString();
    if (!Text)
      return tableError("'" + Key + "' of '" + Api + "' must list names");
    Names.push_back(Text->str());
  }
  return llvm::Error::success();
}

llvm::Error readSetting(const llvm::json::Object *Object, llvm::StringRef Api,
                        OptionSetting &Setting) {
  if (!Object)
    return llvm::Error::success();
  for (const auto &[Name, Value] : *Object) {
    std::optional<bool> Flag = Value.getAsBoolean();
    if (!Flag)
      return tableError("the options of '" + Api + "' must be booleans");
    Setting.emplace_back(Name.str(), *Flag);
  }
  llvm::sort(Setting);
  return llvm::Error::success();
}

llvm::Expected<ApiCase> readCase(const llvm::json::Object &Object,
                                 llvm::StringRef Api) {
  ApiCase Case;
  if (!Object.getArray("writes") || !Object.getArray("saves"))
    return tableError("every case of '" + Api + "' needs 'writes' and 'saves'");
  if (llvm::Error E = readSetting(Object.getObject("when"), Api, Case.When))
    return std::move(E);
  for (auto [Key, Names] :
       {std::pair{"writes", &Case.Writes},
        std::pair{"writes_members", &Case.WritesMembers},
        std::pair{"writes_without_version", &Case.WritesWithoutVersion},
        std::pair{"writes_grad_leaves", &Case.WritesGradLeaves},
        std::pair{"saves", &Case.Saves},
        std::pair{"saves_members", &Case.SavesMembers}})
    if (llvm::Error E = readNames(Object, Key, Api, *Names))
      return std::move(E);
  Case.Returns = compat::valueOr(Object.getString("returns"), "").str();
  Case.SavesResult = compat::valueOr(Object.getBoolean("saves_result"), false);
  return Case;
}

void addAll(std::vector<std::string> &Into,
            const std::vector<std::string> &Names) {
  for (const std::string &Name : Names)
    if (!llvm::is_contained(Into, Name))
      Into.push_back(Name);
}

} // namespace

bool ApiEffect::writes(llvm::StringRef Tensor) const {
  return llvm::is_contained(Writes, Tensor);
}

ApiEffect ApiEntry::under(
    llvm::function_ref<std::optional<bool>(llvm::StringRef,
                                           std::optional<bool>)>
        ValueOf) const {
  ApiEffect Effect;
  bool First = true;
  for (const ApiCase &Case : Cases) {
    bool Applies = llvm::all_of(Case.When, [&](const auto &Option) {
      std::optional<bool> Default;
      for (const auto &[Name, Value] : Defaults)
        if (Name == Option.first)
          Default = Value;
      std::optional<bool> Value = ValueOf(Option.first, Default);
      return !Value || *Value == Option.second;
    });
    if (!Applies)
      continue;
    addAll(Effect.Writes, Case.Writes);
    addAll(Effect.WritesMembers, Case.WritesMembers);
    addAll(Effect.WritesWithoutVersion, Case.WritesWithoutVersion);
    addAll(Effect.WritesGradLeaves, Case.WritesGradLeaves);
    addAll(Effect.Saves, Case.Saves);
    addAll(Effect.SavesMembers, Case.SavesMembers);
    Effect.SavesResult |= Case.SavesResult;
    if (First)
      Effect.Returns = Case.Returns;
    else if (Effect.Returns != Case.Returns)
      Effect.Returns.clear();
    First = false;
  }
  return Effect;
}

llvm::Expected<std::shared_ptr<const ApiEffectTable>>
ApiEffectTable::parse(llvm::StringRef JSON) {
  auto Table = std::make_shared<ApiEffectTable>();
  llvm::Error E = readGeneratedTable(
      JSON, "API effect table", "torchalias-gen-api-effects",
      Table->LibtorchVersion,
      [&](const llvm::json::Object &Object) -> llvm::Error {
        std::optional<llvm::StringRef> Api = Object.getString("api");
        const llvm::json::Array *Cases = Object.getArray("cases");
        if (!Api || !Cases)
          return tableError("every entry needs 'api' and 'cases'");
        ApiEntry Entry;
        Entry.Api = Api->str();
        Entry.IsModule = compat::valueOr(Object.getString("kind"), "") ==
                         "module";
        if (llvm::Error E = readNames(Object, "tensors", *Api, Entry.Tensors))
          return E;
        if (llvm::Error E =
                readSetting(Object.getObject("defaults"), *Api, Entry.Defaults))
          return E;
        for (const llvm::json::Value &Value : *Cases) {
          const llvm::json::Object *CaseObject = Value.getAsObject();
          if (!CaseObject)
            return tableError("every case of '" + *Api + "' must be an object");
          llvm::Expected<ApiCase> Case = readCase(*CaseObject, *Api);
          if (!Case)
            return Case.takeError();
          Entry.Cases.push_back(std::move(*Case));
        }
        Table->ByApi[*Api] = std::move(Entry);
        return llvm::Error::success();
      });
  if (E)
    return std::move(E);
  return Table;
}

std::shared_ptr<const ApiEffectTable> ApiEffectTable::builtin() {
  static const std::shared_ptr<const ApiEffectTable> Table = [] {
    llvm::Expected<std::shared_ptr<const ApiEffectTable>> Parsed =
        parse(BuiltinApiEffects);
    if (!Parsed)
      llvm::report_fatal_error(Parsed.takeError());
    return std::move(*Parsed);
  }();
  return Table;
}

const ApiEntry *ApiEffectTable::lookup(llvm::StringRef Api) const {
  auto It = ByApi.find(Api);
  return It == ByApi.end() ? nullptr : &It->second;
}

} // namespace clang::tidy::libtorch
