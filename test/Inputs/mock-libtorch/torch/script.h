// Mock of <torch/script.h> for the lit tests; see ATen/ATen.h for the rules.
// The real header brings in the TorchScript module API and the C++ frontend's
// tensor types.
#pragma once

#include <torch/torch.h>
