//===- GeneratedTable.cpp - the envelope of the tables in checks/data -----===//

#include "GeneratedTable.h"
#include "Compat.h"

namespace clang::tidy::libtorch {

llvm::Error generatedTableError(llvm::StringRef Table,
                                const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Table + ": " + Message);
}

llvm::Error readGeneratedTable(
    llvm::StringRef JSON, llvm::StringRef Table, llvm::StringRef Generator,
    std::string &LibtorchVersion,
    llvm::function_ref<llvm::Error(const llvm::json::Object &)> ReadOperator) {
  llvm::Expected<llvm::json::Value> Root = llvm::json::parse(JSON);
  if (!Root)
    return generatedTableError(Table, llvm::toString(Root.takeError()));
  const llvm::json::Object *Object = Root->getAsObject();
  const llvm::json::Array *Operators =
      Object ? Object->getArray("operators") : nullptr;
  if (!Operators)
    return generatedTableError(Table,
                               "expected an object with an 'operators' array");
  if (compat::valueOr(Object->getInteger("format"), 0) != 1)
    return generatedTableError(Table,
                               "unsupported format; regenerate the table with "
                               "this release's " + Generator);
  LibtorchVersion = compat::valueOr(Object->getString("libtorch"), "").str();
  for (const llvm::json::Value &Value : *Operators) {
    const llvm::json::Object *Entry = Value.getAsObject();
    if (!Entry)
      return generatedTableError(Table, "every operator must be an object");
    if (llvm::Error E = ReadOperator(*Entry))
      return E;
  }
  return llvm::Error::success();
}

} // namespace clang::tidy::libtorch
