// RUN: %check_clang_tidy %s libtorch-from-blob-escape %t -- -- %mock_torch

#include <ATen/Parallel.h>
#include <torch/data.h>
#include <torch/torch.h>

#include <thread>
#include <vector>

void read_frame(float *dst);
void consume(const torch::Tensor &t);

// Positive: returned from the function whose local buffer it wraps.

torch::Tensor PositiveReturnNamed() {
  std::vector<float> buf(16);
  auto t = torch::from_blob(buf.data(), {16});
  // CHECK-FIXES: auto t = torch::from_blob(buf.data(), {16}).clone();
  return t;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob tensor 't' wraps local buffer 'buf' and is returned from 'PositiveReturnNamed', which destroys the buffer [libtorch-from-blob-escape]
}

torch::Tensor PositiveReturnTemporary() {
  float raw[4] = {1, 2, 3, 4};
  return torch::from_blob(raw, {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: a from_blob tensor wraps local buffer 'raw' and is returned from 'PositiveReturnTemporary', which destroys the buffer
  // CHECK-FIXES: return torch::from_blob(raw, {4}).clone();
}

torch::Tensor PositiveReturnView() {
  std::vector<float> buf(16);
  auto t = at::from_blob(buf.data(), {4, 4});
  // CHECK-FIXES: auto t = at::from_blob(buf.data(), {4, 4}).clone();
  return t.view({-1});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: a from_blob tensor wraps local buffer 'buf' and is returned from 'PositiveReturnView'
}

// Positive: stored in a container or member that outlives the buffer.

void PositiveStoredInCallersVector(std::vector<torch::Tensor> &out) {
  std::vector<float> buf(4);
  auto t = torch::from_blob(buf.data(), {4});
  // CHECK-FIXES: auto t = torch::from_blob(buf.data(), {4}).clone();
  out.push_back(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: from_blob tensor 't' wraps local buffer 'buf' and is stored in 'out', which outlives the buffer
}

std::vector<torch::Tensor> PositiveStoredInOuterScope() {
  std::vector<torch::Tensor> frames;
  for (int i = 0; i < 3; ++i) {
    std::vector<float> buf(4);
    read_frame(buf.data());
    frames.emplace_back(torch::from_blob(buf.data(), {4}));
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: a from_blob tensor wraps local buffer 'buf' and is stored in 'frames', which outlives the buffer
    // CHECK-FIXES: frames.emplace_back(torch::from_blob(buf.data(), {4}).clone());
  }
  return frames;
}

class FrameCache {
public:
  void PositiveStoredInMember() {
    std::vector<float> buf(4);
    read_frame(buf.data());
    last_ = torch::from_blob(buf.data(), {4});
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: a from_blob tensor wraps local buffer 'buf' and is stored in member 'last_', which outlives the buffer
    // CHECK-FIXES: last_ = torch::from_blob(buf.data(), {4}).clone();
  }

  // Negative: the object owns the buffer and outlives the tensor it returns.
  torch::Tensor NegativeViewOfOwnStorage() {
    return torch::from_blob(storage_.data(), {4});
  }

private:
  torch::Tensor last_;
  std::vector<float> storage_;
};

// Positive: every iteration stores a tensor over the one buffer it refills.

void PositiveStoredEachIteration() {
  std::vector<float> buf(4);
  std::vector<torch::Tensor> frames;
  for (int i = 0; i < 3; ++i) {
    read_frame(buf.data());
    frames.push_back(torch::from_blob(buf.data(), {4}));
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: a from_blob tensor wraps local buffer 'buf' and is stored in 'frames' on every iteration, but the loop rewrites the one buffer they all wrap
    // CHECK-FIXES: frames.push_back(torch::from_blob(buf.data(), {4}).clone());
  }
  consume(at::stack(frames));
}

// Positive: handed to a worker entry point.

void PositiveWorkerArgument() {
  std::vector<float> buf(4);
  auto t = torch::from_blob(buf.data(), {4});
  // CHECK-FIXES: auto t = torch::from_blob(buf.data(), {4}).clone();
  std::thread worker(consume, t);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: from_blob tensor 't' wraps local buffer 'buf' and is handed to worker entry point 'std::thread'
  worker.detach();
}

void PositiveWorkerCapture(float *pixels) {
  auto image = torch::from_blob(pixels, {4});
  // CHECK-FIXES: auto image = torch::from_blob(pixels, {4}).clone();
  at::launch([image] { consume(image); });
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: from_blob tensor 'image' wraps 'pixels' and is handed to worker entry point 'at::launch'
}

// Positive: returned from a dataset's get().

struct BlobDataset : torch::data::datasets::Dataset<BlobDataset> {
  torch::data::Example<> get(size_t i) override {
    return {torch::from_blob(images_.data() + i * 4, {4}),
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: a from_blob tensor wraps 'images_' and is returned from dataset 'get()', so every example aliases memory that no tensor owns
    // CHECK-FIXES: return {torch::from_blob(images_.data() + i * 4, {4}).clone(),
            labels_[i]};
  }
  c10::optional<size_t> size() const override { return images_.size() / 4; }
  std::vector<float> images_;
  std::vector<torch::Tensor> labels_;
};

// Positive: the buffer is rewritten while the tensor over it is in use.

void PositiveBufferRewritten() {
  std::vector<float> buf(4);
  read_frame(buf.data());
  auto prev = torch::from_blob(buf.data(), {4});
  // CHECK-FIXES: auto prev = torch::from_blob(buf.data(), {4}).clone();
  consume(prev);
  read_frame(buf.data());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is written again while from_blob tensor 'prev' still wraps it
  auto cur = torch::from_blob(buf.data(), {4});
  consume(at::add(cur, prev));
}

void PositiveBufferAssigned() {
  float raw[4] = {0, 0, 0, 0};
  auto t = torch::from_blob(raw, {4});
  // CHECK-FIXES: auto t = torch::from_blob(raw, {4}).clone();
  consume(t);
  raw[0] = 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'raw' is written again while from_blob tensor 't' still wraps it
  consume(t);
}

// Negative: cloned.

torch::Tensor NegativeClonedAtCall() {
  std::vector<float> buf(16);
  return torch::from_blob(buf.data(), {16}).clone();
}

torch::Tensor NegativeClonedOnReturn() {
  std::vector<float> buf(16);
  auto t = torch::from_blob(buf.data(), {16});
  return t.clone();
}

void NegativeClonedIntoWorker() {
  std::vector<float> buf(4);
  auto t = torch::from_blob(buf.data(), {4});
  std::thread worker(consume, t.clone());
  worker.join();
}

// Negative: used synchronously inside the buffer's scope.

torch::Tensor NegativeForwardPass(torch::nn::Linear &model) {
  std::vector<float> buf(4);
  read_frame(buf.data());
  auto input = torch::from_blob(buf.data(), {1, 4});
  return model(input);
}

torch::Tensor NegativeReduced() {
  std::vector<float> buf(4);
  auto t = torch::from_blob(buf.data(), {4});
  return t.sum();
}

torch::Tensor NegativeContainerInBufferScope() {
  std::vector<float> buf(8);
  std::vector<torch::Tensor> parts;
  parts.push_back(torch::from_blob(buf.data(), {4}));
  parts.push_back(torch::from_blob(buf.data() + 4, {4}));
  return at::cat(parts);
}

// Negative: the caller owns the memory.

torch::Tensor NegativeCallersPointer(float *data) {
  return torch::from_blob(data, {4});
}

torch::Tensor NegativeStaticBuffer() {
  static float table[4] = {1, 2, 3, 4};
  return torch::from_blob(table, {4});
}

// Negative: the buffer is refilled before each use, the idiomatic reuse.

void NegativeRefillThenUse() {
  std::vector<float> buf(4);
  auto frame = torch::from_blob(buf.data(), {4});
  for (int i = 0; i < 3; ++i) {
    read_frame(buf.data());
    consume(frame);
  }
}

void NegativeReadAfterUse() {
  std::vector<float> buf(4);
  auto t = torch::from_blob(buf.data(), {4});
  consume(t);
  float first = buf[0];
  (void)first;
  consume(t);
}

// A lambda's own buffer dies when the lambda returns (Note [Lambdas
// returning a blob]); a buffer of the enclosing function does not.

torch::Tensor PositiveLambdaReturnsItsBuffer(int64_t n) {
  auto make = [](int64_t total) {
    std::vector<float> values(total, 1.0f);
    return torch::from_blob(values.data(), {total});
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: a from_blob tensor wraps local buffer 'values' and is returned from 'a lambda in PositiveLambdaReturnsItsBuffer', which destroys the buffer
    // CHECK-FIXES: return torch::from_blob(values.data(), {total}).clone();
  };
  return make(n).clone();
}

float NegativeLambdaOverEnclosingBuffer(int64_t n) {
  std::vector<float> values(n, 1.0f);
  auto view = [&] { return torch::from_blob(values.data(), {n}); };
  auto copy = [](int64_t total) {
    std::vector<float> local(total, 1.0f);
    return torch::from_blob(local.data(), {total}).clone();
  };
  return view().sum().item<float>() + copy(n).sum().item<float>();
}
