// RUN: %check_clang_tidy %s libtorch-from-blob-escape %t -- -- %mock_torch

// A method that refills a member buffer and returns from_blob over it hands
// out tensors that all share that buffer (Note [Blob producers]). A caller
// that calls it again while it keeps an earlier result sees every kept tensor
// show the last fill. The check follows the object across calls of its
// methods within the translation unit.

#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <queue>
#include <thread>
#include <vector>

void read_frame(float *dst);
void consume(const torch::Tensor &t);

// Refills its member on every call and returns a tensor over it, no copy.
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

// Positive: every element of the container wraps the one buffer.
std::vector<torch::Tensor> PositiveLoopPushBack(FrameReader &reader) {
  std::vector<torch::Tensor> frames;
  for (int i = 0; i < 3; ++i)
    frames.push_back(reader.next());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: the from_blob tensor returned by 'next' wraps member 'buf_' of 'reader' without a copy and is stored in 'frames' on every iteration, but the loop refills the one buffer they all wrap [libtorch-from-blob-escape]
  // CHECK-NOTES: :25:12: note: 'from_blob' wraps member 'buf_' here, and 'next' returns the tensor without a copy
  // CHECK-NOTES: :24:5: note: 'buf_' is written here
  return frames;
}

void PositiveQueuedVariable(FrameReader &reader,
                            std::queue<torch::Tensor> &queue) {
  for (int i = 0; i < 3; ++i) {
    auto frame = reader.next();
    queue.push(frame);
    // CHECK-NOTES: :[[@LINE-1]]:16: warning: from_blob tensor 'frame', returned by 'next', wraps member 'buf_' of 'reader' without a copy and is stored in 'queue' on every iteration
    // CHECK-NOTES: :[[@LINE-3]]:18: note: the tensor is returned by this call
    // CHECK-NOTES: :25:12: note: 'from_blob' wraps member 'buf_' here, and 'next' returns the tensor without a copy
    // CHECK-NOTES: :24:5: note: 'buf_' is written here
  }
}

// Positive: an earlier result used after a later call.
void PositiveTwoCalls(FrameReader &reader) {
  auto first = reader.next();
  auto second = reader.next();
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: call of 'next' refills member 'buf_' of 'reader' while from_blob tensor 'first', returned by an earlier call of 'next', still wraps it
  // CHECK-NOTES: :[[@LINE-3]]:16: note: the tensor is returned by this call
  // CHECK-NOTES: :25:12: note: 'from_blob' wraps member 'buf_' here, and 'next' returns the tensor without a copy
  // CHECK-NOTES: :24:5: note: 'buf_' is written here
  consume(second.sub(first));
  // CHECK-NOTES: :[[@LINE-1]]:22: note: 'first' is used here and sees the new contents
}

// Positive: handed to a thread that may run while the next call refills.
void PositiveWorkerInLoop(FrameReader &reader) {
  for (int i = 0; i < 3; ++i) {
    std::thread worker(consume, reader.next());
    // CHECK-NOTES: :[[@LINE-1]]:33: warning: the from_blob tensor returned by 'next' wraps member 'buf_' of 'reader' without a copy and is handed to worker entry point 'std::thread', which may still read it when a later call refills the buffer
    // CHECK-NOTES: :25:12: note: 'from_blob' wraps member 'buf_' here, and 'next' returns the tensor without a copy
    // CHECK-NOTES: :24:5: note: 'buf_' is written here
    worker.detach();
  }
}

// Positive: a same-device to() returns the tensor itself.
void PositiveToCpu(FrameReader &reader, std::vector<torch::Tensor> &frames) {
  for (int i = 0; i < 3; ++i)
    frames.push_back(reader.next().to(torch::kCPU));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: the from_blob tensor returned by 'next' wraps member 'buf_' of 'reader' without a copy and is stored in 'frames' on every iteration
  // CHECK-NOTES: :25:12: note: 'from_blob' wraps member 'buf_' here, and 'next' returns the tensor without a copy
  // CHECK-NOTES: :24:5: note: 'buf_' is written here
}

// Positive: the object is a member of the caller.
class Recorder {
public:
  void run() {
    for (int i = 0; i < 3; ++i)
      frames_.push_back(reader_.next());
    // CHECK-NOTES: :[[@LINE-1]]:25: warning: the from_blob tensor returned by 'next' wraps member 'buf_' of 'reader_' without a copy and is stored in 'frames_' on every iteration
    // CHECK-NOTES: :25:12: note: 'from_blob' wraps member 'buf_' here, and 'next' returns the tensor without a copy
    // CHECK-NOTES: :24:5: note: 'buf_' is written here
  }

private:
  FrameReader reader_;
  std::vector<torch::Tensor> frames_;
};

// A view method and a separate refill method.
class Camera {
public:
  void fill(const std::vector<float> &src) {
    std::copy(src.begin(), src.end(), pixels_.begin());
  }
  torch::Tensor view() { return torch::from_blob(pixels_.data(), {4}); }
  // CHECK-FIXES: torch::Tensor view() { return torch::from_blob(pixels_.data(), {4}).clone(); }

private:
  std::vector<float> pixels_ = std::vector<float>(4);
};

void PositiveRefilledByAnotherMethod(Camera &camera,
                                     const std::vector<float> &src,
                                     std::vector<torch::Tensor> &frames) {
  for (int i = 0; i < 3; ++i) {
    camera.fill(src);
    frames.push_back(camera.view());
    // CHECK-NOTES: :[[@LINE-1]]:22: warning: the from_blob tensor returned by 'view' wraps member 'pixels_' of 'camera' without a copy and is stored in 'frames' on every iteration
    // CHECK-NOTES: :110:33: note: 'from_blob' wraps member 'pixels_' here, and 'view' returns the tensor without a copy
    // CHECK-NOTES: :108:5: note: 'pixels_' is written here
  }
}

// A raw array and a pointer member, and the object's own method keeping them.
class Sensor {
public:
  torch::Tensor sample() {
    for (int i = 0; i < 4; ++i)
      raw_[i] = static_cast<float>(i);
    return torch::from_blob(raw_, {4});
    // CHECK-FIXES: return torch::from_blob(raw_, {4}).clone();
  }
  torch::Tensor copyIn(const float *src) {
    std::memcpy(data_, src, 4 * sizeof(float));
    return torch::from_blob(data_, {4});
    // CHECK-FIXES: return torch::from_blob(data_, {4}).clone();
  }
  void record(int n) {
    for (int i = 0; i < n; ++i)
      history_.push_back(sample());
    // CHECK-NOTES: :[[@LINE-1]]:26: warning: the from_blob tensor returned by 'sample' wraps member 'raw_' without a copy and is stored in 'history_' on every iteration
    // CHECK-NOTES: :135:12: note: 'from_blob' wraps member 'raw_' here, and 'sample' returns the tensor without a copy
    // CHECK-NOTES: :134:7: note: 'raw_' is written here
  }

private:
  float raw_[4];
  float *data_;
  std::vector<torch::Tensor> history_;
};

void PositivePointerMember(Sensor &sensor, const float *src,
                           std::vector<torch::Tensor> &out) {
  for (int i = 0; i < 2; ++i)
    out.push_back(sensor.copyIn(src + 4 * i));
  // CHECK-NOTES: :[[@LINE-1]]:19: warning: the from_blob tensor returned by 'copyIn' wraps member 'data_' of 'sensor' without a copy and is stored in 'out' on every iteration
  // CHECK-NOTES: :{{[0-9]+}}:12: note: 'from_blob' wraps member 'data_' here, and 'copyIn' returns the tensor without a copy
  // CHECK-NOTES: :{{[0-9]+}}:5: note: 'data_' is written here
}

// Negative: each result is consumed before the next call.
float NegativeConsumedEachCall(FrameReader &reader, torch::nn::Linear &model,
                               std::vector<torch::Tensor> &outputs) {
  for (int i = 0; i < 3; ++i)
    outputs.push_back(model(reader.next()));
  auto a = reader.next();
  consume(a);
  auto b = reader.next();
  consume(b);
  return 0;
}

// Negative: cloned, or copied to another device.
void NegativeCopied(FrameReader &reader, std::vector<torch::Tensor> &frames,
                    torch::Device device) {
  for (int i = 0; i < 3; ++i) {
    frames.push_back(reader.next().clone());
    frames.push_back(reader.next().to(device));
    frames.push_back(reader.next().to(torch::kCUDA));
    auto frame = reader.next();
    auto onDevice = frame.to(device);
    frames.push_back(onDevice);
  }
}

// Negative: a callee of this translation unit copies the tensor into storage.
class Storage {
public:
  void insert(const torch::Tensor &frame) { frames_[step_++].copy_(frame); }

private:
  int step_ = 0;
  torch::Tensor frames_;
};

void NegativeCopiedByCallee(FrameReader &reader, Storage &storage) {
  for (int i = 0; i < 3; ++i)
    storage.insert(reader.next());
}

// Negative: a member buffer that is never refilled after construction.
class Table {
public:
  explicit Table(const std::vector<float> &values) { data_.assign(values.begin(), values.end()); }
  torch::Tensor view() { return torch::from_blob(data_.data(), {4}); }

private:
  std::vector<float> data_;
};

void NegativeNeverRefilled(Table &table, std::vector<torch::Tensor> &views) {
  for (int i = 0; i < 3; ++i)
    views.push_back(table.view());
}

// Negative: a fresh object each iteration.
void NegativeOtherObjects(std::vector<FrameReader> &readers,
                          std::vector<torch::Tensor> &frames) {
  for (auto &reader : readers)
    frames.push_back(reader.next());
  for (size_t i = 0; i < readers.size(); ++i)
    frames.push_back(readers[i].next());
}

// Negative: the worker is joined before the next call.
void NegativeJoined(FrameReader &reader) {
  for (int i = 0; i < 3; ++i) {
    std::thread worker(consume, reader.next());
    worker.join();
  }
}

// Negative: overwritten, not accumulated.
class Latest {
public:
  void poll() {
    for (int i = 0; i < 3; ++i)
      last_ = reader_.next();
  }

private:
  FrameReader reader_;
  torch::Tensor last_;
};

// Negative: the zero-copy idiom: a member tensor over a member buffer, copied
// out after each refill.
class Screen {
public:
  Screen() { blob_ = torch::from_blob(buf_.data(), {4}); }
  void step(torch::Tensor &observations) {
    read_frame(buf_.data());
    observations.copy_(blob_);
  }

private:
  std::vector<float> buf_ = std::vector<float>(4);
  torch::Tensor blob_;
};

// A local buffer of the method: a different bug, reported in the method.
class Scratch {
public:
  torch::Tensor make() {
    std::vector<float> local(4);
    return torch::from_blob(local.data(), {4});
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: a from_blob tensor wraps local buffer 'local' and is returned from 'make', which destroys the buffer
    // CHECK-NOTES: :[[@LINE-2]]:12: note: 'from_blob' wraps the memory here
    // CHECK-FIXES: return torch::from_blob(local.data(), {4}).clone();
  }
};

void NegativeLocalOfMethod(Scratch &scratch,
                           std::vector<torch::Tensor> &frames) {
  for (int i = 0; i < 3; ++i)
    frames.push_back(scratch.make());
}

// Positive: an image object's data pointer (cv::Mat's `data`), refilled by
// its `read()`, wrapped from its start with `&buf_[0]`-style addressing too.
struct Image {
  unsigned char *data;
  bool read();
};

class Grabber {
public:
  torch::Tensor grab() {
    image_.read();
    return torch::from_blob(image_.data, {4}, torch::kByte);
    // CHECK-FIXES: return torch::from_blob(image_.data, {4}, torch::kByte).clone();
  }
  torch::Tensor first() {
    std::fill(samples_.begin(), samples_.end(), 0.0f);
    return torch::from_blob(&samples_[0], {4});
    // CHECK-FIXES: return torch::from_blob(&samples_[0], {4}).clone();
  }

private:
  Image image_;
  std::vector<float> samples_ = std::vector<float>(4);
};

void PositiveImageData(Grabber &grabber, std::vector<torch::Tensor> &frames) {
  for (int i = 0; i < 3; ++i) {
    frames.push_back(grabber.grab());
    // CHECK-NOTES: :[[@LINE-1]]:22: warning: the from_blob tensor returned by 'grab' wraps member 'image_' of 'grabber' without a copy and is stored in 'frames' on every iteration
    // CHECK-NOTES: :295:12: note: 'from_blob' wraps member 'image_' here, and 'grab' returns the tensor without a copy
    // CHECK-NOTES: :294:5: note: 'image_' is written here
    frames.push_back(grabber.first());
    // CHECK-NOTES: :[[@LINE-1]]:22: warning: the from_blob tensor returned by 'first' wraps member 'samples_' of 'grabber' without a copy and is stored in 'frames' on every iteration
    // CHECK-NOTES: :300:12: note: 'from_blob' wraps member 'samples_' here, and 'first' returns the tensor without a copy
    // CHECK-NOTES: :299:5: note: 'samples_' is written here
  }
}

// Negative: the container is emptied on every iteration.
void NegativeClearedEachIteration(FrameReader &reader) {
  std::vector<torch::Tensor> batch;
  for (int i = 0; i < 3; ++i) {
    batch.push_back(reader.next());
    consume(torch::stack(batch));
    batch.clear();
  }
}

// Negative: double buffering: each call wraps another slot.
class DoubleBuffer {
public:
  torch::Tensor next() {
    slot_ = 1 - slot_;
    read_frame(slots_[slot_].data());
    return torch::from_blob(slots_[slot_].data(), {4});
  }
  torch::Tensor at(int offset) {
    read_frame(flat_.data() + offset);
    return torch::from_blob(flat_.data() + offset, {4});
  }

private:
  int slot_ = 0;
  std::vector<float> slots_[2];
  std::vector<float> flat_ = std::vector<float>(8);
};

void NegativeSlots(DoubleBuffer &buffers) {
  auto a = buffers.next();
  auto b = buffers.next();
  consume(b.sub(a));
  auto c = buffers.at(0);
  auto d = buffers.at(4);
  consume(d.sub(c));
}

// FIXME: should warn: the previous iteration's tensor, kept in a variable,
// is used after this iteration's call refilled the buffer.
void LoopCarriedPrevious(FrameReader &reader) {
  torch::Tensor previous;
  for (int i = 0; i < 3; ++i) {
    auto current = reader.next();
    if (i > 0)
      consume(current.sub(previous));
    previous = current;
  }
}
