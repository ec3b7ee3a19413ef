//===- PchCache.cpp - Automatic PCH of the libtorch headers ---------------===//

#include "PchCache.h"
#include "Findings.h"
#include "PreambleTokens.h"
#include "Compat.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace torchalias::driver {

// Note [When a PCH is used]
// Parsing libtorch's headers is nearly all of the cost of a translation
// unit. `torchalias check` precompiles each unit's preamble, the library
// headers that it includes before any code of its own (Note [A unit's
// preamble]), and passes `-include-pch` to every unit with that preamble and
// those flags. The PCH is built with -fpch-instantiate-templates, so that the
// templates libtorch's own inline code uses are instantiated once, in the
// PCH. A PCH is used only where it is transparent, that is where the unit
// sees the declarations and macros it would have seen, in the same order:
//   - The PCH's header includes the unit's first library headers, in the
//     unit's order, so reading the PCH first does what the unit's own first
//     includes would do; or it includes the preamble's roots, where reading
//     them first has been shown to change nothing the parser sees (Note [A
//     shared PCH]). When the parse then reaches those includes, each
//     names a header already included, which clang skips if it has an include
//     guard or `#pragma once`; so every header the PCH's header includes must
//     have one (the build records which have), or be a standard library
//     header: the C++ standard ([using.headers]) lets each be included more
//     than once with no effect different from including it once, which is why
//     libstdc++'s <cmath> may include_next <math.h> outside its guard. Only
//     <cassert> and <assert.h> define assert anew from NDEBUG, which nothing
//     between changed. The PCH's header also repeats the unit's #define and
//     #undef lines among those includes, and the macros they name must be as
//     those lines left them at the PCH's end. Nothing else the unit defines
//     comes before the PCH, and no header is forced into a unit that does
//     not include it first.
//   - Its command line has no forced includes (-include, -imacros,
//     -include-pch) and is C++.
//   - The PCH was built from the same preamble and flags, apart from include
//     directories and macros: the cache key is the xxHash of clang's
//     version, the flags without -I, -iquote, -isystem, -idirafter, -D and
//     -U, and the preamble's lines. The macros are checked as Note [Macros
//     no header reads] says. The include directories are checked instead:
//     every header the PCH read must be found at the same place through the
//     unit's search paths (no directory of the unit shadows it), including
//     the preamble's own. So the units of a project's different targets,
//     which differ in their own include directories, share one PCH.
//   - The headers are as they were: beside each PCH a manifest lists its
//     search directories and every file it read, with size and modification
//     time, and a PCH whose files changed is rebuilt.
// Any other unit is parsed as clang-tidy would. If the PCH cannot be built
// (the flags do not compile the preamble), the unit is parsed plainly, and so
// is a unit whose PCH run reports a compiler error (the runner re-runs it
// without the PCH, so that the error is the one the plain parse gives). Each
// unit's reason (PchMiss) is in the JSON output and counted in the summary.

// Note [A unit's preamble]
// Like clangd's preamble, but of library headers only. The directives at the
// top of the unit are read as the compiler would read them: `#pragma once`, a
// project header's include guard, and includes. An include found through a
// library's search directory is a library header and joins the preamble:
// a -isystem or -idirafter directory; one under /usr/include or
// /usr/local/include, where packages install their headers (libtorch's,
// Python's, OpenCV's), even when a project names it with -I; one that holds
// libtorch (torch/, ATen/ or c10/); and none of the unit's directories (the
// compiler's builtin ones). An include of the project's own header (next to
// its includer, through -iquote or another -I) is followed: its leading
// includes join the preamble, and if it holds nothing else (its guard,
// includes and the guard's #endif) the includer's next lines are read too.
// A #define or #undef among them (a feature macro before the headers that
// read it, `#undef slots` before libtorch in Qt projects) joins the preamble
// too, if it is one line without comments or literals, and the PCH's header
// repeats it in its place. When the unit repeats it after reading the PCH,
// it changes nothing if the PCH left that macro as the preamble set it (the
// manifest records its state at the end); otherwise the unit has no PCH.
// Conditionals are read through: Note [A preamble's conditionals]. Any
// other directive (#pragma other than once, #error) or code of the
// project's own ends the preamble.
// Project headers are never in a PCH: the traversal scope (Note [Traversal
// scope] in Runner.cpp) walks their declarations, which would be hidden in a
// PCH, and a header filter may ask for their findings; the checks report
// nothing in a library's headers.
// The PCH holds the preamble up to and including its last libtorch header
// (its last header if it has none), each header once. The units of a
// project that differ only in the standard headers they include after
// libtorch so share one PCH; those headers, most of which libtorch includes
// already, are parsed after it as usual. Units whose preambles differ
// otherwise may still share one: Note [A shared PCH].

// Note [A preamble's conditionals]
// Units often reach their libraries through a conditional: a main file's
// `#ifdef WITH_PYTHON` / `#include <Python.h>` / `#endif`, or a project header
// of export macros (`#ifdef _WIN32` ... `#else` ... `#endif`) before its
// libtorch includes. The preamble is read through them as the compiler
// would: each #if, #ifdef, #ifndef and #elif is evaluated by preprocessing
// it with the unit's flags after the preamble's #define and #undef lines so
// far (once per run for each condition and flags), and only the branch taken
// is read. Anything in a branch not taken (code, other directives, headers
// of other platforms) is skipped, as the compiler skips it. The conditional
// lines join the preamble, and the PCH's header repeats them, with the lines
// of the branches taken, so the PCH takes its branches where the unit does.
// This is transparent if three things hold:
//   - The preamble's reading took each branch as the compiler does. It knew
//     the macros of the command line, the compiler and the preamble's lines,
//     but not those that its headers define, nor a project header's include
//     guard. A condition that names a project header's guard, or reads where
//     it is (`__has_include`, `__FILE__`, `__COUNTER__`, ...), ends the
//     preamble; the PCH build records how its header's conditionals were
//     taken (Branches), and a PCH that took one otherwise is not used.
//   - The unit, reading its own lines after the PCH, takes the same branches
//     again: every identifier a condition names is defined at the PCH's end as
//     where the condition read it. The build records those that are not
//     (Branches::Changed: `#ifndef X` / `#define X` / `#endif` is one), and
//     such a unit has no PCH (condition-changed).
//   - The macros a condition names are read by the preamble, so they stay in
//     the flags a PCH is built with (Note [Macros no header reads]), and how
//     each conditional was taken is part of the PCH's key.
// A shared PCH (Note [A shared PCH]) holds the lines of the branches taken
// without their conditionals; its decision also requires that the unit's
// preamble takes each branch alike in both orders.

// Note [A shared PCH]
// Units of one project often lead with the same libraries through different
// lines: standard headers first or not, in another order, `<ATen/ATen.h>`
// before `<torch/torch.h>`, which includes it anyway. Such a unit uses the PCH
// of a shorter preamble, its roots: its headers that are not standard C++
// headers and that no other header of its preamble includes, in order, with
// its #define and #undef lines in their places, and each run of libtorch
// headers sorted (so `<torch/torch.h>` then `<torch/script.h>` is the same as
// the reverse). The unit reads that PCH, then its own preamble, whose
// includes are then mostly skipped as already included.
// That changes the order in which headers come, and include order can matter
// (Python.h's feature macros must come before any system header), so it is
// done only where it changes nothing that the parser sees. The preamble is
// preprocessed twice with the unit's flags (PreambleTokens.cpp): in its own
// order, and as roots then preamble. The roots are used if, in both orders,
// each file gives the parser the same tokens (per entry: its own, its macros'
// expansions, and its unknown pragmas) and the same macros are defined at the
// end, with the same definitions. One exception: the C library declares a
// type such as pid_t in the first of its headers to reach it (`#ifndef
// __pid_t_defined`), so in system headers whose tokens differ, it is enough
// that together they hold the same statements (tokens up to a `;`, `{` or
// `}`). What can still differ is the order in which two headers that do not
// include each other come, which the C++ standard allows for its own
// headers ([using.headers]) and which a header that uses only what it
// includes does not notice. If the roots are not transparent, the unit has
// the PCH of its own preamble (Note [When a PCH is used]), and so it has if
// the roots' PCH does not fit it.
// Every libtorch entry header includes `<ATen/ATen.h>`, about half of what
// `<torch/torch.h>` parses. So where the roots include it (and are not just
// it), their PCH is chained to a PCH of `<ATen/ATen.h>` alone, the base: it is
// built with `-include-pch` of the base, holds only what the roots add, and
// costs about half as much to build; one base serves every entry header of a
// set of flags. This too is used only where it is transparent: the second
// preprocessor run reads the base, then the roots, then the preamble, and
// where that differs, the roots are tried alone. A chained PCH's manifest
// lists the base's files too, and the base's own size and time, so that a
// rebuilt base makes it stale.
// The decision costs two or three preprocessor runs, a fraction of a second
// each. It is kept in the cache (`shared-<key>-<variant>.plan`), keyed as a
// PCH is: by the flags other than include directories and macros (Note
// [Macros no header reads]) and the preamble, with the size and time of every
// file the runs read and the search directories that found them. A unit of
// another target, whose include directories differ, takes it as its own if it
// finds each of those files at the same place (the test of Note [When a PCH
// is used]); it is taken again when a file changes.
// The second run is often shared too: where the preamble sets no macro and
// every header it names is one that the roots (and base) included and would
// skip if included again, the preamble adds nothing after them, and the roots
// preprocessed alone give what the parser sees. That run is kept for the
// process, by the roots and the flags, so the units of a project that share
// their roots share it.

// Note [Macros no header reads]
// A -D or -U flag changes what the preprocessor makes of a header only if the
// header names the macro. Extension modules are built with their own
// -DTORCH_EXTENSION_NAME, which only the unit's PYBIND11_MODULE line reads,
// so with the macros in the key each module would have a PCH of its own. The
// key and the decision's key leave the macros out; each PCH and decision
// records the macro flags it was made with, and serves a unit whose flags set
// a macro differently only where none of the files it read names that macro
// as a word (anywhere: in code, comments or literals). A PCH is built
// without the unit's macros that none of the files of its decision names,
// nor a line of its preamble; clang adds a macro that the command line sets
// and the PCH does not to the unit's predefines, so the unit still sees its
// own. A PCH that sets a macro serves only units that set it the same way:
// clang would give them its definition. What this does not see is a macro
// name that a header builds by pasting tokens.

namespace {

/// The directives at the top of a file, as (name, rest of the line), up to
/// the first token that is not part of a directive outside a conditional;
/// and whether nothing but comments follows them. Code inside a conditional
/// is one line with an empty name: Note [A preamble's conditionals].
struct LeadingDirectives {
  std::vector<std::pair<std::string, std::string>> Lines;
  std::vector<std::string> Raw; // each line after its name, comments kept
  bool ReachesEnd = false;
};

LeadingDirectives leadingDirectives(llvm::StringRef Source) {
  clang::LangOptions Lang;
  Lang.CPlusPlus = true;
  LeadingDirectives Out;
  size_t Line = 0;  // where the next directive may start
  unsigned Open = 0; // conditionals around it
  while (true) {
    // A raw lexer from the start of each line: comments and blank lines are
    // skipped, and nothing needs repositioning.
    clang::Lexer Lex(clang::SourceLocation(), Lang, Source.begin(), Source.begin() + Line,
                     Source.end());
    clang::Token Tok;
    Lex.LexFromRawLexer(Tok);
    Out.ReachesEnd = Tok.is(clang::tok::eof);
    if (Open > 0 && !Out.ReachesEnd && !(Tok.is(clang::tok::hash) && Tok.isAtStartOfLine())) {
      // Code in a conditional, which may be skipped: up to the next
      // directive.
      Out.Lines.emplace_back("", "");
      Out.Raw.emplace_back();
      const char *Next = Lex.getBufferLocation();
      do {
        Next = Lex.getBufferLocation();
        Lex.LexFromRawLexer(Tok);
      } while (!Tok.is(clang::tok::eof) && !(Tok.is(clang::tok::hash) && Tok.isAtStartOfLine()));
      if (Tok.is(clang::tok::eof))
        return Out;
      Line = Next - Source.begin();
      continue;
    }
    if (!Tok.is(clang::tok::hash) || !Tok.isAtStartOfLine())
      return Out;
    Lex.LexFromRawLexer(Tok);
    if (!Tok.is(clang::tok::raw_identifier))
      return Out;
    std::string Name = Tok.getRawIdentifier().str();
    size_t Offset = Lex.getBufferLocation() - Source.begin();
    size_t End = Source.find('\n', Offset);
    if (End == llvm::StringRef::npos)
      End = Source.size();
    llvm::StringRef Rest = Source.slice(Offset, End);
    // A comment that goes on past the line would be read as lines.
    if (Rest.contains("/*") && !Rest.rsplit("/*").second.contains("*/"))
      return Out;
    Out.Raw.push_back(Rest.trim().str());
    Rest = Rest.split("//").first.split("/*").first.trim();
    Out.Lines.emplace_back(Name, Rest.str());
    if (compat::startsWith(Name, "if"))
      ++Open;
    else if (Name == "endif" && Open > 0)
      --Open;
    if (End == Source.size()) {
      Out.ReachesEnd = true;
      return Out;
    }
    Line = End + 1;
  }
}

std::string absoluteIn(llvm::StringRef WorkingDir, llvm::StringRef Path) {
  llvm::SmallString<256> Out(Path);
  compat::makeAbsolute(WorkingDir, Out);
  llvm::sys::path::remove_dots(Out, /*remove_dot_dot=*/true);
  return std::string(Out);
}

std::string realPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    return Path.str();
  return std::string(Real);
}

/// The first file Spelling names in Dirs, if any.
std::optional<std::string> findIn(const std::vector<std::string> &Dirs,
                                  llvm::StringRef Spelling) {
  for (const std::string &Dir : Dirs) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, Spelling);
    if (llvm::sys::fs::is_regular_file(Candidate))
      return realPath(Candidate);
  }
  return std::nullopt;
}

const char *const IncludeDirFlags[] = {"-I", "-iquote", "-isystem", "-idirafter"};

/// The flags without their include directories and macros, those
/// directories, and the macros.
struct SplitFlags {
  std::vector<std::string> Rest;
  SearchPaths Paths;
  MacroFlags Macros;
};

/// The macro that a normal flag of MacroFlags (`-DNAME=VALUE`, `-UNAME`)
/// names.
std::string macroOf(llvm::StringRef Normal) {
  return Normal.drop_front(2).split('=').first.str();
}

/// The macro that \p Flags[I] defines or undefines (-D, -U, joined or not),
/// with the index of its last argument in \p Last and its normal flag in
/// \p Normal; empty if it is another flag.
std::string macroFlag(const std::vector<std::string> &Flags, size_t I, size_t &Last,
                      std::string &Normal) {
  llvm::StringRef Flag = Flags[I];
  if (!compat::startsWith(Flag, "-D") && !compat::startsWith(Flag, "-U"))
    return "";
  bool Define = Flag[1] == 'D';
  llvm::StringRef Text = Flag.drop_front(2);
  Last = I;
  if (Text.empty() && I + 1 < Flags.size())
    Text = Flags[Last = I + 1];
  auto [Name, Value] = Text.split('=');
  // -DNAME is NAME defined as 1.
  Normal = Define ? ("-D" + Name + "=" + (Text.contains('=') ? Value : "1")).str()
                  : ("-U" + Name).str();
  return Name.str();
}

/// \p Flags without the -D and -U flags of the macros \p Names.
std::vector<std::string> withoutMacros(const std::vector<std::string> &Flags,
                                       const std::set<std::string> &Names) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Flags.size(); ++I) {
    size_t Last = I;
    std::string Normal;
    if (std::string Macro = macroFlag(Flags, I, Last, Normal);
        !Macro.empty() && Names.count(Macro)) {
      I = Last;
      continue;
    }
    Out.push_back(Flags[I]);
  }
  return Out;
}

SplitFlags splitFlags(const std::vector<std::string> &Flags, llvm::StringRef WorkingDir) {
  SplitFlags Out;
  std::vector<std::string> System, After;
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef Flag = Flags[I];
    const char *Matched = nullptr;
    for (const char *Prefix : IncludeDirFlags)
      if (compat::startsWith(Flag, Prefix) && (!Matched || strlen(Prefix) > strlen(Matched)))
        Matched = Prefix;
    if (!Matched) {
      size_t Last;
      std::string Normal;
      if (std::string Macro = macroFlag(Flags, I, Last, Normal); !Macro.empty()) {
        Out.Macros[Macro] = Normal; // clang applies them in order: the last wins
        I = Last;
      } else {
        Out.Rest.push_back(Flags[I]);
      }
      continue;
    }
    std::string Dir = Flag.size() > strlen(Matched) ? Flag.drop_front(strlen(Matched)).str()
                      : I + 1 < Flags.size()          ? Flags[++I]
                                                      : "";
    Dir = absoluteIn(WorkingDir, Dir);
    llvm::StringRef Kind = Matched;
    if (Kind == "-iquote")
      Out.Paths.Quoted.push_back(Dir);
    else if (Kind == "-I")
      Out.Paths.Angled.push_back(Dir);
    else if (Kind == "-isystem")
      System.push_back(Dir);
    else
      After.push_back(Dir);
  }
  // The compiler's order: -I, then -isystem, then -idirafter.
  Out.Paths.System = System;
  Out.Paths.System.insert(Out.Paths.System.end(), After.begin(), After.end());
  Out.Paths.Angled.insert(Out.Paths.Angled.end(), System.begin(), System.end());
  Out.Paths.Angled.insert(Out.Paths.Angled.end(), After.begin(), After.end());
  return Out;
}

/// The include directories of the flags, as real paths, in search order.
std::vector<std::string> flagDirs(const SearchPaths &Paths) {
  std::vector<std::string> Dirs;
  for (const auto *List : {&Paths.Quoted, &Paths.Angled})
    for (const std::string &Dir : *List)
      if (std::string Real = realPath(Dir); llvm::find(Dirs, Real) == Dirs.end())
        Dirs.push_back(Real);
  return Dirs;
}

/// The flags that decide the PCH's content: the syntax-only command line
/// without its input file.
std::vector<std::string> flagsOf(const std::vector<std::string> &Args, llvm::StringRef File,
                                 llvm::StringRef WorkingDir) {
  std::string Input = absoluteIn(WorkingDir, File);
  std::vector<std::string> Flags;
  for (const std::string &Arg : Args)
    if (Arg != File && absoluteIn(WorkingDir, Arg) != Input)
      Flags.push_back(Arg);
  return Flags;
}

/// Whether the command line rules out a PCH: a forced include, or a `-x`
/// other than c++ (it changes the language).
PchMiss commandLineMiss(const std::vector<std::string> &Flags) {
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef Flag = Flags[I];
    if (compat::startsWith(Flag, "-include") || compat::startsWith(Flag, "--include") ||
        compat::startsWith(Flag, "-imacros"))
      return PchMiss::ForcedInclude;
    if (Flag == "-x" && (I + 1 == Flags.size() || Flags[I + 1] != "c++"))
      return PchMiss::NotCxx;
    if (compat::startsWith(Flag, "-x") && Flag != "-x" && Flag != "-xc++")
      return PchMiss::NotCxx;
  }
  return PchMiss::None;
}

/// The first of \p Dirs in which \p Spelling names a file.
std::optional<std::string> dirWith(const std::vector<std::string> &Dirs,
                                   llvm::StringRef Spelling) {
  for (const std::string &Dir : Dirs) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, Spelling);
    if (llvm::sys::fs::is_regular_file(Candidate))
      return Dir;
  }
  return std::nullopt;
}

/// Whether the headers found through the search directory \p Dir are a
/// library's. See Note [A unit's preamble].
bool isLibraryDir(const std::string &Dir, const SearchPaths &Paths) {
  if (llvm::is_contained(Paths.System, Dir))
    return true;
  std::string Real = realPath(Dir) + "/";
  for (const char *Installed : {"/usr/include/", "/usr/local/include/"})
    if (compat::startsWith(Real, Installed))
      return true;
  for (const char *Libtorch : {"torch", "ATen", "c10"}) {
    llvm::SmallString<256> Sub(Dir);
    llvm::sys::path::append(Sub, Libtorch);
    if (llvm::sys::fs::is_directory(Sub))
      return true;
  }
  return false;
}

bool isLibtorchHeader(llvm::StringRef Include) {
  return compat::startsWith(Include, "#include <torch/") ||
         compat::startsWith(Include, "#include <ATen/") ||
         compat::startsWith(Include, "#include <c10/");
}

/// Whether including the header again has no effect, guard or no guard: a
/// C++ standard library header (one of the compiler's builtin directories,
/// named without an extension, as <cmath>, whose include_next of <math.h>
/// lies outside its guard), or <assert.h>. See Note [When a PCH is used].
bool isReincludable(const Preamble::Line &Include) {
  llvm::StringRef Name = llvm::StringRef(Include.Text).drop_front(strlen("#include <")).drop_back();
  return Include.Text == "#include <assert.h>" ||
         (compat::startsWith(Include.Header, "/" + Name.str()) &&
          Include.Header.size() == Name.size() + 1 && !Name.contains('.') &&
          !Name.contains('/'));
}

/// A #define or #undef as the PCH's header repeats it, if it is one line with
/// no comment (which the directive's text would need to keep exactly, and
/// which a literal may look like) and no raw string.
std::optional<Preamble::Line> macroLine(llvm::StringRef Name, llvm::StringRef Raw) {
  if (Raw.contains("//") || Raw.contains("/*") || Raw.contains("R\"") ||
      compat::endsWith(Raw, "\\"))
    return std::nullopt;
  llvm::StringRef Macro = Raw.take_while([](char C) { return llvm::isAlnum(C) || C == '_'; });
  if (Macro.empty() || (Name == "undef" && Macro.size() != Raw.size()))
    return std::nullopt;
  return Preamble::Line{("#" + Name + " " + Raw).str(), "", Macro.str(), Preamble::Kind::Macro};
}

bool isInclude(const Preamble::Line &Line) { return Line.Is == Preamble::Kind::Include; }
bool isMacro(const Preamble::Line &Line) { return Line.Is == Preamble::Kind::Macro; }
bool isCondition(const Preamble::Line &Line) { return Line.Is == Preamble::Kind::Condition; }

/// How a preamble's conditionals are to be taken, as Branches::Taken.
std::string branchesOf(const Preamble &Lead) {
  std::string Out;
  for (const Preamble::Line &Line : Lead.Lines)
    if (isCondition(Line) && Line.Branch)
      Out += Line.Branch;
  return Out;
}

/// What a preamble's keys hold of it: its lines, and how its conditionals
/// are taken.
std::string keyTextOf(const Preamble &Lead) {
  std::string Text = "preamble";
  for (const Preamble::Line &Line : Lead.Lines) {
    Text += '\0' + Line.Text;
    if (Line.Branch)
      Text += Line.Branch;
  }
  return Text;
}

/// A file's conditionals, as collectPreamble reads them.
struct Conditional {
  bool Outer;  // the lines around it are read
  bool Taken;  // one of its branches so far was
  bool Active; // its current branch is read
};

/// Identifiers whose value depends on where the condition is read, or on
/// the search paths from there: the PCH's header is elsewhere.
bool readsPlace(llvm::StringRef Identifier) {
  return llvm::is_contained({"__has_include", "__has_include_next", "__FILE__", "__LINE__",
                             "__COUNTER__", "__INCLUDE_LEVEL__", "__BASE_FILE__",
                             "__FILE_NAME__", "__TIMESTAMP__", "__DATE__", "__TIME__"},
                            Identifier);
}

/// Appends to \p Out the library headers that the file \p Path includes
/// before anything of its own, with the conditionals they are in (Note [A
/// preamble's conditionals]), evaluated by \p Evaluate; \p Guards holds the
/// include guards of the project headers read so far. Returns whether it
/// holds nothing else, so that its includer's next lines may join the
/// preamble too.
bool collectPreamble(llvm::StringRef Path, const SearchPaths &Paths, unsigned Depth,
                     EvaluateCondition Evaluate, std::set<std::string> &Guards, Preamble &Out) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return false;
  LeadingDirectives Top = leadingDirectives((*Buffer)->getBuffer());
  const auto &Lines = Top.Lines;
  bool Guarded = false, Opened = false; // Opened: past the guard's place
  std::vector<Conditional> Open;
  // A condition that holds: none if the preamble must end before it.
  auto Holds = [&](llvm::StringRef Name, llvm::StringRef Rest,
                   std::vector<std::string> &Tested) -> std::optional<bool> {
    if (Rest.empty() || compat::endsWith(Rest, "\\"))
      return std::nullopt;
    for (llvm::StringRef Identifier : conditionIdentifiers(Rest)) {
      if (readsPlace(Identifier) || Guards.count(Identifier.str()))
        return std::nullopt;
      if (Identifier != "defined" && !llvm::is_contained(Tested, Identifier))
        Tested.push_back(Identifier.str());
    }
    std::string Macros;
    for (const Preamble::Line &Line : Out.Lines)
      if (isMacro(Line))
        Macros += Line.Text + "\n";
    return Evaluate(Macros, ("#" + (Name == "elif" ? "if" : Name) + " " + Rest + "\n").str());
  };
  auto Condition = [&](llvm::StringRef Text, char Branch, std::vector<std::string> Tested) {
    Out.Lines.push_back({Text.str(), "", "", Preamble::Kind::Condition, Branch, std::move(Tested)});
  };
  for (size_t I = 0; I < Lines.size(); ++I) {
    const auto &[Name, Rest] = Lines[I];
    bool Active = Open.empty() || Open.back().Active;
    if (Name == "pragma" && Rest == "once")
      continue;
    // A header's include guard (after `#pragma once` or not), and its end:
    // the last directive, or one that closes an empty guard.
    if (Depth > 0 && !Guarded && !Opened && Name == "ifndef" && I + 1 < Lines.size() &&
        Lines[I + 1].first == "define" &&
        (Lines[I + 1].second == Rest || compat::startsWith(Lines[I + 1].second, Rest + " "))) {
      Guarded = Opened = true;
      Guards.insert(Rest);
      ++I;
      continue;
    }
    Opened = true;
    if (Guarded && Open.empty() && Name == "endif") {
      if (I + 1 == Lines.size())
        return Top.ReachesEnd;
      Guarded = false;
      continue;
    }
    // Conditionals: of those in a skipped branch, only their nesting counts.
    if (Name == "if" || Name == "ifdef" || Name == "ifndef") {
      if (!Active) {
        Open.push_back({false, true, false});
        continue;
      }
      std::vector<std::string> Tested;
      std::optional<bool> Taken = Holds(Name, Rest, Tested);
      if (!Taken)
        return false;
      Open.push_back({true, *Taken, *Taken});
      Condition("#" + Name + " " + Rest, *Taken ? 'T' : 'F', std::move(Tested));
      continue;
    }
    if (Name == "elif" || Name == "else" || Name == "endif") {
      if (Open.empty())
        return false;
      Conditional &Innermost = Open.back();
      if (!Innermost.Outer) {
        if (Name == "endif")
          Open.pop_back();
        continue;
      }
      if (Name == "endif") {
        Open.pop_back();
        Condition("#endif", 0, {});
      } else if (Name == "else") {
        Innermost.Active = !Innermost.Taken;
        Innermost.Taken = true;
        Condition("#else", 0, {});
      } else if (Innermost.Taken) {
        Innermost.Active = false;
        Condition("#elif " + Rest, 'N', {});
      } else {
        std::vector<std::string> Tested;
        std::optional<bool> Taken = Holds(Name, Rest, Tested);
        if (!Taken)
          return false;
        Innermost.Active = Innermost.Taken = *Taken;
        Condition("#elif " + Rest, *Taken ? 'T' : 'F', std::move(Tested));
      }
      continue;
    }
    if (!Active)
      continue;
    if (Name == "define" || Name == "undef") {
      std::optional<Preamble::Line> Macro = macroLine(Name, Top.Raw[I]);
      if (!Macro)
        return false;
      Out.Lines.push_back(std::move(*Macro));
      continue;
    }
    if (Name != "include")
      return false;
    llvm::StringRef Spelling(Rest);
    if (Spelling.size() < 3)
      return false;
    bool Quoted = Spelling.front() == '"' && Spelling.back() == '"';
    if (!Quoted && !(Spelling.front() == '<' && Spelling.back() == '>'))
      return false;
    Spelling = Spelling.drop_front().drop_back();
    // Where the compiler finds it: next to this file and through -iquote
    // (quoted only), then the angled search paths; else a builtin directory.
    std::optional<std::string> Own;
    if (Quoted) {
      Own = findIn({llvm::sys::path::parent_path(Path).str()}, Spelling);
      if (!Own)
        Own = findIn(Paths.Quoted, Spelling);
    }
    std::string Library = "/" + Spelling.str();
    if (!Own)
      if (std::optional<std::string> Dir = dirWith(Paths.Angled, Spelling)) {
        std::optional<std::string> File = findIn({*Dir}, Spelling);
        if (isLibraryDir(*Dir, Paths))
          Library = *File;
        else
          Own = File;
      }
    if (Own) {
      if (Depth >= 8 || !collectPreamble(*Own, Paths, Depth + 1, Evaluate, Guards, Out))
        return false;
      continue;
    }
    Out.Lines.push_back({("#include <" + Spelling + ">").str(), Library, ""});
  }
  return Depth > 0 && !Guarded && Open.empty() && Top.ReachesEnd;
}

struct FileStamp {
  uint64_t Size = 0;
  int64_t Modified = 0;
};

std::optional<FileStamp> stamp(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return std::nullopt;
  return FileStamp{Status.getSize(), llvm::sys::toTimeT(Status.getLastModificationTime())};
}

/// Lets Sema skip the bodies of non-template functions.
class SkipNonTemplateBodies : public clang::ASTConsumer {
public:
  bool shouldSkipFunctionBody(clang::Decl *D) override {
    const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
    return FD && !FD->isTemplated();
  }
};

/// Whether clang skips the header \p File when it is included again: it has
/// an include guard or `#pragma once`.
bool isGuarded(clang::HeaderSearch &Search, clang::FileManager &Files, llvm::StringRef File) {
  auto Entry = Files.getOptionalFileRef(File);
  if (!Entry)
    return false;
#if TORCHALIAS_LLVM_MAJOR >= 18
  return Search.isFileMultipleIncludeGuarded(*Entry);
#else
  return Search.isFileMultipleIncludeGuarded(&Entry->getFileEntry());
#endif
}

/// GeneratePCHAction that also writes the manifest: the search directories,
/// in order, the files it read and which of them are guarded, and the state
/// of the preamble's macros at its end.
class GeneratePchWithManifest : public clang::GeneratePCHAction {
public:
  GeneratePchWithManifest(std::string ManifestPath, std::string Header,
                          std::vector<std::string> FlagDirs, MacroFlags Defines,
                          std::vector<std::string> Macros)
      : ManifestPath(std::move(ManifestPath)), Header(std::move(Header)),
        FlagDirs(std::move(FlagDirs)), Defines(std::move(Defines)), Macros(std::move(Macros)) {}

  // The bodies of non-template functions are skipped, as in a unit's own
  // parse of these headers (Note [Skipped bodies] in Runner.cpp).
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI,
                                                        llvm::StringRef File) override {
    CI.getFrontendOpts().SkipFunctionBodies = true;
    std::vector<std::unique_ptr<clang::ASTConsumer>> Consumers;
    Consumers.push_back(clang::GeneratePCHAction::CreateASTConsumer(CI, File));
    Consumers.push_back(std::make_unique<SkipNonTemplateBodies>());
    return std::make_unique<clang::MultiplexConsumer>(std::move(Consumers));
  }

  bool BeginSourceFileAction(clang::CompilerInstance &CI) override {
    if (!clang::GeneratePCHAction::BeginSourceFileAction(CI))
      return false;
    CI.getPreprocessor().addPPCallbacks(recordBranches(CI.getPreprocessor(), Conditions));
    return true;
  }

  void EndSourceFileAction() override {
    clang::CompilerInstance &CI = getCompilerInstance();
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    for (const std::string &Dir : FlagDirs)
      OS << "flagdir " << Dir << '\n';
    for (const auto &[Macro, Flag] : Defines)
      OS << "define " << Flag << '\n';
    compat::forEachSearchDir(CI.getPreprocessor().getHeaderSearchInfo(),
                             [&](llvm::StringRef Dir) { OS << "dir " << realPath(Dir) << '\n'; });
    clang::HeaderSearch &Search = CI.getPreprocessor().getHeaderSearchInfo();
    compat::forEachFileRead(CI.getSourceManager(), [&](llvm::StringRef File) {
      std::string Name = realPath(File);
      if (Name == Header)
        return;
      if (std::optional<FileStamp> Now = stamp(Name))
        OS << "file " << Now->Size << ' ' << Now->Modified << ' ' << Name << '\n';
      if (isGuarded(Search, CI.getFileManager(), File))
        OS << "guarded " << Name << '\n';
    });
    clang::Preprocessor &PP = CI.getPreprocessor();
    for (const std::string &Macro : Macros) {
      const clang::MacroInfo *Info = PP.getMacroInfo(PP.getIdentifierInfo(Macro));
      const char *State = !Info ? "undefined"
                          : realPath(CI.getSourceManager().getFilename(
                                Info->getDefinitionLoc())) == Header
                              ? "here"
                              : "elsewhere";
      OS << "macro " << Macro << ' ' << State << '\n';
    }
    if (!Conditions.Taken.empty())
      OS << "branches " << Conditions.Taken << '\n';
    for (const std::string &Macro : Conditions.Changed)
      OS << "changed " << Macro << '\n';
    std::error_code EC;
    llvm::raw_fd_ostream Out(ManifestPath, EC);
    if (!EC)
      Out << Text;
    clang::GeneratePCHAction::EndSourceFileAction();
  }

private:
  std::string ManifestPath, Header;
  std::vector<std::string> FlagDirs;
  MacroFlags Defines;
  std::vector<std::string> Macros;
  Branches Conditions;
};

class OneCommand : public clang::tooling::CompilationDatabase {
public:
  explicit OneCommand(clang::tooling::CompileCommand Command) : Command(std::move(Command)) {}
  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef) const override {
    return {Command};
  }

private:
  clang::tooling::CompileCommand Command;
};

/// Swallows the diagnostics of a PCH build: a header that does not compile
/// with these flags only means that the unit is parsed plainly.
class QuietConsumer : public clang::DiagnosticConsumer {};

std::string textOf(const Preamble &Lead) {
  std::string Text;
  for (const Preamble::Line &Line : Lead.Lines)
    Text += Line.Text + "\n";
  return Text;
}

/// The base of every libtorch PCH, where reading it first is transparent:
/// Note [A shared PCH].
constexpr llvm::StringLiteral BaseHeader = "ATen/ATen.h";

/// What a shorter preamble gives when preprocessed alone, with a unit's
/// flags.
/// It sets \p Ignored to the macros that the run's flags set otherwise than
/// the unit's, which none of its files names, nor any of \p AlsoRead.
using FirstRun = llvm::function_ref<std::optional<PreambleTokens>(
    const Preamble &, const std::vector<std::string> &AlsoRead, std::set<std::string> &Ignored)>;

/// The shared PCH of Note [A shared PCH], if one is transparent for \p Lead
/// (found through \p Paths), preprocessing the header \p Probe (a path of the
/// cache), where \p ReadAlone preprocesses a shorter preamble alone; and in
/// \p Files and \p Dirs, every file that decided it and the search
/// directories that found them.
std::optional<SharedPreamble> reorderedPreamble(const std::vector<std::string> &Flags,
                                                const SearchPaths &Paths,
                                                const Preamble &Lead,
                                                const std::string &Probe,
                                                llvm::StringRef WorkingDir,
                                                std::vector<std::string> &Files,
                                                std::vector<std::string> &Dirs,
                                                FirstRun ReadAlone) {
  std::optional<PreambleTokens> Unit =
      preprocessPreamble(Flags, Probe, textOf(Lead), WorkingDir);
  // Its conditionals must be taken as the preamble's reading took them.
  if (!Unit || Unit->Conditions.Taken != branchesOf(Lead))
    return std::nullopt;
  Files = Unit->Files;
  Dirs = Unit->Dirs;
  const std::vector<std::string> &Named = Unit->Includes[Probe];
  std::vector<const Preamble::Line *> Includes;
  for (const Preamble::Line &Line : Lead.Lines)
    if (isInclude(Line))
      Includes.push_back(&Line);
  if (Named.size() != Includes.size())
    return std::nullopt;
  // What each header includes, directly or not.
  auto Closure = [&](const std::string &From) {
    std::set<std::string> Seen;
    std::vector<std::string> Work{From};
    while (!Work.empty()) {
      std::string File = std::move(Work.back());
      Work.pop_back();
      for (const std::string &Next : Unit->Includes[File])
        if (Seen.insert(Next).second)
          Work.push_back(Next);
    }
    return Seen;
  };
  std::vector<std::set<std::string>> Reached;
  for (const std::string &Header : Named)
    Reached.push_back(Closure(Header));
  // Its roots: the headers that are not standard and that no other header
  // of the preamble includes, in order, with its #define and #undef lines in
  // their places, out of the conditionals they are in, and each run of
  // libtorch headers sorted.
  Preamble Roots;
  for (size_t I = 0, Include = 0; I < Lead.Lines.size(); ++I) {
    const Preamble::Line &Line = Lead.Lines[I];
    if (isCondition(Line))
      continue;
    if (isMacro(Line)) {
      Roots.Lines.push_back(Line);
      continue;
    }
    bool Included = isReincludable(Line);
    for (size_t J = 0; J < Named.size(); ++J)
      Included |= J != Include && Named[J] != Named[Include] &&
                  !isReincludable(*Includes[J]) && Reached[J].count(Named[Include]);
    if (!Included)
      Roots.Lines.push_back(Line);
    ++Include;
  }
  auto IsLibtorch = [](const Preamble::Line &Line) { return isLibtorchHeader(Line.Text); };
  for (auto Run = Roots.Lines.begin(); Run != Roots.Lines.end();) {
    auto End = std::find_if_not(Run, Roots.Lines.end(), IsLibtorch);
    std::sort(Run, End, [](const Preamble::Line &A, const Preamble::Line &B) {
      return A.Text < B.Text;
    });
    Run = End == Run ? End + 1 : End;
  }
  if (llvm::none_of(Roots.Lines, isInclude))
    return std::nullopt;
  // The base, where the roots include it and are not just it.
  Preamble Base;
  std::string BaseSpelling = ("#include <" + BaseHeader + ">").str();
  std::optional<std::string> BaseDir = dirWith(Paths.Angled, BaseHeader);
  bool Included = llvm::any_of(Reached, [&](const std::set<std::string> &Closure) {
    return llvm::any_of(Closure, [&](llvm::StringRef File) {
      return compat::endsWith(File, "/" + BaseHeader.str());
    });
  });
  if (Included && (!BaseDir || isLibraryDir(*BaseDir, Paths)) &&
      !(Roots.Lines.size() == 1 && Roots.Lines[0].Text == BaseSpelling))
    Base.Lines.push_back(
        {BaseSpelling, BaseDir ? *findIn({*BaseDir}, BaseHeader) : "/" + BaseHeader.str(), ""});
  // Whether a unit that reads the shared PCH first sees what it would.
  // Where the preamble sets no macro and each header it names is one that
  // reading First included and would skip when included again, the preamble
  // adds nothing after First: First read alone gives what the parser sees.
  // That run is the same for every preamble with these roots and flags.
  auto Transparent = [&](const Preamble &First) {
    std::optional<PreambleTokens> Reordered;
    std::set<std::string> Ignored;
    if (llvm::all_of(Lead.Lines, isInclude))
      Reordered = ReadAlone(First, Unit->Files, Ignored);
    if (Reordered && !llvm::all_of(Named, [&](const std::string &File) {
          return Reordered->Skipped.count(File) != 0;
        }))
      Reordered.reset();
    if (!Reordered) {
      Ignored.clear();
      Reordered = preprocessPreamble(Flags, Probe, textOf(First) + textOf(Lead), WorkingDir);
    }
    if (!Reordered)
      return false;
    for (const std::string &File : Reordered->Files)
      if (!llvm::is_contained(Files, File))
        Files.push_back(File);
    return Reordered->Conditions.Taken == Unit->Conditions.Taken &&
           Reordered->sameAs(*Unit, Ignored);
  };
  Preamble Both = Base;
  Both.Lines.insert(Both.Lines.end(), Roots.Lines.begin(), Roots.Lines.end());
  if (!Base.Lines.empty() && Transparent(Both))
    return SharedPreamble{Base, Roots};
  if (textOf(Roots) != textOf(Lead) && Transparent(Roots))
    return SharedPreamble{{}, Roots};
  return std::nullopt;
}

/// Whether a unit that searches \p Paths finds each of \p Files where a run
/// that searched \p Dirs found it, \p FlagDirs being those of its directories
/// that came from its flags: the PCH built by that run, or the decision it
/// took, is then the unit's own.
/// Each file's home is the first of \p Dirs that contains it. The unit must
/// have the run's own include directories that are homes, in the same order,
/// and none of its other directories may hold a file of the same name (it
/// would shadow it).
bool foundAlike(const std::vector<std::string> &Files, const std::vector<std::string> &Dirs,
                const std::vector<std::string> &FlagDirs, const SearchPaths &Paths) {
  auto HomeOf = [&](llvm::StringRef Included) {
    return llvm::find_if(Dirs, [&](llvm::StringRef Dir) {
      return compat::startsWith(Included, Dir.str() + "/");
    });
  };
  std::vector<std::string> Homes, Own, Others;
  for (const std::string &Included : Files)
    if (auto Home = HomeOf(Included); Home != Dirs.end() &&
                                      llvm::is_contained(FlagDirs, *Home) &&
                                      !llvm::is_contained(Homes, *Home))
      Homes.push_back(*Home);
  for (const std::string &Dir : FlagDirs)
    if (llvm::is_contained(Homes, Dir))
      Own.push_back(Dir);
  std::vector<std::string> UnitOwn;
  for (const std::string &Dir : flagDirs(Paths)) {
    if (llvm::is_contained(Own, Dir))
      UnitOwn.push_back(Dir);
    else if (!llvm::is_contained(Dirs, Dir))
      Others.push_back(Dir);
  }
  if (UnitOwn != Own)
    return false;
  if (!Others.empty())
    for (const std::string &Included : Files) {
      auto Home = HomeOf(Included);
      if (Home == Dirs.end())
        continue; // found next to its includer, whatever the search paths
      llvm::StringRef Spelling = llvm::StringRef(Included).drop_front(Home->size() + 1);
      if (findIn(Others, Spelling))
        return false;
    }
  return true;
}

/// Reads a line of a PCH's manifest or a plan that says how its run searched
/// and which macros its flags set (`dir`, `flagdir`, `define`); false if it
/// is another line.
bool readRunLine(llvm::StringRef Line, std::vector<std::string> &Dirs,
                 std::vector<std::string> &FlagDirs, MacroFlags &Defines) {
  if (Line.consume_front("dir "))
    Dirs.push_back(Line.str());
  else if (Line.consume_front("flagdir "))
    FlagDirs.push_back(Line.str());
  else if (Line.consume_front("define "))
    Defines[macroOf(Line)] = Line.str();
  else
    return false;
  return true;
}

/// The file of a `<size> <time> <path>` line of a manifest or plan, if it
/// still has that size and modification time.
std::optional<llvm::StringRef> unchangedFile(llvm::StringRef Line) {
  auto [SizeText, Rest] = Line.split(' ');
  auto [TimeText, Path] = Rest.split(' ');
  FileStamp Recorded;
  if (SizeText.getAsInteger(10, Recorded.Size) || TimeText.getAsInteger(10, Recorded.Modified))
    return std::nullopt;
  std::optional<FileStamp> Now = stamp(Path);
  if (!Now || Now->Size != Recorded.Size || Now->Modified != Recorded.Modified)
    return std::nullopt;
  return Path;
}

/// The macros that \p A and \p B set differently, or that one sets and the
/// other does not.
std::set<std::string> differingMacros(const MacroFlags &A, const MacroFlags &B) {
  std::set<std::string> Out;
  for (const auto &[Macro, Flag] : A)
    if (auto It = B.find(Macro); It == B.end() || It->second != Flag)
      Out.insert(Macro);
  for (const auto &Set : B)
    if (!A.count(Set.first))
      Out.insert(Set.first);
  return Out;
}

/// Whether \p Text has the identifier \p Name as a word: in code, a
/// comment or a literal alike.
bool namesWord(llvm::StringRef Text, llvm::StringRef Name) {
  auto InWord = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  for (size_t At = Text.find(Name); At != llvm::StringRef::npos;
       At = Text.find(Name, At + 1))
    if ((At == 0 || !InWord(Text[At - 1])) &&
        (At + Name.size() == Text.size() || !InWord(Text[At + Name.size()])))
      return true;
  return false;
}

/// The plan at \p Path, if every file that decided it is unchanged.
std::optional<SharedPlan> readPlan(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return std::nullopt;
  SharedPlan Out;
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    if (Line == "none")
      continue;
    if (readRunLine(Line, Out.Dirs, Out.FlagDirs, Out.Defines))
      continue;
    bool InBase = Line.consume_front("base ");
    if (Line.consume_front("include ") || Line.consume_front("macro ")) {
      auto [Name, Text] = Line.split('\t');
      bool Include = compat::startsWith(Text, "#include");
      if (!Out.Shared)
        Out.Shared.emplace();
      (InBase ? Out.Shared->Base : Out.Shared->Roots)
          .Lines.push_back({Text.str(), Include ? Name.str() : "", Include ? "" : Name.str(),
                            Include ? Preamble::Kind::Include : Preamble::Kind::Macro});
      continue;
    }
    if (InBase || !Line.consume_front("file "))
      return std::nullopt;
    std::optional<llvm::StringRef> File = unchangedFile(Line);
    if (!File)
      return std::nullopt;
    Out.Files.push_back(File->str());
  }
  return Out;
}

void writePlan(const std::string &Path, const SharedPlan &Decided) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (!Decided.Shared)
    OS << "none\n";
  else
    for (const auto &[Prefix, Part] : {std::pair("base ", &Decided.Shared->Base),
                                       std::pair("", &Decided.Shared->Roots)})
      for (const Preamble::Line &Line : Part->Lines)
        OS << Prefix << (isInclude(Line) ? "include " + Line.Header : "macro " + Line.Macro)
           << '\t' << Line.Text << '\n';
  for (const auto &[Macro, Flag] : Decided.Defines)
    OS << "define " << Flag << '\n';
  for (const std::string &Dir : Decided.Dirs)
    OS << "dir " << Dir << '\n';
  for (const std::string &Dir : Decided.FlagDirs)
    OS << "flagdir " << Dir << '\n';
  for (const std::string &File : Decided.Files)
    if (std::optional<FileStamp> Now = stamp(File))
      OS << "file " << Now->Size << ' ' << Now->Modified << ' ' << File << '\n';
  // Written under a unique name, then renamed, as a PCH is.
  llvm::SmallString<256> Temporary;
  llvm::sys::fs::createUniquePath(Path + ".tmp-%%%%%%%%", Temporary, false);
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Temporary, EC);
    if (EC)
      return;
    Out << OS.str();
  }
  if (llvm::sys::fs::rename(Temporary, Path))
    llvm::sys::fs::remove(Temporary);
}

} // namespace

llvm::StringRef pchMissName(PchMiss Miss) {
  switch (Miss) {
  case PchMiss::None:
    return "";
  case PchMiss::Disabled:
    return "disabled";
  case PchMiss::SeveralCommands:
    return "several-commands";
  case PchMiss::ForcedInclude:
    return "forced-include";
  case PchMiss::NotCxx:
    return "not-c++";
  case PchMiss::NoPreamble:
    return "no-preamble";
  case PchMiss::Unguarded:
    return "unguarded-header";
  case PchMiss::MacroChanged:
    return "macro-changed";
  case PchMiss::ConditionChanged:
    return "condition-changed";
  case PchMiss::BuildFailed:
    return "build-failed";
  case PchMiss::SearchPaths:
    return "search-paths";
  case PchMiss::CompileError:
    return "compile-error";
  }
  return "";
}

Preamble preambleOf(llvm::StringRef Path, const SearchPaths &Paths, EvaluateCondition Evaluate) {
  Preamble All;
  std::set<std::string> Guards;
  collectPreamble(Path, Paths, 0, Evaluate, Guards, All);
  // Each header once: a second include of a guarded header is skipped, and
  // the PCH is used only if each is guarded (PchCache::fits). The cut: after
  // the last libtorch header, else after the last header.
  Preamble Out;
  size_t LastInclude = 0, LastLibtorch = 0;
  for (Preamble::Line &Line : All.Lines) {
    if (isInclude(Line)) {
      if (llvm::any_of(Out.Lines,
                       [&](const Preamble::Line &L) { return L.Header == Line.Header; }))
        continue;
      (isLibtorchHeader(Line.Text) ? LastLibtorch : LastInclude) = Out.Lines.size() + 1;
    }
    Out.Lines.push_back(std::move(Line));
  }
  Out.Lines.resize(LastLibtorch ? LastLibtorch : LastInclude);
  // The conditionals the cut leaves open are closed.
  int Open = 0;
  for (const Preamble::Line &Line : Out.Lines)
    if (isCondition(Line))
      Open += compat::startsWith(Line.Text, "#if") ? 1 : Line.Text == "#endif" ? -1 : 0;
  for (; Open > 0; --Open)
    Out.Lines.push_back({"#endif", "", "", Preamble::Kind::Condition});
  return Out;
}

llvm::Error PchCache::prepare() {
  if (std::error_code EC = llvm::sys::fs::create_directories(Directory))
    return llvm::createStringError(EC, "cannot create the PCH cache '%s': %s",
                                   Directory.c_str(), EC.message().c_str());
  llvm::SmallString<256> Probe;
  int FD;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(
          Directory + "/write-test-%%%%%%", FD, Probe))
    return llvm::createStringError(EC, "cannot write the PCH cache '%s': %s",
                                   Directory.c_str(), EC.message().c_str());
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  llvm::sys::fs::remove(Probe);
  return llvm::Error::success();
}

PchChoice PchCache::pchFor(const std::vector<std::string> &Args, llvm::StringRef File,
                           llvm::StringRef WorkingDir) {
  std::vector<std::string> Flags = flagsOf(Args, File, WorkingDir);
  if (PchMiss Miss = commandLineMiss(Flags); Miss != PchMiss::None)
    return {std::nullopt, Miss};
  SplitFlags Split = splitFlags(Flags, WorkingDir);
  // Note [A preamble's conditionals]: each condition is preprocessed once
  // per run with the unit's flags.
  std::string Probe = realPath(Directory) + "/condition.h";
  auto Evaluate = [&](const std::string &Macros, const std::string &If) {
    std::string Key = WorkingDir.str() + '\0' + llvm::join(Flags, std::string(1, '\0')) +
                      '\0' + Macros + If;
    return once(Evaluated, hash64(Key), [&]() -> std::optional<bool> {
      std::optional<PreambleTokens> Run =
          preprocessPreamble(Flags, Probe, Macros + If + "#endif\n", WorkingDir);
      if (!Run || Run->Conditions.Taken.size() != 1)
        return std::nullopt;
      return Run->Conditions.Taken == "T";
    });
  };
  Preamble Lead = preambleOf(absoluteIn(WorkingDir, File), Split.Paths, Evaluate);
  if (Lead.Lines.empty())
    return {std::nullopt, PchMiss::NoPreamble};
  auto Found = [](const std::pair<std::optional<Built>, PchMiss> &Pch) {
    return Pch.first ? PchChoice{Pch.first->Path, PchMiss::None}
                     : PchChoice{std::nullopt, Pch.second};
  };
  UnitFlags Unit{Flags, Split.Paths, Split.Rest, Split.Macros, Split.Macros};
  SharedPlan Plan = sharedPreamble(Flags, Unit, Lead, WorkingDir);
  // The PCH is built without the macros that no file of the decision and no
  // line of the preamble names: Note [Macros no header reads].
  if (!Plan.Files.empty()) {
    std::set<std::string> Names;
    for (const auto &Set : Split.Macros)
      Names.insert(Set.first);
    for (const Preamble::Line &Line : Lead.Lines) {
      Names.erase(Line.Macro);
      for (const std::string &Tested : Line.Tested)
        Names.erase(Tested);
    }
    std::set<std::string> Unread = unread(Plan.Files, Names);
    Unit.Build = withoutMacros(Flags, Unread);
    for (const std::string &Macro : Unread)
      Unit.Kept.erase(Macro);
  }
  if (const std::optional<SharedPreamble> &Shared = Plan.Shared) {
    std::optional<Built> Base;
    if (!Shared->Base.Lines.empty())
      Base = pchOf(Unit, Shared->Base, nullptr, WorkingDir).first;
    if (Base || Shared->Base.Lines.empty())
      if (PchChoice Choice = Found(pchOf(Unit, Shared->Roots, Base ? &*Base : nullptr,
                                         WorkingDir));
          Choice.Path)
        return Choice;
  }
  return Found(pchOf(Unit, Lead, nullptr, WorkingDir));
}

std::pair<std::optional<PchCache::Built>, PchMiss>
PchCache::pchOf(const UnitFlags &Flags, const Preamble &Lead, const Built *Base,
                llvm::StringRef WorkingDir) {
  // The cache key: clang's version, the flags other than include directories
  // and macros, the PCH it is chained to, and the preamble; one variant per
  // set of include directories and macros that needed its own PCH.
  std::string KeyText = clang::getClangFullVersion();
  for (const std::string &Flag : Flags.Rest)
    KeyText += '\0' + Flag;
  if (Base)
    KeyText += "\0base\0" + Base->Path;
  KeyText += '\0' + keyTextOf(Lead);
  std::string Prefix = hash64(KeyText);
  std::string DirsText;
  for (const std::string &Dir : flagDirs(Flags.Paths))
    DirsText += Dir + '\0';
  for (const auto &[Macro, Flag] : Flags.Kept)
    DirsText += Flag + '\0';
  std::string Own = Prefix + "-" + hash64(DirsText);

  // A variant that fits: any other already built, then this unit's own.
  // One unit of a key at a time looks and builds, so that a variant another
  // thread is building is found rather than built again.
  std::lock_guard<std::mutex> Searching(searchLock(Prefix));
  std::vector<std::string> Keys = variants(Prefix, ".deps");
  Keys.erase(std::remove(Keys.begin(), Keys.end(), Own), Keys.end());
  auto Use = [&](const std::string &Key, const Built &Pch) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Used.insert(Key);
    return std::make_pair(std::optional<Built>(Pch), PchMiss::None);
  };
  // A PCH built with a macro set differently is the unit's only where the
  // PCH does not set it and none of its files names it.
  auto Fits = [&](const Built &Pch) {
    if (PchMiss Miss = fits(Pch, Lead, Flags.Paths); Miss != PchMiss::None)
      return Miss;
    return macrosAlike(Pch.Files, Pch.Defines, Flags.Macros, /*HadKept=*/true)
               ? PchMiss::None
               : PchMiss::MacroChanged;
  };
  for (const std::string &Key : Keys)
    if (std::optional<Built> Pch = variant(Key, nullptr, WorkingDir);
        Pch && Fits(*Pch) == PchMiss::None)
      return Use(Key, *Pch);
  BuildInput Input{Flags.Build, Lead, Base};
  std::optional<Built> Pch = variant(Own, &Input, WorkingDir);
  if (!Pch)
    return {std::nullopt, PchMiss::BuildFailed};
  if (PchMiss Miss = Fits(*Pch); Miss != PchMiss::None)
    return {std::nullopt, Miss};
  return Use(Own, *Pch);
}

SharedPlan PchCache::sharedPreamble(const std::vector<std::string> &Flags,
                                    const UnitFlags &Split, const Preamble &Lead,
                                    llvm::StringRef WorkingDir) {
  // One header is its own root, or standard and none; it may still have a
  // base if it is libtorch's.
  if (llvm::count_if(Lead.Lines, isInclude) < 2 &&
      llvm::none_of(Lead.Lines, [](const Preamble::Line &Line) {
        return isInclude(Line) && isLibtorchHeader(Line.Text);
      }))
    return {};
  // The key, as a PCH's: the flags other than include directories and
  // macros, and the preamble; one variant per set of include directories and
  // macros that needed its own decision.
  std::string FlagsText = clang::getClangFullVersion();
  for (const std::string &Flag : Split.Rest)
    FlagsText += '\0' + Flag;
  std::string KeyText = FlagsText + '\0' + keyTextOf(Lead);
  std::string Prefix = "shared-" + hash64(KeyText);
  std::vector<std::string> FlagDirs = flagDirs(Split.Paths);
  std::string VariantText = llvm::join(FlagDirs, std::string(1, '\0'));
  for (const auto &[Macro, Flag] : Split.Macros)
    VariantText += '\0' + Flag;
  std::string Own = Prefix + "-" + hash64(VariantText);
  // A run or decision made with other include directories or macros holds
  // where they find every file it read at the same place, and where none of
  // those files names a macro they set differently.
  auto Holds = [&](const std::vector<std::string> &Files, const std::vector<std::string> &Dirs,
                   const std::vector<std::string> &RunDirs, const MacroFlags &Defines) {
    return foundAlike(Files, Dirs, RunDirs, Split.Paths) &&
           macrosAlike(Files, Defines, Split.Macros, /*HadKept=*/false);
  };
  return once(Shared, Own, [&] {
    std::lock_guard<std::mutex> Searching(searchLock(Prefix));
    std::vector<std::string> Plans = variants(Prefix, ".plan");
    Plans.erase(std::remove(Plans.begin(), Plans.end(), Own), Plans.end());
    Plans.insert(Plans.begin(), Own);
    for (const std::string &Key : Plans)
      if (std::optional<SharedPlan> Known = readPlan(Directory + "/" + Key + ".plan");
          Known && Holds(Known->Files, Known->Dirs, Known->FlagDirs, Known->Defines))
        return *Known;
    std::string Probe = realPath(Directory) + "/" + Own + ".h";
    // Runs of a shorter preamble alone are kept for the run, keyed as the
    // decision is: units of a project share their roots.
    auto ReadAlone = [&](const Preamble &First, const std::vector<std::string> &AlsoRead,
                         std::set<std::string> &Ignored) -> std::optional<PreambleTokens> {
      std::string RunKey = FlagsText + '\0' + textOf(First);
      std::vector<AloneRun> Known;
      {
        std::lock_guard<std::mutex> Lock(Mutex);
        Known = AloneRuns[RunKey];
      }
      for (const AloneRun &Run : Known)
        if (Holds(Run.Tokens.Files, Run.Tokens.Dirs, Run.FlagDirs, Run.Defines)) {
          Ignored = differingMacros(Run.Defines, Split.Macros);
          if (unread(AlsoRead, Ignored) == Ignored)
            return Run.Tokens;
        }
      Ignored.clear();
      std::optional<PreambleTokens> Tokens =
          preprocessPreamble(Flags, Probe, textOf(First), WorkingDir);
      if (Tokens) {
        std::lock_guard<std::mutex> Lock(Mutex);
        AloneRuns[RunKey].push_back({FlagDirs, Split.Macros, *Tokens});
      }
      return Tokens;
    };
    SharedPlan Decided;
    Decided.FlagDirs = FlagDirs;
    Decided.Defines = Split.Macros;
    Decided.Shared = reorderedPreamble(Flags, Split.Paths, Lead, Probe, WorkingDir,
                                       Decided.Files, Decided.Dirs, ReadAlone);
    writePlan(Directory + "/" + Own + ".plan", Decided);
    return Decided;
  });
}

std::vector<std::string> PchCache::variants(const std::string &Prefix,
                                            llvm::StringRef Suffix) const {
  std::vector<std::string> Keys;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Directory, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (compat::startsWith(Name, Prefix + "-") && compat::endsWith(Name, Suffix) &&
        !Name.contains(".tmp-"))
      Keys.push_back(Name.drop_back(Suffix.size()).str());
  }
  return Keys;
}

std::mutex &PchCache::searchLock(const std::string &Prefix) {
  std::lock_guard<std::mutex> Lock(Mutex);
  return SearchLocks[Prefix];
}

std::set<std::string> PchCache::unread(const std::vector<std::string> &Files,
                                       const std::set<std::string> &Names) {
  std::set<std::string> Out = Names;
  std::lock_guard<std::mutex> Lock(MentionsMutex);
  for (const std::string &File : Files) {
    if (Out.empty())
      break;
    std::map<std::string, bool> &Known = Mentions[File];
    std::unique_ptr<llvm::MemoryBuffer> Text;
    for (auto Name = Out.begin(); Name != Out.end();) {
      auto It = Known.find(*Name);
      if (It == Known.end()) {
        if (!Text)
          if (auto Read = llvm::MemoryBuffer::getFile(File))
            Text = std::move(*Read);
        It = Known.emplace(*Name, !Text || namesWord(Text->getBuffer(), *Name)).first;
      }
      Name = It->second ? Out.erase(Name) : std::next(Name);
    }
  }
  return Out;
}

bool PchCache::macrosAlike(const std::vector<std::string> &Files, const MacroFlags &Had,
                           const MacroFlags &Has, bool HadKept) {
  std::set<std::string> Differ = differingMacros(Had, Has);
  if (HadKept && llvm::any_of(Differ, [&](const std::string &Macro) { return Had.count(Macro); }))
    return false;
  return Differ.empty() || unread(Files, Differ) == Differ;
}

unsigned PchCache::built() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return BuiltKeys.size();
}

unsigned PchCache::reused() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return llvm::count_if(Used, [&](const std::string &Key) { return !BuiltKeys.count(Key); });
}

std::optional<PchCache::Built> PchCache::variant(const std::string &Key,
                                                 const BuildInput *Input,
                                                 llvm::StringRef WorkingDir) {
  return once(ByKey, Key, [&] {
    std::optional<Built> Cached =
        readManifest(Directory + "/" + Key + ".pch", Directory + "/" + Key + ".deps");
    if (!Cached && Input) {
      Cached = build(Key, *Input, WorkingDir);
      if (Cached) {
        std::lock_guard<std::mutex> Lock(Mutex);
        BuiltKeys.insert(Key);
      }
    }
    return Cached;
  });
}

PchMiss PchCache::fits(const Built &Pch, const Preamble &Lead, const SearchPaths &Paths) {
  // The preamble's headers are where the PCH found them, and each is skipped
  // when the unit includes it again.
  // The macros it sets are as it left them: when the unit repeats its
  // #define and #undef lines, they change nothing.
  // Its conditionals were taken as the preamble's reading took them, and
  // the unit takes them so again: what they read is as the PCH leaves it.
  if (Pch.Conditions.Taken != branchesOf(Lead) || !Pch.Conditions.Changed.empty())
    return PchMiss::ConditionChanged;
  std::map<std::string, bool> Defined; // by the last line that names it
  for (const Preamble::Line &Line : Lead.Lines) {
    if (isCondition(Line))
      continue;
    if (isMacro(Line)) {
      Defined[Line.Macro] = compat::startsWith(Line.Text, "#define");
      continue;
    }
    // A header of a builtin directory ("/<spelling>") is the first the PCH's
    // search directories give (<dirent.h>, not <bits/dirent.h>).
    auto Included = llvm::find(Pch.Files, Line.Header);
    for (auto Dir = Pch.Dirs.begin(); Included == Pch.Files.end() && Dir != Pch.Dirs.end();
         ++Dir)
      Included = llvm::find(Pch.Files, *Dir + Line.Header);
    if (Included == Pch.Files.end())
      return PchMiss::SearchPaths;
    if (!Pch.Guarded.count(*Included) && !isReincludable(Line))
      return PchMiss::Unguarded;
  }
  for (const auto &[Macro, IsDefined] : Defined) {
    auto State = Pch.Macros.find(Macro);
    if (State == Pch.Macros.end() || State->second != (IsDefined ? "here" : "undefined"))
      return PchMiss::MacroChanged;
  }
  if (!foundAlike(Pch.Files, Pch.Dirs, Pch.FlagDirs, Paths))
    return PchMiss::SearchPaths;
  return PchMiss::None;
}

std::optional<PchCache::Built> PchCache::readManifest(const std::string &Pch,
                                                      const std::string &Manifest) {
  auto Buffer = llvm::MemoryBuffer::getFile(Manifest);
  if (!Buffer || !llvm::sys::fs::exists(Pch))
    return std::nullopt;
  Built Out{Pch, {}, {}, {}, {}, {}, {}, {}};
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    if (readRunLine(Line, Out.Dirs, Out.FlagDirs, Out.Defines))
      continue;
    if (Line.consume_front("guarded ")) {
      Out.Guarded.insert(Line.str());
      continue;
    }
    if (Line.consume_front("macro ")) {
      auto [Macro, State] = Line.split(' ');
      Out.Macros[Macro.str()] = State.str();
      continue;
    }
    if (Line.consume_front("branches ")) {
      Out.Conditions.Taken = Line.str();
      continue;
    }
    if (Line.consume_front("changed ")) {
      Out.Conditions.Changed.insert(Line.str());
      continue;
    }
    bool IsBase = Line.consume_front("base ");
    if (!IsBase && !Line.consume_front("file "))
      return std::nullopt;
    std::optional<llvm::StringRef> File = unchangedFile(Line);
    if (!File)
      return std::nullopt; // a header or the base changed: rebuild
    if (!IsBase)
      Out.Files.push_back(File->str());
  }
  if (Out.Files.empty())
    return std::nullopt;
  return Out;
}

bool PchCache::addBase(const std::string &Manifest, const Built &Base) {
  auto Buffer = llvm::MemoryBuffer::getFile(Manifest);
  if (!Buffer)
    return false;
  std::string Text = (*Buffer)->getBuffer().str();
  std::set<std::string> Listed;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(Text).split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines)
    if (Line.consume_front("file "))
      Listed.insert(Line.split(' ').second.split(' ').second.str());
  llvm::raw_string_ostream OS(Text);
  std::optional<FileStamp> Pch = stamp(Base.Path);
  if (!Pch)
    return false;
  OS << "base " << Pch->Size << ' ' << Pch->Modified << ' ' << Base.Path << '\n';
  for (const std::string &File : Base.Files)
    if (std::optional<FileStamp> Now = stamp(File); Now && !Listed.count(File))
      OS << "file " << Now->Size << ' ' << Now->Modified << ' ' << File << '\n';
  for (const std::string &File : Base.Guarded)
    OS << "guarded " << File << '\n';
  std::error_code EC;
  llvm::raw_fd_ostream Out(Manifest, EC);
  if (EC)
    return false;
  Out << OS.str();
  return true;
}

std::optional<PchCache::Built> PchCache::build(const std::string &Key, const BuildInput &Input,
                                               llvm::StringRef WorkingDir) {
  const std::vector<std::string> &Flags = Input.Flags;
  std::string Pch = Directory + "/" + Key + ".pch";
  std::string Manifest = Directory + "/" + Key + ".deps";
  std::string Header = realPath(Directory) + "/" + Key + ".h";
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Header, EC);
    if (EC)
      return std::nullopt;
    for (const Preamble::Line &Line : Input.Lead.Lines)
      Out << Line.Text << "\n";
  }
  // Build under unique names, then rename: other processes (shards) may be
  // building or reading the same key.
  llvm::SmallString<256> Temporary, TemporaryManifest;
  llvm::sys::fs::createUniquePath(Pch + ".tmp-%%%%%%%%", Temporary, false);
  TemporaryManifest = Temporary;
  TemporaryManifest += ".deps";
  std::vector<std::string> CommandLine(Flags.begin(), Flags.end());
  CommandLine.erase(std::remove(CommandLine.begin(), CommandLine.end(), "-fsyntax-only"),
                    CommandLine.end());
  if (Input.Base)
    CommandLine.insert(CommandLine.end(), {"-include-pch", Input.Base->Path});
  // Templates the header uses are instantiated once, in the PCH, rather than
  // at the end of every unit: most of what is left of a unit's parse time.
  CommandLine.insert(CommandLine.end(), {"-fpch-instantiate-templates", "-x", "c++-header",
                                         Header, "-o", std::string(Temporary)});
  OneCommand Database({WorkingDir.str(), Header, CommandLine, std::string(Temporary)});
  // A file system of its own: Note [One working directory per unit] in
  // Runner.cpp.
  clang::tooling::ClangTool Tool(
      Database, {Header}, std::make_shared<clang::PCHContainerOperations>(),
      llvm::vfs::createPhysicalFileSystem());
  Tool.clearArgumentsAdjusters();
  Tool.setPrintErrorMessage(false);
  QuietConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  struct Factory : clang::tooling::FrontendActionFactory {
    std::string ManifestPath, Header;
    std::vector<std::string> FlagDirs;
    MacroFlags Defines;
    std::vector<std::string> Macros;
    std::unique_ptr<clang::FrontendAction> create() override {
      return std::make_unique<GeneratePchWithManifest>(ManifestPath, Header, FlagDirs, Defines,
                                                       Macros);
    }
  } MakeAction;
  for (const Preamble::Line &Line : Input.Lead.Lines)
    if (isMacro(Line) && !llvm::is_contained(MakeAction.Macros, Line.Macro))
      MakeAction.Macros.push_back(Line.Macro);
  MakeAction.ManifestPath = std::string(TemporaryManifest);
  MakeAction.Header = Header;
  SplitFlags Split = splitFlags(Flags, WorkingDir);
  MakeAction.FlagDirs = flagDirs(Split.Paths);
  MakeAction.Defines = Split.Macros;
  bool Ok = Tool.run(&MakeAction) == 0 && llvm::sys::fs::exists(Temporary) &&
            (!Input.Base || addBase(std::string(TemporaryManifest), *Input.Base)) &&
            !llvm::sys::fs::rename(TemporaryManifest, Manifest) &&
            !llvm::sys::fs::rename(Temporary, Pch);
  llvm::sys::fs::remove(Temporary);
  llvm::sys::fs::remove(TemporaryManifest);
  if (!Ok)
    return std::nullopt;
  return readManifest(Pch, Manifest);
}

} // namespace torchalias::driver
