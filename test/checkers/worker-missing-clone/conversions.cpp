// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Note [Conversions told to copy]: `to()` with `copy` true returns a new
// tensor; without it, a conversion to what the tensor already is returns
// the tensor itself.

#include <torch/torch.h>

#include <thread>

void log_raw(torch::Tensor logits);

// copy=true: the logger owns its values.
void NegativeToldToCopy(torch::Tensor logits, double temperature) {
  std::thread logger(log_raw, logits.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true));
  logits.div_(temperature);
  logger.join();
}

void NegativeToldToCopyDtype(torch::Tensor logits, double temperature) {
  std::thread logger(log_raw, logits.to(torch::kFloat, false, true));
  logits.div_(temperature);
  logger.join();
}

// copy=false: a tensor already on the CPU is handed over itself.
void PositiveNotToldToCopy(torch::Tensor logits, double temperature) {
  std::thread logger(log_raw, logits.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/false));
  // CHECK-NOTES: :[[@LINE-1]]:31: warning: argument 'logits.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/false)' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+2]]:10: note: 'div_' writes 'logits' in place here
  // CHECK-FIXES: std::thread logger(log_raw, logits.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/false).clone());
  logits.div_(temperature);
  logger.join();
}
