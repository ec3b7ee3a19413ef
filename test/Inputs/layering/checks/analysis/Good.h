// An analysis header that includes only what the analysis layer may.
#include "Compat.h"
#include "clang/AST/Expr.h"
#include <vector>
