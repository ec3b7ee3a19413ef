// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- \
// RUN:   -config="{CheckOptions: [{key: libtorch-worker-missing-clone.IsolationHelper, value: torchalias}]}" \
// RUN:   -- %mock_torch

#include <torch/torch.h>
// CHECK-FIXES: #include <torchalias/isolate.h>

#include <thread>

void consume(const torch::Tensor &t);

void PositiveIsolateCapture(torch::Tensor x) {
  std::thread t([x] { consume(x); });
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: by-value capture 'x' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
  // CHECK-FIXES: std::thread t([x = torchalias::isolate(x)] { consume(x); });
  x.mul_(2);
  t.join();
}
