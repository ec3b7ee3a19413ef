// CASE: a camera pipeline gives the preview encoder its "own copy" of the raw
//       frame as std::make_unique<torch::Tensor>(frame), moved into a
//       std::thread, then standardises the frame in place for the detector
// SOURCE: the kind of code in libtorch vision/inference pipelines (a preview
//         or thumbnail thread next to the detector); make_unique copies the
//         handle, not the pixels
// KIND: bug
// HARM: the preview thumbnail is built from the standardised frame instead of
//       the raw pixels
#include <torch/torch.h>

#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

namespace cam {

class Gate {
 public:
  void open() {
    { std::lock_guard<std::mutex> lock(m_); open_ = true; }
    cv_.notify_one();
  }
  void pass() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

// The encoder is one frame behind: it starts on a frame when `encoder_free` opens.
void make_thumbnail(std::unique_ptr<torch::Tensor> pixels, torch::Tensor* thumb, Gate* encoder_free) {
  encoder_free->pass();
  *thumb = torch::avg_pool2d(pixels->unsqueeze(0), 4).squeeze(0).round();
}

void standardise_for_detector(torch::Tensor& frame) {
  static const auto mean = torch::tensor({123.7f, 116.3f, 103.5f}).view({3, 1, 1});
  static const auto stdv = torch::tensor({58.4f, 57.1f, 57.4f}).view({3, 1, 1});
  frame.sub_(mean).div_(stdv);  // BUG(libtorch-worker-missing-clone)
}

}  // namespace cam

int main() {
  torch::manual_seed(0);
  auto frame = torch::randint(0, 256, {3, 32, 32}).to(torch::kFloat);
  auto expected = torch::avg_pool2d(frame.unsqueeze(0), 4).squeeze(0).round();

  cam::Gate encoder_free;
  torch::Tensor thumb;
  auto own_copy = std::make_unique<torch::Tensor>(frame);  // BUG(libtorch-worker-missing-clone)
  std::thread preview(cam::make_thumbnail, std::move(own_copy), &thumb, &encoder_free);  // BUG(libtorch-worker-missing-clone)

  cam::standardise_for_detector(frame);  // BUG(libtorch-worker-missing-clone)
  auto detections = (frame.amax({1, 2}) > 1.5).sum();
  encoder_free.open();
  preview.join();

  std::cout << "detector channels above threshold: " << detections.item<int64_t>() << "\n";
  if (!torch::allclose(thumb, expected))
    std::cout << "HARM: thumbnail pixel " << thumb[0][0][0].item<float>() << ", raw frame gives "
              << expected[0][0][0].item<float>() << "\n";
  else
    std::cout << "thumbnail matches the raw frame\n";
  return 0;
}
