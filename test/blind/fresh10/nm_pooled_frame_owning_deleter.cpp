// CASE: camera frames live in buffers recycled by a FramePool; the stored
//       converter lambda wraps the frame's bytes with torch::from_blob and
//       hands the frame's ownership to the tensor's deleter, so the buffer goes
//       back to the pool only when the tensor's storage dies
// SOURCE: the kind of camera / video-decoder glue (pooled buffers, RAII frame
//         handles, from_blob into NHWC uint8 tensors) found in C++ inference
//         apps
// KIND: near-miss
// WHY-OK: the deleter owns the frame, so no later grab can reuse the bytes
//         while a tensor over them is alive
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

namespace capture {

class FramePool {
 public:
  std::vector<uint8_t>* acquire(size_t bytes) {
    if (free_.empty()) { store_.push_back(std::make_unique<std::vector<uint8_t>>(bytes)); return store_.back().get(); }
    auto* buf = free_.back();
    free_.pop_back();
    return buf;
  }
  void release(std::vector<uint8_t>* buf) { free_.push_back(buf); }
  size_t allocated() const { return store_.size(); }

 private:
  std::vector<std::unique_ptr<std::vector<uint8_t>>> store_;
  std::vector<std::vector<uint8_t>*> free_;
};

class Frame {
 public:
  Frame(FramePool& pool, int h, int w) : pool_(pool), buf_(pool.acquire(static_cast<size_t>(h) * w * 3)), h_(h), w_(w) {}
  ~Frame() { pool_.release(buf_); }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  uint8_t* data() { return buf_->data(); }
  int height() const { return h_; }
  int width() const { return w_; }

 private:
  FramePool& pool_;
  std::vector<uint8_t>* buf_;
  int h_, w_;
};

class FakeCamera {
 public:
  explicit FakeCamera(FramePool& pool) : pool_(pool) {}
  std::unique_ptr<Frame> grab() {
    auto f = std::make_unique<Frame>(pool_, 4, 4);
    std::fill(f->data(), f->data() + 4 * 4 * 3, static_cast<uint8_t>(10 * ++count_));
    return f;
  }

 private:
  FramePool& pool_;
  int count_ = 0;
};

}  // namespace capture

int main() {
  capture::FramePool pool;
  capture::FakeCamera camera(pool);
  std::function<torch::Tensor(std::unique_ptr<capture::Frame>)> to_tensor = [](std::unique_ptr<capture::Frame> f) {
    const std::vector<int64_t> shape = {f->height(), f->width(), 3};
    auto* raw = f.get();
    return torch::from_blob(raw->data(), shape, [owner = f.release()](void*) { delete owner; }, torch::kUInt8);
  };

  std::vector<torch::Tensor> clip;
  for (int i = 0; i < 2; ++i) clip.push_back(to_tensor(camera.grab()));
  auto batch = torch::stack(clip).permute({0, 3, 1, 2}).to(torch::kFloat).div(255);

  const int first = clip[0][0][0][0].item<int>();
  std::printf("frame 0 pixel %d (grabbed as 10), frame 1 pixel %d; %zu pool buffers; batch mean %.3f\n", first,
              clip[1][0][0][0].item<int>(), pool.allocated(), batch.mean().item<double>());
  if (first != 10) std::printf("HARM: frame 0's tensor reads %d, the pixels of a later frame\n", first);
  clip.clear();  // the frames go back to the pool here
  return 0;
}
