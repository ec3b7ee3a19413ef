//===- Runner.cpp - Runs the checks over one translation unit -------------===//

#include "Runner.h"
#include "Compat.h"

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

namespace torchalias::driver {

namespace {

using clang::tidy::ClangTidyError;

// Note [Traversal scope]
// clang-tidy's matchers walk the whole AST, and with libtorch that is
// hundreds of thousands of declarations in headers, where no finding is
// reported (clang-tidy drops diagnostics outside the main file unless the
// header filter asks for them, and libtorch's headers are not the user's
// code). Like clangd, the runner restricts the traversal to the top-level
// declarations of the project's code: the main file and the headers that
// are neither system headers nor libtorch's. libtorch's headers are those
// under the include directory in which `torch/...` was found, so the scope is
// the same whether a project includes libtorch with -isystem or with -I. The
// checks still see every declaration through the AST (types, callees,
// summaries of other functions); only the matchers' walk is shorter. The
// parent map that `hasParent`/`hasAncestor` use is built over the same scope,
// which does not change what the checks report because every node they bind
// is in the project's code. test/bench/check_speed.py compares the findings
// with stock clang-tidy's on every unit it times.
class ScopeToProject : public clang::ASTConsumer {
public:
  explicit ScopeToProject(clang::CompilerInstance &CI) : SM(CI.getSourceManager()) {
    CI.getPreprocessor().addPPCallbacks(std::make_unique<LibtorchRoots>(Roots));
  }

  bool HandleTopLevelDecl(clang::DeclGroupRef Group) override {
    for (clang::Decl *D : Group) {
      clang::SourceLocation Loc = SM.getExpansionLoc(D->getLocation());
      if (Loc.isValid() && (SM.isInSystemHeader(Loc) || isLibtorch(Loc)))
        continue;
      Decls.push_back(D);
    }
    return true;
  }

  void HandleTranslationUnit(clang::ASTContext &Context) override {
    Context.setTraversalScope(Decls);
  }

  // Note [Skipped bodies]
  // With FrontendOptions::SkipFunctionBodies set, Sema asks the consumer for
  // each function body it may skip (clang itself never skips constexpr
  // functions or functions with a deduced return type). The runner skips the
  // bodies of non-template functions in system and libtorch headers: no
  // check reports inside them or reads them, and, not being templates, they
  // are never instantiated by the user's code, so the compiler errors a
  // unit can have are the same. Template bodies are parsed as usual.
  bool shouldSkipFunctionBody(clang::Decl *D) override {
    const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
    if (!FD || FD->isTemplated())
      return false;
    clang::SourceLocation Loc = SM.getExpansionLoc(FD->getLocation());
    return Loc.isValid() && (SM.isInSystemHeader(Loc) || isLibtorch(Loc));
  }

private:
  /// Records the include directories that libtorch's headers come from.
  class LibtorchRoots : public compat::InclusionCallbacks {
  public:
    explicit LibtorchRoots(std::vector<std::string> &Roots) : Roots(Roots) {}
    void included(llvm::StringRef FileName, llvm::StringRef SearchPath) override {
      if (compat::startsWith(FileName, "torch/") && !SearchPath.empty() &&
          llvm::find(Roots, SearchPath) == Roots.end())
        Roots.push_back((SearchPath + "/").str());
    }

  private:
    std::vector<std::string> &Roots;
  };

  bool isLibtorch(clang::SourceLocation Loc) const {
    if (SM.isInMainFile(Loc))
      return false;
    llvm::StringRef File = SM.getFilename(Loc);
    return llvm::any_of(Roots, [&](llvm::StringRef Root) { return compat::startsWith(File, Root); });
  }

  clang::SourceManager &SM;
  std::vector<std::string> Roots;
  std::vector<clang::Decl *> Decls;
};

std::string realPath(llvm::StringRef Path, llvm::StringRef Directory = "") {
  llvm::SmallString<256> Absolute(Path);
  if (!Directory.empty())
    compat::makeAbsolute(Directory, Absolute);
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Absolute, Real))
    return std::string(Real);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

struct FunctionSpan {
  std::string File;
  unsigned Begin, End;
  std::string Name;
};

/// Collects the source ranges of the function definitions in the traversal
/// scope, so that each finding can name the function that encloses it.
class FunctionSpans : public clang::ASTConsumer,
                      public clang::RecursiveASTVisitor<FunctionSpans> {
public:
  explicit FunctionSpans(std::vector<FunctionSpan> &Out) : Out(Out) {}

  void HandleTranslationUnit(clang::ASTContext &Context) override {
    SM = &Context.getSourceManager();
    TraverseAST(Context);
  }

  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody())
      return true;
    if (const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(FD);
        Method && Method->getParent()->isLambda())
      return true; // a lambda belongs to the function that contains it
    clang::CharSourceRange Range = SM->getExpansionRange(FD->getSourceRange());
    auto [BeginFile, Begin] = SM->getDecomposedLoc(Range.getBegin());
    auto [EndFile, End] = SM->getDecomposedLoc(Range.getEnd());
    if (BeginFile != EndFile)
      return true;
    auto Entry = SM->getFileEntryRefForID(BeginFile);
    if (!Entry)
      return true;
    // Relative to the command's directory, the unit's own file system's
    // (Note [One working directory per unit]).
    std::string Directory;
    if (auto Cwd = SM->getFileManager()
                       .getVirtualFileSystem()
                       .getCurrentWorkingDirectory())
      Directory = *Cwd;
    Out.push_back({realPath(Entry->getName(), Directory), Begin, End,
                   FD->getQualifiedNameAsString()});
    return true;
  }

private:
  std::vector<FunctionSpan> &Out;
  clang::SourceManager *SM = nullptr;
};

class CheckAction : public clang::ASTFrontendAction {
public:
  CheckAction(clang::tidy::ClangTidyASTConsumerFactory &Tidy, bool Scope,
              std::vector<FunctionSpan> &Spans)
      : Tidy(Tidy), Scope(Scope), Spans(Spans) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI,
                                                        llvm::StringRef File) override {
    // MultiplexConsumer calls them in this order: the scope is set before the
    // checks' matchers run, and the spans are read in the same scope.
    std::vector<std::unique_ptr<clang::ASTConsumer>> Consumers;
    if (Scope)
      Consumers.push_back(std::make_unique<ScopeToProject>(CI));
    Consumers.push_back(Tidy.createASTConsumer(CI, File));
    Consumers.push_back(std::make_unique<FunctionSpans>(Spans));
    return std::make_unique<clang::MultiplexConsumer>(std::move(Consumers));
  }

private:
  clang::tidy::ClangTidyASTConsumerFactory &Tidy;
  bool Scope;
  std::vector<FunctionSpan> &Spans;
};

class CheckActionFactory : public clang::tooling::FrontendActionFactory {
public:
  CheckActionFactory(clang::tidy::ClangTidyContext &Context, bool Scope,
                     std::vector<FunctionSpan> &Spans)
      : Tidy(Context), Scope(Scope), Spans(Spans) {}

  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<CheckAction>(Tidy, Scope, Spans);
  }

  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> Invocation,
                     clang::FileManager *Files,
                     std::shared_ptr<clang::PCHContainerOperations> PCHContainerOps,
                     clang::DiagnosticConsumer *DiagConsumer) override {
    // As clang-tidy does: the static analyzer's macro is defined.
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    // The findings are the output; no "N warnings generated." lines.
    Invocation->getDiagnosticOpts().ShowCarets = false;
    // See Note [Skipped bodies].
    Invocation->getFrontendOpts().SkipFunctionBodies = Scope;
    return FrontendActionFactory::runInvocation(std::move(Invocation), Files,
                                                std::move(PCHContainerOps), DiagConsumer);
  }

private:
  clang::tidy::ClangTidyASTConsumerFactory Tidy;
  bool Scope;
  std::vector<FunctionSpan> &Spans;
};

/// File contents, for turning offsets into lines and columns.
class Sources {
public:
  SourcePoint point(const std::string &File, unsigned Offset) {
    llvm::StringRef Text = text(File);
    Offset = std::min<size_t>(Offset, Text.size());
    llvm::StringRef Before = Text.take_front(Offset);
    unsigned Line = Before.count('\n') + 1;
    size_t LineStart = Before.rfind('\n');
    unsigned Column = LineStart == llvm::StringRef::npos ? Offset + 1 : Offset - LineStart;
    return {File, Line, Column};
  }

  llvm::StringRef line(const std::string &File, unsigned Line) {
    llvm::StringRef Text = text(File);
    for (unsigned L = 1; L < Line && !Text.empty(); ++L)
      Text = Text.split('\n').second;
    return Text.split('\n').first;
  }

private:
  llvm::StringRef text(const std::string &File) {
    auto &Buffer = Files[File];
    if (!Buffer) {
      auto Read = llvm::MemoryBuffer::getFile(File);
      Buffer = Read ? std::move(*Read) : llvm::MemoryBuffer::getMemBuffer("");
    }
    return Buffer->getBuffer();
  }

  std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> Files;
};

Finding toFinding(const ClangTidyError &Error, const std::vector<FunctionSpan> &Spans,
                  Sources &Text) {
  Finding F;
  F.Check = Error.DiagnosticName;
  F.IsError = Error.DiagLevel == clang::tooling::Diagnostic::Error || Error.IsWarningAsError;
  F.Message = Error.Message.Message;
  std::string File = realPath(Error.Message.FilePath, Error.BuildDirectory);
  F.Where = Text.point(File, Error.Message.FileOffset);
  for (const clang::tooling::DiagnosticMessage &N : Error.Notes) {
    if (N.FilePath.empty())
      continue;
    F.Notes.push_back(
        {N.Message, Text.point(realPath(N.FilePath, Error.BuildDirectory), N.FileOffset)});
  }
  for (const auto &FileFixes : Error.Message.Fix)
    for (const clang::tooling::Replacement &R : FileFixes.getValue()) {
      std::string Path = realPath(R.getFilePath(), Error.BuildDirectory);
      F.Fixes.push_back({Text.point(Path, R.getOffset()),
                         Text.point(Path, R.getOffset() + R.getLength()),
                         R.getReplacementText().str(), R.getOffset(), R.getLength()});
    }
  const FunctionSpan *Innermost = nullptr;
  for (const FunctionSpan &S : Spans)
    if (S.File == File && S.Begin <= Error.Message.FileOffset &&
        Error.Message.FileOffset <= S.End &&
        (!Innermost || S.End - S.Begin < Innermost->End - Innermost->Begin))
      Innermost = &S;
  if (Innermost)
    F.Function = Innermost->Name;
  F.Snippet = normaliseSnippet(Text.line(File, F.Where.Line));
  return F;
}

bool hasCompilerError(const std::vector<ClangTidyError> &Errors) {
  return llvm::any_of(Errors, [](const ClangTidyError &E) {
    return E.DiagLevel == clang::tooling::Diagnostic::Error &&
           compat::startsWith(E.DiagnosticName, "clang-diagnostic-");
  });
}

} // namespace

// Note [One working directory per unit]
// ClangTool runs a unit in its command's directory by setting the working
// directory of the file system it is given. The real file system's is the
// process's, which units run side by side would share: one thread restored
// the user's directory while another parsed, and relative paths (a command's
// `src/a.cpp`, a span's file) resolved against the wrong directory. Each unit
// therefore gets a physical file system of its own, whose working directory
// is its own; the options provider reads `.clang-tidy` files through the same
// one. The process's working directory never changes, so the paths a user
// gives mean what they say (Note [Paths a user gives] in TorchaliasMain.cpp).
// A relative path in a check option (OperatorTable) is what a check opens
// itself, from the process's directory; clang-tidy would open it from the
// command's, so the provider makes it absolute there (CommandDirOptions).

/// Makes relative `OperatorTable` options absolute in the command's
/// directory, where clang-tidy resolves them.
class CommandDirOptions : public clang::tidy::FileOptionsProvider {
public:
  CommandDirOptions(const RunSettings &Settings,
                    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS)
      : FileOptionsProvider(clang::tidy::ClangTidyGlobalOptions(),
                            Settings.Defaults, Settings.Overrides, FS),
        FS(std::move(FS)) {}

  std::vector<OptionsSource> getRawOptions(llvm::StringRef FileName) override {
    std::vector<OptionsSource> Sources =
        FileOptionsProvider::getRawOptions(FileName);
    auto Cwd = FS->getCurrentWorkingDirectory();
    if (!Cwd)
      return Sources;
    for (OptionsSource &Source : Sources)
      for (auto &Option : Source.first.CheckOptions) {
        llvm::StringRef Key = Option.getKey(), Value = Option.getValue().Value;
        if (!compat::endsWith(Key, ".OperatorTable") || Value.empty() ||
            llvm::sys::path::is_absolute(Value))
          continue;
        llvm::SmallString<256> Absolute(Value);
        compat::makeAbsolute(*Cwd, Absolute);
        Option.getValue().Value = std::string(Absolute);
      }
    return Sources;
  }

private:
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS;
};

UnitResult runUnit(const clang::tooling::CompilationDatabase &Database,
                   llvm::StringRef File, const RunSettings &Settings) {
  std::vector<clang::tooling::CompileCommand> Commands = Database.getCompileCommands(File);
  // One command, so that its working directory is the one the PCH is for.
  bool CanUsePch = Settings.Pch && Commands.size() == 1;
  PchMiss Unusable = !Settings.Pch ? PchMiss::Disabled : PchMiss::SeveralCommands;
  std::string WorkingDir = Commands.empty() ? "" : Commands.front().Directory;

  auto Attempt = [&](bool UsePch, UnitResult &Result,
                     std::vector<FunctionSpan> &Spans) {
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
        llvm::vfs::createPhysicalFileSystem();
    auto Options = std::make_unique<CommandDirOptions>(Settings, FS);
    clang::tidy::ClangTidyContext Context(std::move(Options));
    clang::tidy::ClangTidyDiagnosticConsumer Consumer(Context);
    compat::TidyDiagnostics Engine(Context, Consumer);

    clang::tooling::ClangTool Tool(
        Database, {File.str()},
        std::make_shared<clang::PCHContainerOperations>(), FS);
    Tool.setDiagnosticConsumer(&Consumer);
    // A unit that does not compile is reported through its errors.
    Tool.setPrintErrorMessage(false);
    // clang-tidy's adjusters: the options' ExtraArgs, and no plugins.
    Tool.appendArgumentsAdjuster([&Context](const clang::tooling::CommandLineArguments &Args,
                                            llvm::StringRef Filename) {
      clang::tidy::ClangTidyOptions Opts = Context.getOptionsForFile(Filename);
      clang::tooling::CommandLineArguments Adjusted = Args;
      if (Opts.ExtraArgsBefore)
        Adjusted = clang::tooling::getInsertArgumentAdjuster(
            *Opts.ExtraArgsBefore, clang::tooling::ArgumentInsertPosition::BEGIN)(Adjusted, "");
      if (Opts.ExtraArgs)
        Adjusted = clang::tooling::getInsertArgumentAdjuster(
            *Opts.ExtraArgs, clang::tooling::ArgumentInsertPosition::END)(Adjusted, "");
      return Adjusted;
    });
    Tool.appendArgumentsAdjuster(clang::tooling::getStripPluginsAdjuster());
    if (UsePch)
      Tool.appendArgumentsAdjuster([&](const clang::tooling::CommandLineArguments &Args,
                                       llvm::StringRef Filename) {
        PchChoice Pch = Settings.Pch->pchFor(Args, Filename, WorkingDir);
        Result.Pch = Pch.Miss;
        if (!Pch.Path)
          return Args;
        return clang::tooling::getInsertArgumentAdjuster(
            {"-include-pch", *Pch.Path}, clang::tooling::ArgumentInsertPosition::BEGIN)(Args, "");
      });
    CheckActionFactory Factory(Context, Settings.ScopeToProject, Spans);
    Tool.run(&Factory);
    Result.Errors = Consumer.take();
  };

  UnitResult Result;
  Result.File = File.str();
  Result.Pch = CanUsePch ? PchMiss::NoPreamble : Unusable;
  std::vector<FunctionSpan> Spans;
  Attempt(CanUsePch, Result, Spans);
  if (Result.Pch == PchMiss::None && hasCompilerError(Result.Errors)) {
    // Report the compiler's errors as a plain parse gives them.
    Result = UnitResult();
    Result.File = File.str();
    Result.Pch = PchMiss::CompileError;
    Spans.clear();
    Attempt(false, Result, Spans);
  }

  Sources Text;
  for (const ClangTidyError &Error : Result.Errors) {
    if (Error.Message.FilePath.empty()) {
      std::string Line = Error.Message.Message + " [" + Error.DiagnosticName + "]";
      (Error.DiagLevel == clang::tooling::Diagnostic::Error ? Result.ToolErrors
                                                            : Result.ToolWarnings)
          .push_back(std::move(Line));
      continue;
    }
    Result.Findings.push_back(toFinding(Error, Spans, Text));
  }
  return Result;
}

} // namespace torchalias::driver
