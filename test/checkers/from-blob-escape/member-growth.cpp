// RUN: %check_clang_tidy %s libtorch-from-blob-escape %t -- -- %mock_torch
// Note [Members that wrap a member]: a tensor member made by from_blob over
// a container member of its object reads freed memory once a method of the
// class grows the container.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

// The window is wrapped once, and later packets keep growing the vector.
struct Session {
  std::vector<float> samples;
  torch::Tensor window;

  void on_packet(const std::vector<float> &packet) {
    samples.insert(samples.end(), packet.begin(), packet.end());
    // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'insert' may reallocate member 'samples' while member 'window' still wraps its memory: 'from_blob' made 'window' without a copy, so it would read freed memory [libtorch-from-blob-escape]
    // CHECK-NOTES: :[[@LINE+4]]:16: note: 'from_blob' wraps member 'samples' here
    // CHECK-NOTES: :[[@LINE+3]]:7: note: 'window' keeps the tensor here
    // CHECK-NOTES: :[[@LINE+7]]:62: note: 'window' is read here, where nothing wraps the buffer again
    if (!window.defined() && samples.size() >= 64)
      window = torch::from_blob(samples.data(), {64});
  // CHECK-FIXES: window = torch::from_blob(samples.data(), {64}).clone();
  }
};

torch::Tensor PositiveConditionalWrap(Session &s) { return s.window.clone(); }

// Another method grows the buffer.
class Recorder {
public:
  void start(int64_t n) {
    frames_.resize(n);
    view_ = torch::from_blob(frames_.data(), {n});
    // CHECK-FIXES: view_ = torch::from_blob(frames_.data(), {n}).clone();
  }
  void add(float value) { frames_.push_back(value); }
  // CHECK-NOTES: :[[@LINE-1]]:35: warning: 'push_back' may reallocate member 'frames_' while member 'view_' still wraps its memory: 'from_blob' made 'view_' without a copy, so it would read freed memory [libtorch-from-blob-escape]
  // CHECK-NOTES: :[[@LINE-5]]:13: note: 'from_blob' wraps member 'frames_' here
  // CHECK-NOTES: :[[@LINE-6]]:5: note: 'view_' keeps the tensor here
  // CHECK-NOTES: :[[@LINE+1]]:31: note: 'view_' is read here, where nothing wraps the buffer again
  float mean() const { return view_.mean().item<float>(); }

private:
  std::vector<float> frames_;
  torch::Tensor view_;
};

// A string grown by appending.
class Receiver {
public:
  void open() { bytes_ = torch::from_blob(&buffer_[0], {4}); }
  // CHECK-FIXES: void open() { bytes_ = torch::from_blob(&buffer_[0], {4}).clone(); }
  void receive(const std::string &chunk) { buffer_ += chunk; }
  // CHECK-NOTES: :[[@LINE-1]]:52: warning: 'operator+=' may reallocate member 'buffer_' while member 'bytes_' still wraps its memory: 'from_blob' made 'bytes_' without a copy, so it would read freed memory [libtorch-from-blob-escape]
  // CHECK-NOTES: :[[@LINE-4]]:26: note: 'from_blob' wraps member 'buffer_' here
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'bytes_' keeps the tensor here
  // CHECK-NOTES: :[[@LINE+1]]:41: note: 'bytes_' is read here, where nothing wraps the buffer again
  torch::Tensor header() const { return bytes_; }

private:
  std::string buffer_ = "    ";
  torch::Tensor bytes_;
};

// Wrapped again after every growth.
class Rewrapped {
public:
  void append(float v) {
    data_.push_back(v);
    all_ = torch::from_blob(data_.data(), {(int64_t)data_.size()});
  }
  float total() const { return all_.sum().item<float>(); }

private:
  std::vector<float> data_;
  torch::Tensor all_;
};

// Filled in place, never grown, after it is wrapped.
class Refilled {
public:
  Refilled() : buf_(8) {}
  void bind() { input_ = torch::from_blob(buf_.data(), {8}); }
  void set(int i, float v) { buf_[i] = v; }
  torch::Tensor input() const { return input_; }

private:
  std::vector<float> buf_;
  torch::Tensor input_;
};

// A copy is kept.
class Copied {
public:
  void take() { kept_ = torch::from_blob(raw_.data(), {4}).clone(); }
  void more(float v) { raw_.push_back(v); }
  torch::Tensor kept() const { return kept_; }

private:
  std::vector<float> raw_ = {1, 2, 3, 4};
  torch::Tensor kept_;
};

// Grown only by the constructor, before anything wraps it.
class Sized {
public:
  explicit Sized(int64_t n) { values_.resize(n); }
  void wrap() { t_ = torch::from_blob(values_.data(), {4}); }
  torch::Tensor get() const { return t_; }

private:
  std::vector<float> values_;
  torch::Tensor t_;
};

// Rebuilt before every use, in the method that reads it.
class Scratch {
public:
  void push(float v) { acc_.push_back(v); }
  float sum() {
    view_ = torch::from_blob(acc_.data(), {(int64_t)acc_.size()});
    return view_.sum().item<float>();
  }

private:
  std::vector<float> acc_;
  torch::Tensor view_;
};
