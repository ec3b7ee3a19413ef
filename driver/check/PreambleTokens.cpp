//===- PreambleTokens.cpp - What preprocessing a preamble gives -----------===//

#include "PreambleTokens.h"
#include "Compat.h"
#include "Findings.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Pragma.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>

namespace torchalias::driver {
namespace {

/// Real paths of the source manager's files, each looked up once.
class FileNames {
public:
  explicit FileNames(const clang::SourceManager &SM) : SM(SM) {}

  std::string of(clang::FileID File) {
    return real(SM.getFilename(SM.getLocForStartOfFile(File)));
  }

  std::string real(llvm::StringRef Name) {
    auto [It, New] = Real.try_emplace(Name);
    if (New) {
      llvm::SmallString<256> Path;
      It->second = llvm::sys::fs::real_path(Name, Path) ? Name.str() : std::string(Path);
    }
    return It->second;
  }

private:
  const clang::SourceManager &SM;
  llvm::StringMap<std::string> Real;
};

/// Records which file each #include names, whether clang enters it or skips
/// it as already included.
class IncludeGraph : public clang::PPCallbacks {
public:
  IncludeGraph(const clang::SourceManager &SM, FileNames &Names,
               std::map<std::string, std::vector<std::string>> &Out)
      : SM(SM), Names(Names), Out(Out) {}

  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind, clang::FileID) override {
    if (Reason != EnterFile)
      return;
    clang::FileID File = SM.getFileID(Loc);
    clang::SourceLocation From = SM.getIncludeLoc(File);
    if (From.isValid() && SM.getFileEntryForID(File))
      Out[Names.of(SM.getFileID(From))].push_back(Names.of(File));
  }

  void FileSkipped(const clang::FileEntryRef &Skipped, const clang::Token &FilenameTok,
                   clang::SrcMgr::CharacteristicKind) override {
    clang::FileID From = SM.getFileID(SM.getExpansionLoc(FilenameTok.getLocation()));
    Out[Names.of(From)].push_back(Names.real(Skipped.getName()));
  }

private:
  const clang::SourceManager &SM;
  FileNames &Names;
  std::map<std::string, std::vector<std::string>> &Out;
};

/// The text of every token the preprocessor gives the parser, by the entry of
/// the file it is expanded in.
struct EntryTokens {
  std::string Text, Statement;
  std::vector<std::string> Statements; // hashes, for a system header's entry
};
using TokenText = std::map<clang::FileID, EntryTokens>; // node-based: entries stay put

/// Keeps a pragma that the preprocessor does not handle itself (`#pragma
/// pack`, which the parser would) as text of the file it is in.
class KeepPragma : public clang::PragmaHandler {
public:
  explicit KeepPragma(TokenText &Out) : clang::PragmaHandler(""), Out(Out) {}

  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer Introducer,
                    clang::Token &First) override {
    const clang::SourceManager &SM = PP.getSourceManager();
    std::string &Text = Out[SM.getFileID(SM.getExpansionLoc(Introducer.Loc))].Text;
    Text += "#pragma ";
    for (clang::Token Tok = First; Tok.isNot(clang::tok::eod); PP.Lex(Tok))
      Text += PP.getSpelling(Tok) + ' ';
    Text += '\n';
  }

private:
  TokenText &Out;
};

class ListTokens : public clang::PreprocessorFrontendAction {
public:
  ListTokens(PreambleTokens &Out, std::string Header) : Out(Out), Header(std::move(Header)) {}

protected:
  void ExecuteAction() override {
    clang::Preprocessor &PP = getCompilerInstance().getPreprocessor();
    const clang::SourceManager &SM = PP.getSourceManager();
    FileNames Names(SM);
    PP.addPPCallbacks(std::make_unique<IncludeGraph>(SM, Names, Out.Includes));
    PP.addPPCallbacks(recordBranches(PP, Out.Conditions));
    TokenText Text;
    PP.AddPragmaHandler(new KeepPragma(Text));
    PP.EnterMainSourceFile();
    clang::Token Tok;
    llvm::SmallString<64> Buffer;
    // Consecutive tokens mostly come from one entry: look it up on a change.
    clang::FileID Last;
    EntryTokens *Into = nullptr;
    bool InSystemHeader = false;
    for (PP.Lex(Tok); Tok.isNot(clang::tok::eof); PP.Lex(Tok)) {
      clang::SourceLocation Where = SM.getExpansionLoc(Tok.getLocation());
      if (clang::FileID File = SM.getFileID(Where); File != Last || !Into) {
        Last = File;
        Into = &Text[File];
        InSystemHeader = SM.isInSystemHeader(Where);
      }
      llvm::StringRef Spelling = PP.getSpelling(Tok, Buffer);
      Into->Text += Spelling;
      Into->Text += ' ';
      if (!InSystemHeader)
        continue;
      Into->Statement += Spelling;
      Into->Statement += ' ';
      if (Tok.isOneOf(clang::tok::semi, clang::tok::l_brace, clang::tok::r_brace)) {
        Into->Statements.push_back(hash64(Into->Statement));
        Into->Statement.clear();
      }
    }
    for (auto &[File, Tokens] : Text) {
      std::string Name = Names.of(File);
      Out.Entries[Name].push_back(hash64(Tokens.Text));
      if (!Tokens.Statement.empty())
        Tokens.Statements.push_back(hash64(Tokens.Statement));
      if (!Tokens.Statements.empty()) {
        auto &Into = Out.Statements[Name];
        Into.insert(Into.end(), Tokens.Statements.begin(), Tokens.Statements.end());
      }
    }
    for (auto &[File, Hashes] : Out.Entries)
      llvm::sort(Hashes);

    for (const auto &[Name, State] : PP.macros()) {
      const clang::MacroInfo *Info = PP.getMacroInfo(Name);
      if (!Info)
        continue;
      std::string Definition;
      if (Info->isFunctionLike()) {
        Definition += '(';
        for (const clang::IdentifierInfo *Param : Info->params())
          Definition += Param->getName().str() + ',';
        Definition += Info->isVariadic() ? "...)" : ")";
      }
      for (const clang::Token &Body : Info->tokens())
        Definition += ' ' + PP.getSpelling(Body);
      Out.Macros[Name->getName().str()] = hash64(Definition);
    }

    compat::forEachSearchDir(PP.getHeaderSearchInfo(),
                             [&](llvm::StringRef Dir) { Out.Dirs.push_back(Names.real(Dir)); });
    compat::forEachFileRead(SM, [&](llvm::StringRef File) {
      if (std::string Name = Names.real(File); Name != Header)
        Out.Files.push_back(Name);
    });
    // Asked last: asking marks a file as included.
    for (const std::string &Name : Out.Files)
      if (auto Entry = getCompilerInstance().getFileManager().getOptionalFileRef(Name);
          Entry && !compat::wouldEnter(PP, *Entry))
        Out.Skipped.insert(Name);
  }

private:
  PreambleTokens &Out;
  std::string Header;
};

} // namespace

std::vector<llvm::StringRef> conditionIdentifiers(llvm::StringRef Text) {
  auto InWord = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  std::vector<llvm::StringRef> Out;
  for (size_t I = 0; I < Text.size();) {
    if (!InWord(Text[I])) {
      ++I;
      continue;
    }
    size_t End = I;
    while (End < Text.size() && (InWord(Text[End]) || (llvm::isDigit(Text[I]) && Text[End] == '.')))
      ++End;
    if (!llvm::isDigit(Text[I]))
      Out.push_back(Text.slice(I, End));
    I = End;
  }
  return Out;
}

namespace {

class RecordBranches : public clang::PPCallbacks {
public:
  RecordBranches(const clang::Preprocessor &PP, Branches &Out) : PP(PP), Out(Out) {}

  void If(clang::SourceLocation Loc, clang::SourceRange Condition,
          ConditionValueKind Value) override {
    if (!inMainFile(Loc))
      return;
    Out.Taken += Value == CVK_True ? 'T' : Value == CVK_False ? 'F' : 'N';
    if (Value == CVK_NotEvaluated)
      return;
    llvm::StringRef Text = clang::Lexer::getSourceText(
        clang::CharSourceRange::getTokenRange(Condition), PP.getSourceManager(),
        PP.getLangOpts());
    for (llvm::StringRef Name : conditionIdentifiers(Text))
      read(PP.getIdentifierInfo(Name));
  }
  void Elif(clang::SourceLocation Loc, clang::SourceRange Condition, ConditionValueKind Value,
            clang::SourceLocation) override {
    If(Loc, Condition, Value);
  }
  void Ifdef(clang::SourceLocation Loc, const clang::Token &Name,
             const clang::MacroDefinition &Definition) override {
    if (!inMainFile(Loc))
      return;
    Out.Taken += Definition ? 'T' : 'F';
    read(Name.getIdentifierInfo());
  }
  void Ifndef(clang::SourceLocation Loc, const clang::Token &Name,
              const clang::MacroDefinition &Definition) override {
    if (!inMainFile(Loc))
      return;
    Out.Taken += Definition ? 'F' : 'T';
    read(Name.getIdentifierInfo());
  }
  void EndOfMainFile() override {
    for (const auto &[Name, Then] : Read)
      if (PP.getMacroInfo(Name) != Then)
        Out.Changed.insert(Name->getName().str());
  }

private:
  bool inMainFile(clang::SourceLocation Loc) const {
    return PP.getSourceManager().isWrittenInMainFile(Loc);
  }
  void read(clang::IdentifierInfo *Name) {
    if (Name)
      Read.emplace_back(Name, PP.getMacroInfo(Name));
  }

  const clang::Preprocessor &PP;
  Branches &Out;
  std::vector<std::pair<clang::IdentifierInfo *, const clang::MacroInfo *>> Read;
};

/// Swallows the diagnostics: a preamble that does not preprocess only means
/// that it is not reordered.
class QuietConsumer : public clang::DiagnosticConsumer {};

} // namespace

std::unique_ptr<clang::PPCallbacks> recordBranches(const clang::Preprocessor &PP,
                                                   Branches &Out) {
  return std::make_unique<RecordBranches>(PP, Out);
}

bool PreambleTokens::sameAs(const PreambleTokens &Other,
                            const std::set<std::string> &Ignored) const {
  auto Kept = [&](const std::map<std::string, std::string> &All) {
    std::map<std::string, std::string> Out;
    for (const auto &[Name, Definition] : All)
      if (!Ignored.count(Name))
        Out.emplace(Name, Definition);
    return Out;
  };
  if (Ignored.empty() ? Macros != Other.Macros : Kept(Macros) != Kept(Other.Macros))
    return false;
  std::vector<std::string> Moved, OtherMoved;
  auto Differs = [&](const PreambleTokens &A, const PreambleTokens &B,
                     std::vector<std::string> &Into) {
    for (const auto &[File, Hashes] : A.Entries) {
      auto Same = B.Entries.find(File);
      if (Same != B.Entries.end() && Same->second == Hashes)
        continue;
      auto Declared = A.Statements.find(File);
      if (Declared == A.Statements.end())
        return true; // not a system header, or nothing it declares could move
      Into.insert(Into.end(), Declared->second.begin(), Declared->second.end());
    }
    return false;
  };
  if (Differs(*this, Other, Moved) || Differs(Other, *this, OtherMoved))
    return false;
  llvm::sort(Moved);
  llvm::sort(OtherMoved);
  return Moved == OtherMoved;
}

std::optional<PreambleTokens> preprocessPreamble(const std::vector<std::string> &Flags,
                                                 const std::string &Header,
                                                 llvm::StringRef Text,
                                                 llvm::StringRef WorkingDir) {
  // The database adds its own argv[0] and the input.
  std::vector<std::string> CommandLine;
  for (size_t I = 1; I < Flags.size(); ++I)
    if (Flags[I] != "-fsyntax-only")
      CommandLine.push_back(Flags[I]);
  CommandLine.insert(CommandLine.end(), {"-x", "c++-header"});
  clang::tooling::FixedCompilationDatabase Database(WorkingDir, CommandLine);
  clang::tooling::ClangTool Tool(Database, {Header},
                                 std::make_shared<clang::PCHContainerOperations>(),
                                 llvm::vfs::createPhysicalFileSystem());
  Tool.mapVirtualFile(Header, Text);
  Tool.clearArgumentsAdjusters();
  Tool.setPrintErrorMessage(false);
  QuietConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  PreambleTokens Out;
  struct Factory : clang::tooling::FrontendActionFactory {
    PreambleTokens *Out;
    std::string Header;
    std::unique_ptr<clang::FrontendAction> create() override {
      return std::make_unique<ListTokens>(*Out, Header);
    }
  } MakeAction;
  MakeAction.Out = &Out;
  MakeAction.Header = Header;
  if (Tool.run(&MakeAction) != 0)
    return std::nullopt;
  return Out;
}

} // namespace torchalias::driver
