// Precompiled once per build for the ground-truth tests against Debian's real
// libtorch headers; each test still includes <torch/torch.h> itself.
#include <torch/torch.h>
#include <future>
#include <thread>
