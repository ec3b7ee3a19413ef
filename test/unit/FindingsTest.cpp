//===- FindingsTest.cpp - Finding identity and diff parsing ---------------===//

#include "check/Findings.h"

#include "gtest/gtest.h"

using namespace torchalias::driver;

namespace {

Finding finding(std::string File, unsigned Line, std::string Function, std::string Snippet) {
  Finding F;
  F.Check = "libtorch-inplace-on-view";
  F.Where = {std::move(File), Line, 3};
  F.Function = std::move(Function);
  F.Snippet = std::move(Snippet);
  return F;
}

TEST(FindingIdentity, IgnoresTheLineAndTheRoot) {
  std::vector<Finding> Before{finding("/a/src/m.cpp", 10, "f", "x.add_(1);")};
  std::vector<Finding> After{finding("/b/src/m.cpp", 42, "f", "x.add_(1);")};
  assignIds(Before, "/a");
  assignIds(After, "/b");
  EXPECT_EQ(Before[0].Id, After[0].Id);
  EXPECT_EQ(Before[0].Id.size(), 16u);
}

TEST(FindingIdentity, DependsOnCheckFileFunctionSnippetAndRank) {
  std::vector<Finding> Findings{
      finding("/r/m.cpp", 1, "f", "x.add_(1);"), finding("/r/m.cpp", 2, "f", "x.add_(1);"),
      finding("/r/m.cpp", 3, "g", "x.add_(1);"), finding("/r/n.cpp", 4, "f", "x.add_(1);"),
      finding("/r/m.cpp", 5, "f", "x.add_(2);")};
  Findings.push_back(finding("/r/m.cpp", 6, "f", "x.add_(1);"));
  Findings.back().Check = "libtorch-detached-write";
  assignIds(Findings, "/r");
  std::set<std::string> Ids;
  for (const Finding &F : Findings)
    Ids.insert(F.Id);
  EXPECT_EQ(Ids.size(), Findings.size());
}

TEST(Snippet, CollapsesWhitespace) {
  EXPECT_EQ(normaliseSnippet("  \tauto  v =\tx.select(0,  1);  "), "auto v = x.select(0, 1);");
  EXPECT_EQ(normaliseSnippet(""), "");
}

TEST(RelativePath, OnlyUnderTheRoot) {
  EXPECT_EQ(relativePath("/r/src/a.cpp", "/r"), "src/a.cpp");
  EXPECT_EQ(relativePath("/r/src/a.cpp", "/r/"), "src/a.cpp");
  EXPECT_EQ(relativePath("/rr/a.cpp", "/r"), "/rr/a.cpp");
}

TEST(UnifiedDiff, AddedLinesOfGitDiffWithoutContext) {
  ChangedLines Changed = parseUnifiedDiff("diff --git a/src/a.cpp b/src/a.cpp\n"
                                          "--- a/src/a.cpp\n"
                                          "+++ b/src/a.cpp\n"
                                          "@@ -3,0 +4,2 @@ void f() {\n"
                                          "+  x.add_(1);\n"
                                          "+  y.add_(1);\n"
                                          "@@ -10 +12 @@\n"
                                          "-  old();\n"
                                          "+  new_();\n"
                                          "diff --git a/gone.cpp b/gone.cpp\n"
                                          "--- a/gone.cpp\n"
                                          "+++ /dev/null\n"
                                          "@@ -1 +0,0 @@\n"
                                          "-int x;\n",
                                          "/r");
  ASSERT_EQ(Changed.size(), 1u);
  EXPECT_EQ(Changed["/r/src/a.cpp"], (std::set<unsigned>{4, 5, 12}));
}

TEST(UnifiedDiff, ContextLinesAreNotChanges) {
  ChangedLines Changed = parseUnifiedDiff("--- old/m.cpp\t2026-01-01\n"
                                          "+++ new/m.cpp\t2026-01-02\n"
                                          "@@ -1,4 +1,5 @@\n"
                                          " a\n"
                                          "-b\n"
                                          "+B\n"
                                          "+C\n"
                                          " c\n"
                                          " d\n"
                                          "\\ No newline at end of file\n",
                                          "/r");
  EXPECT_EQ(Changed["/r/new/m.cpp"], (std::set<unsigned>{2, 3}));
}

TEST(UnifiedDiff, AnAddedLineThatLooksLikeAHeader) {
  ChangedLines Changed = parseUnifiedDiff("+++ b/m.cpp\n"
                                          "@@ -0,0 +1,2 @@\n"
                                          "+++ x;\n"
                                          "+--y;\n",
                                          "/r");
  ASSERT_EQ(Changed.size(), 1u);
  EXPECT_EQ(Changed["/r/m.cpp"], (std::set<unsigned>{1, 2}));
}

} // namespace
