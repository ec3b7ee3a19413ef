// An analysis source that includes the check layer three ways.
#include "Good.h"
#include "../FooCheck.h"
#  include <clang-tidy/ClangTidyCheck.h>
#include "../FooHelpers.h" // not a *Check.h, but a header of checks/
