// An object whose destructor joins a member thread waits for the worker at
// the end of its scope (Note [Objects that join when they go out of scope]).
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>
#include <thread>
#include <utility>

class JoiningThread {
public:
  explicit JoiningThread(std::thread t) : t_(std::move(t)) {}
  ~JoiningThread() {
    if (t_.joinable())
      t_.join();
  }

private:
  std::thread t_;
};

class DetachingThread {
public:
  explicit DetachingThread(std::thread t) : t_(std::move(t)) {}
  ~DetachingThread() { t_.detach(); }

private:
  std::thread t_;
};

void paint(torch::Tensor boxes) { (void)boxes.sum(); }

// The wrapper's scope closes before the rescale.
void NegativeJoinedAtScopeEnd(torch::Tensor boxes) {
  {
    JoiningThread painter(std::thread(paint, boxes));
  }
  boxes.mul_(2);
}

// The rescale is inside the wrapper's scope: the painter may still run.
void PositiveWriteInsideTheScope(torch::Tensor boxes) {
  JoiningThread painter(std::thread(paint, boxes));
  // CHECK-NOTES: :[[@LINE-1]]:44: warning: argument 'boxes' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'mul_' writes 'boxes' in place here
  boxes.mul_(2);
}

// A destructor that detaches waits for nothing.
void PositiveDetachedAtScopeEnd(torch::Tensor boxes) {
  {
    DetachingThread painter(std::thread(paint, boxes));
    // CHECK-NOTES: :[[@LINE-1]]:48: warning: argument 'boxes' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE+2]]:9: note: 'mul_' writes 'boxes' in place here
  }
  boxes.mul_(2);
}

// The fix-its clone what is handed over.
// CHECK-FIXES: {{^}}  JoiningThread painter(std::thread(paint, boxes.clone()));{{$}}
// CHECK-FIXES: {{^}}    DetachingThread painter(std::thread(paint, boxes.clone()));{{$}}
