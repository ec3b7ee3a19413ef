#include "TempHelpFunctions.hpp"
void clear_head(const torch::Tensor &x) {
  auto h = x.narrow(0, 0, 1);
  h.zero_();
}
