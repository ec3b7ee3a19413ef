// RUN: %check_clang_tidy --fix-notes %s libtorch-inplace-on-view %t -- -- %mock_torch

// Note [A view read after its base changed]: a view of part of a tensor,
// kept in a variable, sees every later in-place write of the tensor. Read
// after one, it holds the new values, not those it was taken from.

#include <torch/torch.h>

#include <vector>

float score(const torch::Tensor &t);

// A helper of the translation unit that writes its argument in place.
void rotateChannels(torch::Tensor &image) {
  auto first = image.select(2, 0).clone();
  image.select(2, 0).copy_(image.select(2, 1));
  image.select(2, 1).copy_(first);
}

float PositiveHelperWritesBase() {
  auto image = torch::rand({8, 8, 2});
  auto green = image.select(2, 1);
  // CHECK-FIXES: auto green = image.select(2, 1).clone();
  rotateChannels(image);
  return score(green);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'green' is read after 'rotateChannels' wrote 'image' in place; 'green' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'rotateChannels' writes 'image' in place here
  // CHECK-NOTES: :[[@LINE-12]]:22: note: 'rotateChannels' writes its parameter 'image' here
  // CHECK-NOTES: :[[@LINE-7]]:22: note: 'green' is a view of 'image' taken here; clone it to keep the values
}

// A cache refilled with copy_; the element of a chunk list is the view.
float PositiveRefilledCache(torch::nn::Linear project) {
  auto cache = torch::empty({1, 12});
  cache.copy_(project(torch::randn({1, 4})));
  auto previousKey = cache.chunk(3, -1)[1];
  // CHECK-FIXES: auto previousKey = cache.chunk(3, -1)[1].clone();
  cache.copy_(project(torch::randn({1, 4})));
  auto key = cache.chunk(3, -1)[1];
  return score(key - previousKey);
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'previousKey' is read after 'copy_' wrote 'cache' in place; 'previousKey' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:9: note: 'copy_' writes 'cache' in place here
  // CHECK-NOTES: :[[@LINE-7]]:28: note: 'previousKey' is a view of 'cache' taken here; clone it to keep the values
}

// An element of unbind's list, standardised in place through a chain.
float PositiveUnbindElement() {
  auto table = torch::rand({16, 3});
  std::vector<torch::Tensor> columns = table.unbind(1);
  torch::Tensor age = columns[2];
  // CHECK-FIXES: torch::Tensor age = columns[2].clone();
  table.sub_(table.mean(0)).div_(table.mean(0));
  return score(age);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'age' is read after 'sub_' wrote 'table' in place; 'age' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:9: note: 'sub_' writes 'table' in place here
  // CHECK-NOTES: :[[@LINE-7]]:46: note: 'age' is a view of 'table' taken here; clone it to keep the values
}

// A shift of a history through overlapping ranges, inside one pass of a
// loop that takes the view first.
float PositiveShiftInsideLoop(int steps) {
  auto frames = torch::zeros({4, 16});
  float motion = 0;
  for (int step = 0; step < steps; ++step) {
    auto oldest = frames[0];
    // CHECK-FIXES: auto oldest = frames[0].clone();
    frames.narrow(0, 0, 3).copy_(frames.narrow(0, 1, 3).clone());
    frames[3].copy_(torch::rand({16}));
    motion += score(frames[3] - oldest);
    // CHECK-NOTES: :[[@LINE-1]]:33: warning: 'oldest' is read after 'copy_' wrote 'frames' in place; 'oldest' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
    // CHECK-NOTES: :[[@LINE-4]]:28: note: 'copy_' writes 'frames' in place here
    // CHECK-NOTES: :[[@LINE-7]]:19: note: 'oldest' is a view of 'frames' taken here; clone it to keep the values
  }
  return motion;
}

// The caller's tensor, cleared on one branch.
float PositiveParameterOnBranch(torch::Tensor mask, bool reset) {
  auto head = mask.narrow(0, 0, 2);
  if (reset)
    mask.fill_(0);
  return score(head);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'head' is read after 'fill_' wrote 'mask' in place; 'head' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:10: note: 'fill_' writes 'mask' in place here
  // CHECK-NOTES: :[[@LINE-6]]:20: note: 'head' is a view of 'mask' taken here; clone it to keep the values
}

// Near-misses.

float NegativeCloned() {
  auto image = torch::rand({8, 8, 2});
  auto green = image.select(2, 1).clone();
  rotateChannels(image);
  return score(green);
}

float NegativeViewTakenAfterTheWrite() {
  auto image = torch::rand({8, 8, 2});
  rotateChannels(image);
  auto green = image.select(2, 1);
  return score(green);
}

void NegativeOnlyWrittenAfter(const torch::Tensor &row) {
  auto buffer = torch::zeros({4, 8});
  auto first = buffer.select(0, 0);
  buffer.zero_();
  first.copy_(row);
}

float NegativeRewrittenBeforeTheRead() {
  auto buffer = torch::rand({4, 8});
  auto first = buffer.select(0, 0);
  buffer.mul_(2);
  first = buffer.select(0, 1);
  return score(first);
}

float NegativeDisjointRanges() {
  auto signal = torch::rand({64});
  auto past = signal.narrow(0, 0, 32);
  signal.narrow(0, 32, 32).zero_();
  return score(past);
}

float NegativeOtherChannel() {
  auto image = torch::rand({8, 8, 3});
  auto red = image.select(2, 0);
  image.select(2, 2).mul_(0.5);
  return score(red);
}

// A window over a buffer that each pass refills: kept to see each fill.
float NegativeWindowOverRefilledBuffer(int steps) {
  auto staging = torch::zeros({8, 4});
  auto head = staging.narrow(0, 0, 2);
  float total = 0;
  for (int step = 0; step < steps; ++step) {
    staging.copy_(torch::rand({8, 4}));
    total += score(head);
  }
  return total;
}

// A view taken before a loop that updates its base row by row, read only
// after the loop: it reads the updated rows, so the shift is always 0.
float PositiveReadOnlyAfterTheLoop(const torch::Tensor &x, int64_t k) {
  auto centroids = x.narrow(0, 0, k).clone();
  auto previous = centroids.narrow(0, 0, k);
  // CHECK-FIXES: auto previous = centroids.narrow(0, 0, k).clone();
  for (int64_t c = 0; c < k; ++c)
    centroids.index_put_({c}, x.mean(0));
  return score(centroids - previous);
  // CHECK-NOTES: :[[@LINE-1]]:28: warning: 'previous' is read after 'index_put_' wrote 'centroids' in place; 'previous' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:15: note: 'index_put_' writes 'centroids' in place here
  // CHECK-NOTES: :[[@LINE-7]]:29: note: 'previous' is a view of 'centroids' taken here; clone it to keep the values
}

// A view of the whole tensor is the same tensor seen another way.
float NegativeWholeReshape() {
  auto weights = torch::rand({4, 4});
  auto flat = weights.view({-1});
  weights.mul_(2);
  return score(flat);
}

// The base is rebound to a new tensor, not written: the view keeps the old.
float NegativeBaseRebound() {
  auto x = torch::rand({8});
  auto left = x.narrow(0, 0, 4);
  x = x * 2;
  return score(left);
}

// Read only before the write.
float NegativeReadBefore() {
  auto x = torch::rand({8});
  auto left = x.narrow(0, 0, 4);
  float before = score(left);
  x.zero_();
  return before;
}

// A view of a temporary: the variable is the only handle of its storage.
float PositiveBaseIsViewOfTemporary() {
  auto grid = torch::rand({12}).view({4, 3});
  auto corner = grid.narrow(0, 0, 1);
  // CHECK-FIXES: auto corner = grid.narrow(0, 0, 1).clone();
  grid.clamp_(0.25, 0.75);
  return score(corner);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'corner' is read after 'clamp_' wrote 'grid' in place; 'corner' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'clamp_' writes 'grid' in place here
  // CHECK-NOTES: :[[@LINE-6]]:22: note: 'corner' is a view of 'grid' taken here; clone it to keep the values
}

// An object whose accessor hands out a view of its member, and whose other
// methods write the member in place.
class RolloutHistory {
public:
  torch::Tensor oldest() const { return frames_.select(0, 0); }
  torch::Tensor flat() const { return frames_.view({-1}); }
  void push(const torch::Tensor &frame) {
    advance();
    frames_.select(0, 3).copy_(frame);
  }

private:
  void advance() {
    frames_.narrow(0, 0, 3).copy_(frames_.narrow(0, 1, 3).clone());
  }
  torch::Tensor frames_ = torch::zeros({4, 8});
};

float PositiveMethodShiftsMember(RolloutHistory &history) {
  auto dropped = history.oldest();
  // CHECK-FIXES: auto dropped = history.oldest().clone();
  history.push(torch::rand({8}));
  return score(dropped);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'dropped' is read after 'push' wrote member 'frames_' in place; 'dropped' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:11: note: 'push' writes member 'frames_' in place here
  // CHECK-NOTES: :[[@LINE-17]]:26: note: 'push' writes member 'frames_' here
  // CHECK-NOTES: :[[@LINE-7]]:26: note: 'dropped' is a view of 'frames_' taken here; clone it to keep the values
}

float NegativeAnotherObject(RolloutHistory &history, RolloutHistory &other) {
  auto dropped = history.oldest();
  other.push(torch::rand({8}));
  return score(dropped);
}

float NegativeWholeMemberView(RolloutHistory &history) {
  auto all = history.flat();
  history.push(torch::rand({8}));
  return score(all);
}

// Helpers: one that clears the whole argument, one that fills only a part
// the caller's view does not share.
void resetState(torch::Tensor &state) { state.zero_(); }

void loadSecondHalf(torch::Tensor &buffer, const torch::Tensor &frame) {
  buffer.narrow(0, 4, 4).copy_(frame);
}

float PositiveHelperClearsWhole() {
  auto state = torch::rand({2, 8});
  auto hidden = state[0];
  // CHECK-FIXES: auto hidden = state[0].clone();
  resetState(state);
  return score(hidden);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'hidden' is read after 'resetState' wrote 'state' in place; 'hidden' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'resetState' writes 'state' in place here
  // CHECK-NOTES: :[[@LINE-14]]:47: note: 'resetState' writes its parameter 'state' here
  // CHECK-NOTES: :[[@LINE-7]]:17: note: 'hidden' is a view of 'state' taken here; clone it to keep the values
}

float NegativeHelperFillsDisjointPart() {
  auto buffer = torch::zeros({8, 2});
  auto first = buffer.narrow(0, 0, 4);
  loadSecondHalf(buffer, torch::ones({4, 2}));
  return score(first);
}
