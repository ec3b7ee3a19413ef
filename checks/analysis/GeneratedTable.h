//===- GeneratedTable.h - the envelope of the tables in checks/data -*- C++ -*-===//
//
// Every table the generators of checks/tablegen/ write has the same envelope,
// `{"format": 1, "libtorch": "<version>", "operators": [{...}, ...]}`; the
// tables differ only in what one operator entry holds. This reads the
// envelope once for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_GENERATEDTABLE_H
#define TORCHALIAS_ANALYSIS_GENERATEDTABLE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace clang::tidy::libtorch {

/// An error of the table named Table ("operator table"), prefixed with its
/// name.
llvm::Error generatedTableError(llvm::StringRef Table,
                                const llvm::Twine &Message);

/// Parses JSON as a table Generator wrote, stores its libtorch version in
/// LibtorchVersion and hands every operator entry, in order, to
/// ReadOperator; the first error, the envelope's or ReadOperator's, is
/// returned.
llvm::Error readGeneratedTable(
    llvm::StringRef JSON, llvm::StringRef Table, llvm::StringRef Generator,
    std::string &LibtorchVersion,
    llvm::function_ref<llvm::Error(const llvm::json::Object &)> ReadOperator);

} // namespace clang::tidy::libtorch

#endif
