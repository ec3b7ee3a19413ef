// Note [The analyses never include a check]
// checks/analysis/ is compiled with this directory ahead of clang's include
// directories, so that any inclusion of clang-tidy's ClangTidyCheck.h there,
// direct or through one of our check headers, stops the build here. The
// analyses compute facts; the check classes over them word the diagnostics.
// test/cmake/CheckAnalysisLayering.cmake checks the #include lines as well.
#error "checks/analysis/ must not include a clang-tidy check: see Note [The analyses never include a check]"
