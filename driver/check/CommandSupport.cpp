//===- CommandSupport.cpp - What the subcommands share --------------------===//

#include "CommandSupport.h"
#include "Commands.h"
#include "Compat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace torchalias::driver {

namespace compat = torchalias::compat;

int fail(const llvm::Twine &Message) {
  llvm::errs() << "torchalias: error: " << Message << "\n";
  return ToolError;
}

void reportError(llvm::Error E) {
  llvm::errs() << "torchalias: error: " << llvm::toString(std::move(E)) << "\n";
}

std::string absolute(llvm::StringRef Path) {
  llvm::SmallString<256> Out(Path);
  llvm::sys::fs::make_absolute(Out);
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Out, Real))
    return std::string(Real);
  llvm::sys::path::remove_dots(Out, true);
  return std::string(Out);
}

llvm::Expected<std::string> capture(llvm::ArrayRef<llvm::StringRef> Argv) {
  auto Program = llvm::sys::findProgramByName(Argv[0]);
  if (!Program)
    return llvm::createStringError(Program.getError(), "cannot find '%s'",
                                   Argv[0].data());
  llvm::SmallString<128> Out, Err;
  llvm::sys::fs::createTemporaryFile("torchalias", "out", Out);
  llvm::sys::fs::createTemporaryFile("torchalias", "err", Err);
  compat::Optional<llvm::StringRef> Redirects[] = {{}, Out.str(), Err.str()};
  int Status = llvm::sys::ExecuteAndWait(*Program, Argv, /*Env=*/{}, Redirects);
  auto Output = llvm::MemoryBuffer::getFile(Out);
  auto Errors = llvm::MemoryBuffer::getFile(Err);
  llvm::sys::fs::remove(Out);
  llvm::sys::fs::remove(Err);
  if (Status != 0 || !Output)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "'%s' failed: %s",
        llvm::join(Argv.begin(), Argv.end(), " ").c_str(),
        Errors ? (*Errors)->getBuffer().trim().str().c_str() : "no output");
  return (*Output)->getBuffer().str();
}

llvm::Error writeTo(llvm::StringRef Path,
                    llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  if (Path.empty()) {
    Write(llvm::outs());
    return llvm::Error::success();
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return llvm::createStringError(EC, "cannot write '%s': %s",
                                   Path.str().c_str(), EC.message().c_str());
  Write(OS);
  return llvm::Error::success();
}

llvm::Error createParentOf(llvm::StringRef File) {
  llvm::StringRef Parent = llvm::sys::path::parent_path(File);
  if (Parent.empty())
    return llvm::Error::success();
  if (std::error_code E = llvm::sys::fs::create_directories(Parent))
    return llvm::createStringError(E, "cannot create '%s': %s",
                                   Parent.str().c_str(), E.message().c_str());
  return llvm::Error::success();
}

} // namespace torchalias::driver
