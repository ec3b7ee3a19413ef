// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Note [Holders built from tensors]: a smart pointer to a tensor made from a
// handle holds a copy of the handle, so what it points to shares the
// handle's storage.

#include <torch/torch.h>

#include <memory>
#include <thread>

void thumbnail(std::unique_ptr<torch::Tensor> pixels);
void preview(std::shared_ptr<const torch::Tensor> pixels);

// The "own copy" moved into a thread is the frame itself.
void PositiveUniquePointer(torch::Tensor frame) {
  auto own = std::make_unique<torch::Tensor>(frame);
  std::thread encoder(thumbnail, std::move(own));
  // CHECK-NOTES: :[[@LINE-1]]:34: warning: argument 'own' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'own' holds 'frame' from here
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'sub_' writes 'frame' in place here
  frame.sub_(0.5).div_(0.25);
  encoder.join();
}

// A shared pointer captured by a lambda.
void PositiveSharedPointerCapture(torch::Tensor frame) {
  auto held = std::make_shared<const torch::Tensor>(frame);
  std::thread viewer([held] { preview(held); });
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: by-value capture 'held' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'held' holds 'frame' from here
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'mul_' writes 'frame' in place here
  frame.mul_(2.0);
  viewer.join();
}

// The pointer is made from a clone.
void NegativeClone(torch::Tensor frame) {
  auto own = std::make_unique<torch::Tensor>(frame.clone());
  std::thread encoder(thumbnail, std::move(own));
  frame.sub_(0.5);
  encoder.join();
}

// The thread is joined before the write.
void NegativeJoinedFirst(torch::Tensor frame) {
  auto own = std::make_unique<torch::Tensor>(frame);
  std::thread encoder(thumbnail, std::move(own));
  encoder.join();
  frame.sub_(0.5);
}

// The frame variable is given a new tensor, which the write changes.
void NegativeRebound(torch::Tensor frame) {
  auto held = std::make_shared<const torch::Tensor>(frame);
  std::thread viewer([held] { preview(held); });
  frame = torch::zeros({4});
  frame.add_(1.0);
  viewer.join();
}
