// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// Note [Element writes through an accessor]: a write of a tensor's elements
// through an accessor or a data pointer shares the storage and not the
// version counter, as one through .data() does: backward uses the new
// values of a tensor an operation saved, without an error.

#include <torch/torch.h>

// A helper pins the boundary values through an accessor.
void pin(torch::Tensor &u) {
  auto a = u.accessor<float, 1>();
  a[0] = 0.0f;
  a[a.size(0) - 1] = 0.0f;
}
void PositiveHelper(torch::nn::Linear net, torch::Tensor x) {
  auto u = net->forward(x).squeeze(1);
  auto loss = u.pow(2).mean();
  pin(u);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'pin' writes elements through 'accessor()' into local 'u', which 'pow' saved for backward; an accessor or a data pointer does not bump the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-9]]:14: note: detached view of local 'u' created here by 'accessor'
  // CHECK-NOTES: :[[@LINE-9]]:8: note: 'pin' writes its parameter 'u' in place here
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'pow' saves 'u' for backward here
  loss.backward();
}
// A pointer to the elements of a sigmoid output.
void PositiveDataPtr(torch::nn::Linear net, torch::Tensor x) {
  auto u = torch::sigmoid(net->forward(x));
  auto loss = u.sum();
  float *p = u.data_ptr<float>();
  p[0] = 1.0f;
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'operator=' writes elements through 'data_ptr()' into local 'u', which 'sigmoid' saved for backward; an accessor or a data pointer does not bump the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-3]]:16: note: detached view of local 'u' created here by 'data_ptr'
  // CHECK-NOTES: :[[@LINE-6]]:12: note: 'sigmoid' saves its result for backward here
  loss.backward();
}
// A data pointer indexed in place.
void PositiveInline(torch::nn::Linear net, torch::Tensor x) {
  auto u = torch::exp(net->forward(x));
  auto loss = u.sum();
  u.data_ptr<float>()[3] *= 2.0f;
  // CHECK-NOTES: :[[@LINE-1]]:26: warning: 'operator*=' writes elements through 'data_ptr()' into local 'u', which 'exp' saved for backward; an accessor or a data pointer does not bump the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:5: note: detached view of local 'u' created here by 'data_ptr'
  // CHECK-NOTES: :[[@LINE-5]]:12: note: 'exp' saves its result for backward here
  loss.backward();
}
// The write comes after the backward.
void NegativeAfterBackward(torch::nn::Linear net, torch::Tensor x) {
  auto u = net->forward(x).squeeze(1);
  auto loss = u.pow(2).mean();
  loss.backward();
  pin(u);
}
// A kernel filling a tensor it made.
void NegativeFreshOutput(torch::Tensor x) {
  auto out = torch::empty({4});
  auto a = out.accessor<float, 1>();
  for (int i = 0; i < 4; ++i) a[i] = 1.0f;
}
// add saves nothing.
void NegativeUnsaved(torch::nn::Linear net, torch::Tensor x) {
  auto u = net->forward(x);
  auto loss = (u + 1).sum();
  u.accessor<float, 2>()[0][0] = 0.0f;
  loss.backward();
}
// The pointer is pointed elsewhere before the write.
void NegativePointerMoved(torch::nn::Linear net, torch::Tensor x, float *scratch) {
  auto u = torch::sigmoid(net->forward(x));
  auto loss = u.sum();
  float *p = u.data_ptr<float>();
  p = scratch;
  p[0] = 1.0f;
  loss.backward();
}
