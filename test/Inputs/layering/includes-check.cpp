// Compiled with the include directories of an analysis library, this stops
// at the layering guard (Note [The analyses never include a check]).
#include "clang-tidy/ClangTidyCheck.h"
