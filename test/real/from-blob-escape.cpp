// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-from-blob-escape %t -- -- %real_torch

#include <torch/torch.h>

#include <thread>
#include <vector>

void read_frame(float *dst);
void consume(const torch::Tensor &t);

torch::Tensor PositiveReturnLocal() {
  std::vector<float> buf(16);
  auto t = torch::from_blob(buf.data(), {16});
  // CHECK-FIXES: auto t = torch::from_blob(buf.data(), {16}).clone();
  return t;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob tensor 't' wraps local buffer 'buf' and is returned from 'PositiveReturnLocal', which destroys the buffer [libtorch-from-blob-escape]
}

void PositiveWorkerArgument() {
  std::vector<float> buf(4);
  auto t = torch::from_blob(buf.data(), {4});
  // CHECK-FIXES: auto t = torch::from_blob(buf.data(), {4}).clone();
  std::thread worker(consume, t);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: from_blob tensor 't' wraps local buffer 'buf' and is handed to worker entry point 'std::thread'
  worker.detach();
}

struct BlobDataset : torch::data::datasets::Dataset<BlobDataset> {
  torch::data::Example<> get(size_t i) override {
    return {torch::from_blob(images_.data() + i * 4, {4}), labels_[i]};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: a from_blob tensor wraps 'images_' and is returned from dataset 'get()', so every example aliases memory that no tensor owns
    // CHECK-FIXES: return {torch::from_blob(images_.data() + i * 4, {4}).clone(), labels_[i]};
  }
  torch::optional<size_t> size() const override { return labels_.size(); }
  std::vector<float> images_;
  std::vector<torch::Tensor> labels_;
};

void PositiveBufferRewritten() {
  std::vector<float> buf(4);
  auto prev = torch::from_blob(buf.data(), {4});
  // CHECK-FIXES: auto prev = torch::from_blob(buf.data(), {4}).clone();
  consume(prev);
  read_frame(buf.data());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is written again while from_blob tensor 'prev' still wraps it
  consume(prev);
}

torch::Tensor NegativeCloned() {
  std::vector<float> buf(16);
  return torch::from_blob(buf.data(), {16}).clone();
}

torch::Tensor NegativeForwardPass(torch::nn::Linear &model) {
  std::vector<float> buf(4);
  read_frame(buf.data());
  auto input = torch::from_blob(buf.data(), {1, 4});
  return model(input);
}

torch::Tensor NegativeCallersPointer(float *data) {
  return torch::from_blob(data, {4});
}

// A method of this translation unit escapes a from_blob tensor only if it
// keeps it (Note [Escapes]).
class Storage {
public:
  void insert(const torch::Tensor &reward) { rewards_[step_].copy_(reward); }
  void keep(const torch::Tensor &reward) { kept_.push_back(reward); }

private:
  int64_t step_ = 0;
  torch::Tensor rewards_;
  std::vector<torch::Tensor> kept_;
};

void NegativeCopiedByMethod(std::vector<Storage> &storages) {
  for (auto &storage : storages) {
    std::vector<float> reward{1};
    storage.insert(torch::from_blob(reward.data(), {1, 1}));
  }
}

void PositiveKeptByMethod(Storage &storage) {
  std::vector<float> reward{1};
  storage.keep(torch::from_blob(reward.data(), {1, 1}));
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: a from_blob tensor wraps local buffer 'reward' and is stored in 'storage', which outlives the buffer
  // CHECK-FIXES: storage.keep(torch::from_blob(reward.data(), {1, 1}).clone());
}

// A method that refills a member buffer and returns from_blob over it
// (Note [Blob producers]): kept results all show the last fill.
class FrameReader {
public:
  torch::Tensor next() {
    read_frame(buf_.data());
    return torch::from_blob(buf_.data(), {4});
    // CHECK-FIXES: return torch::from_blob(buf_.data(), {4}).clone();
  }

private:
  std::vector<float> buf_ = std::vector<float>(4);
};

std::vector<torch::Tensor> PositiveKeptEachCall(FrameReader &reader) {
  std::vector<torch::Tensor> frames;
  for (int i = 0; i < 3; ++i)
    frames.push_back(reader.next());
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: the from_blob tensor returned by 'next' wraps member 'buf_' of 'reader' without a copy and is stored in 'frames' on every iteration, but the loop refills the one buffer they all wrap
  return frames;
}

void PositiveUsedAfterLaterCall(FrameReader &reader) {
  auto first = reader.next();
  auto second = reader.next();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: call of 'next' refills member 'buf_' of 'reader' while from_blob tensor 'first', returned by an earlier call of 'next', still wraps it
  consume(second - first);
}

void PositiveSameDevice(FrameReader &reader, std::vector<torch::Tensor> &out) {
  for (int i = 0; i < 3; ++i)
    out.push_back(reader.next().to(torch::kCPU));
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: the from_blob tensor returned by 'next' wraps member 'buf_' of 'reader' without a copy and is stored in 'out' on every iteration
}

void NegativeCopiedEachCall(FrameReader &reader, torch::Device device,
                            std::vector<torch::Tensor> &out,
                            std::vector<Storage> &storages) {
  for (int i = 0; i < 3; ++i) {
    out.push_back(reader.next().clone());
    out.push_back(reader.next().to(device));
    storages[i].insert(reader.next());
    auto a = reader.next();
    consume(a);
  }
}

// Copied at once: the permuted image is copied by contiguous(), the bytes
// by a conversion to another dtype.
torch::Tensor NegativeCopiedAtOnce(std::vector<torch::Tensor> &floats,
                                   int64_t h, int64_t w) {
  std::vector<unsigned char> pixels(h * w * 3);
  auto options = torch::TensorOptions().dtype(torch::kUInt8);
  auto image = torch::from_blob(pixels.data(), {h, w, 3}, options);
  floats.push_back(image.to(torch::kFloat));
  return image.permute({2, 0, 1}).unsqueeze(0).contiguous();
}

torch::Tensor PositiveContiguousOfContiguous(int64_t n) {
  std::vector<float> samples(n);
  return torch::from_blob(samples.data(), {n}).unsqueeze(0).contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: a from_blob tensor wraps local buffer 'samples' and is returned from 'PositiveContiguousOfContiguous', which destroys the buffer
}

torch::Tensor PositiveLambdaReturnsItsBuffer(int64_t n) {
  auto make = [](int64_t total) {
    std::vector<float> values(total, 1.0f);
    return torch::from_blob(values.data(), {total});
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: a from_blob tensor wraps local buffer 'values' and is returned from 'a lambda in PositiveLambdaReturnsItsBuffer', which destroys the buffer
  };
  return make(n).clone();
}

// Note [Members that wrap a member], on the real std::vector.
class EnrolSession {
public:
  void onPacket(const std::vector<float> &packet) {
    samples_.insert(samples_.end(), packet.begin(), packet.end());
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'insert' may reallocate member 'samples_' while member 'window_' still wraps its memory: 'from_blob' made 'window_' without a copy, so it would read freed memory [libtorch-from-blob-escape]
    if (!window_.defined() && samples_.size() >= 64)
      window_ = torch::from_blob(samples_.data(), {64});
    // CHECK-FIXES: window_ = torch::from_blob(samples_.data(), {64}).clone();
  }
  torch::Tensor window() const { return window_; }

private:
  std::vector<float> samples_;
  torch::Tensor window_;
};

class RewrappedSession {
public:
  void onPacket(const std::vector<float> &packet) {
    samples_.insert(samples_.end(), packet.begin(), packet.end());
    all_ = torch::from_blob(samples_.data(), {(int64_t)samples_.size()});
  }
  torch::Tensor all() const { return all_; }

private:
  std::vector<float> samples_;
  torch::Tensor all_;
};
