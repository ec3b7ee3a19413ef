// CASE: camera frames live in buffers recycled by a FramePool; a Frame handle
//       gives its buffer back in its destructor, and the stored converter
//       lambda wraps the frame's bytes with torch::from_blob without a copy, so
//       the tensor outlives the frame and the next grab reuses its bytes
// SOURCE: the kind of camera / video-decoder glue (pooled buffers, RAII frame
//         handles, from_blob into NHWC uint8 tensors) found in C++ inference
//         apps
// KIND: bug
// HARM: the tensor of frame 0 holds frame 1's pixels
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
  std::function<torch::Tensor(capture::Frame&)> to_tensor = [](capture::Frame& f) {
    return torch::from_blob(f.data(), {f.height(), f.width(), 3}, torch::kUInt8);  // BUG(libtorch-from-blob-escape)
  };

  std::vector<torch::Tensor> clip;
  for (int i = 0; i < 2; ++i) {
    auto frame = camera.grab();
    clip.push_back(to_tensor(*frame));  // BUG(libtorch-from-blob-escape)
  }  // the frame goes back to the pool here
  auto batch = torch::stack(clip).permute({0, 3, 1, 2}).to(torch::kFloat).div(255);

  const int first = clip[0][0][0][0].item<int>();
  std::printf("frame 0 pixel %d (grabbed as 10), frame 1 pixel %d; batch mean %.3f\n", first,
              clip[1][0][0][0].item<int>(), batch.mean().item<double>());
  if (first != 10) std::printf("HARM: frame 0's tensor reads %d, the pixels of a later frame\n", first);
  return 0;
}
