//===- CommandSupport.h - What the subcommands share ------------*- C++ -*-===//
//
// Error lines, paths and output files, for the subcommands of Commands.h.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_COMMANDSUPPORT_H
#define TORCHALIAS_DRIVER_COMMANDSUPPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace torchalias::driver {

/// Says `torchalias: error: Message` and returns ToolError.
int fail(const llvm::Twine &Message);

/// Says `torchalias: error: ` and the error's message.
void reportError(llvm::Error E);

/// \p Path made absolute, without symbolic links where it exists.
std::string absolute(llvm::StringRef Path);

/// Runs a command and returns its standard output, or an error naming it.
llvm::Expected<std::string> capture(llvm::ArrayRef<llvm::StringRef> Argv);

/// Writes to \p Path, or to standard output if it is empty.
llvm::Error writeTo(llvm::StringRef Path,
                    llvm::function_ref<void(llvm::raw_ostream &)> Write);

/// Creates the directory a file is written into, and those above it.
llvm::Error createParentOf(llvm::StringRef File);

} // namespace torchalias::driver

#endif
