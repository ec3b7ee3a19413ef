// A macro before libtorch: in the PCH too (Note [A unit's preamble]).
#define LATE_FLAG 1
#include <torch/torch.h>

void scale_row(torch::Tensor x) {
  auto row = x.select(0, 1);
  row.mul_(2);
}
