// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

// Note [A changed argument read after the call]: a function that writes its
// parameter through a view is quiet in itself (it may be meant to), but a
// caller that uses its result and then reads the argument again relies on
// the argument being unchanged.

#include <torch/torch.h>

void draw(const torch::Tensor &t);
torch::Tensor classify(const torch::Tensor &t);

torch::Tensor normalized(torch::Tensor kpts, int64_t width, int64_t height) {
  kpts.select(-1, 0).div_(width);
  kpts.select(-1, 1).div_(height);
  return kpts;
}

void PositiveReadAfter() {
  auto keypoints = torch::rand({17, 3});
  auto label = classify(normalized(keypoints, 640, 480));
  // CHECK-NOTES: :[[@LINE-1]]:25: warning: 'normalized' writes its argument 'keypoints' in place through a view of its parameter 'kpts', and 'keypoints' is read after the call as if it were unchanged [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-9]]:22: note: 'normalized' writes its parameter 'kpts' in place here
  draw(keypoints);
}

void PositiveCallerParameter(const torch::Tensor &pixels) {
  auto unit = normalized(pixels, 640, 480);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'normalized' writes its argument 'pixels' in place through a view of its parameter 'kpts', and 'pixels' is read after the call as if it were unchanged [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-16]]:22: note: 'normalized' writes its parameter 'kpts' in place here
  draw(unit);
  draw(pixels);
}

// Negative: the argument is not read after the call.

void NegativeNotReadAfter() {
  auto keypoints = torch::rand({17, 3});
  auto label = classify(normalized(keypoints, 640, 480));
  draw(label);
}

// Negative: the result is discarded, so the call is made for its write.

void NegativeResultDiscarded() {
  auto keypoints = torch::rand({17, 3});
  normalized(keypoints, 640, 480);
  draw(keypoints);
}

// Negative: the name says that the function writes its argument.

torch::Tensor normalize_(torch::Tensor kpts) {
  kpts.select(-1, 0).div_(640);
  return kpts;
}

torch::Tensor scale_boxes(torch::Tensor out) {
  out.narrow(-1, 0, 2).mul_(2);
  return out;
}

void NegativeNamedWriter() {
  auto keypoints = torch::rand({17, 3});
  auto unit = normalize_(keypoints);
  draw(unit);
  draw(keypoints);
  auto boxes = torch::rand({4, 4});
  auto scaled = scale_boxes(boxes);
  draw(scaled);
  draw(boxes);
}

// Negative: the function writes its parameter only as a whole, which is not
// through a view (that is the caller's own handle being written).

torch::Tensor halved(torch::Tensor t) {
  t.div_(2);
  return t;
}

void NegativeWholeWrite() {
  auto x = torch::rand({4});
  auto y = halved(x);
  draw(y);
  draw(x);
}

// Negative: the argument is a temporary or a view, not a variable that is
// read again.

void NegativeTemporary() {
  auto unit = normalized(torch::rand({17, 3}), 640, 480);
  draw(unit);
}
