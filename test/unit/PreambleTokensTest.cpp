//===- PreambleTokensTest.cpp - What preprocessing a preamble records -----===//
//
// The facts that Note [A shared PCH] (driver/check/PchCache.cpp) decides on:
// which headers an #include after the preamble would skip, which lets the
// decision reuse a run of the roots alone, and the search directories that
// let it reuse a decision taken with other include directories; and how
// the header's own conditionals were taken (Note [A preamble's
// conditionals]).
//
//===----------------------------------------------------------------------===//

#include "check/PreambleTokens.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace torchalias::driver;

namespace {

class PreambleTokensTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> Prefix, Made;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Prefix);
    llvm::sys::path::append(Prefix, "preamble-tokens");
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory(Prefix, Made));
    llvm::SmallString<128> Real;
    ASSERT_FALSE(llvm::sys::fs::real_path(Made, Real));
    Dir = std::string(Real);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string write(llvm::StringRef Name, llvm::StringRef Text) {
    std::string Path = Dir + "/" + Name.str();
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC);
    EXPECT_FALSE(EC);
    Out << Text;
    return Path;
  }

  std::optional<PreambleTokens> preprocess(llvm::StringRef Text) {
    return preprocessPreamble({"clang++", "-std=c++17", "-I" + Dir}, Dir + "/probe.h", Text,
                              Dir);
  }

  std::string Dir;
};

TEST_F(PreambleTokensTest, SkippedHoldsTheHeadersAnIncludeWouldSkip) {
  std::string Guarded = write("guarded.h", "#ifndef GUARDED_H\n#define GUARDED_H\nint g;\n#endif\n");
  std::string Once = write("once.h", "#pragma once\nint o;\n");
  std::string Unguarded = write("unguarded.h", "int u;\n");
  // Its guard's macro is undefined later, so a second include enters it.
  std::string Undone = write("undone.h", "#ifndef UNDONE_H\n#define UNDONE_H\nint d;\n#endif\n");
  std::optional<PreambleTokens> Out =
      preprocess("#include <guarded.h>\n#include <once.h>\n#include <unguarded.h>\n"
                 "#include <undone.h>\n#undef UNDONE_H\n");
  ASSERT_TRUE(Out);
  EXPECT_EQ(Out->Skipped.count(Guarded), 1u);
  EXPECT_EQ(Out->Skipped.count(Once), 1u);
  EXPECT_EQ(Out->Skipped.count(Unguarded), 0u);
  EXPECT_EQ(Out->Skipped.count(Undone), 0u);
  for (const std::string &File : {Guarded, Once, Unguarded, Undone})
    EXPECT_NE(llvm::find(Out->Files, File), Out->Files.end()) << File;
}

TEST_F(PreambleTokensTest, DirsAreTheSearchDirectoriesInOrder) {
  write("a.h", "#pragma once\n");
  std::optional<PreambleTokens> Out = preprocess("#include <a.h>\n");
  ASSERT_TRUE(Out);
  ASSERT_FALSE(Out->Dirs.empty());
  EXPECT_EQ(Out->Dirs.front(), Dir); // -I comes before the system directories
}

TEST_F(PreambleTokensTest, SameTokensInAnotherOrderAreTheSame) {
  write("a.h", "#pragma once\nint a;\n");
  write("b.h", "#pragma once\nint b;\n");
  write("reads.h", "#pragma once\n#ifdef FEATURE\nint with_feature;\n#endif\n");
  write("feature.h", "#pragma once\n#define FEATURE 1\n");
  std::optional<PreambleTokens> AB = preprocess("#include <a.h>\n#include <b.h>\n");
  std::optional<PreambleTokens> BA = preprocess("#include <b.h>\n#include <a.h>\n");
  ASSERT_TRUE(AB && BA);
  EXPECT_TRUE(AB->sameAs(*BA));
  std::optional<PreambleTokens> Before =
      preprocess("#include <feature.h>\n#include <reads.h>\n");
  std::optional<PreambleTokens> After = preprocess("#include <reads.h>\n#include <feature.h>\n");
  ASSERT_TRUE(Before && After);
  EXPECT_FALSE(Before->sameAs(*After));
}

TEST_F(PreambleTokensTest, BranchesAreTheHeadersOwnConditionalsAsTaken) {
  write("defines.h", "#pragma once\n#define FROM_HEADER 1\n#if 1\n#endif\n");
  std::optional<PreambleTokens> Out =
      preprocess("#include <defines.h>\n"
                 "#ifdef FROM_HEADER\n#endif\n"             // T
                 "#if defined(_WIN32)\n#elif __linux__\n" // F, T
                 "#elif 1\n#else\n#endif\n"                // N: not evaluated
                 "#ifndef __linux__\n#if 1\n#endif\n#endif\n" // F; the nested one is skipped
                 "#if VALUE > 1\n#endif\n");              // F: VALUE is not a macro yet
  ASSERT_TRUE(Out);
  EXPECT_EQ(Out->Conditions.Taken, "TFTNFF");
  EXPECT_TRUE(Out->Conditions.Changed.empty());
}

TEST_F(PreambleTokensTest, ChangedHoldsWhatAConditionReadAndTheEndDefinesOtherwise) {
  std::optional<PreambleTokens> Out =
      preprocess("#define KEPT 1\n#define REDEFINED 1\n"
                 "#ifndef GUARD_IDIOM\n#define GUARD_IDIOM\n#endif\n"
                 "#if KEPT && REDEFINED && !defined(LATER)\n#endif\n"
                 "#undef REDEFINED\n#define REDEFINED 2\n#define LATER\n#define UNREAD\n");
  ASSERT_TRUE(Out);
  EXPECT_EQ(Out->Conditions.Taken, "TT");
  EXPECT_EQ(Out->Conditions.Changed, (std::set<std::string>{"GUARD_IDIOM", "LATER", "REDEFINED"}));
}

TEST(ConditionIdentifiersTest, NamesWithoutNumbers) {
  std::vector<llvm::StringRef> Names = conditionIdentifiers("defined(A_1) && B >= 0x1F && 1.5e3");
  EXPECT_EQ(Names, (std::vector<llvm::StringRef>{"defined", "A_1", "B"}));
}

} // namespace
