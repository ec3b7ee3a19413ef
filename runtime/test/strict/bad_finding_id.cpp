// Must not compile: a finding id is a string literal of 16 lowercase hex
// digits. The test passes when the compiler gives the static_assert's
// message.
#include <torchalias/instrument.h>

void uppercase_id(at::Tensor &x) {
  TORCHALIAS_AT_VIEW_WRITE("9F86D081884C7D65", x).add_(1);
}
