// CASE: a video pipeline letterboxes each frame into one reusable canvas and
//       posts a job per frame to a c10::ThreadPool; the job compares the
//       frame with the previous one it kept, but both are the canvas handle
// SOURCE: the kind of code in libtorch video analytics / surveillance
//       demos (letterbox into a preallocated input tensor, a worker that
//       computes frame differences); cf. c10/core/thread_pool.h
// KIND: bug
// HARM: the motion score is zero for every frame although the scene moves
#include <c10/core/thread_pool.h>
#include <torch/torch.h>

#include <iostream>
#include <mutex>
#include <vector>

namespace {

constexpr int64_t kSide = 16;

// Fake camera: a bright square that moves two pixels per frame.
torch::Tensor grab(int index) {
  auto img = torch::zeros({3, 12, 12});
  img.narrow(1, 2, 4).narrow(2, 2 * index % 8, 4).fill_(1.f);
  return img;
}

class Letterbox {
 public:
  Letterbox() : canvas_(torch::zeros({3, kSide, kSide})) {}

  const torch::Tensor& apply(const torch::Tensor& img) {
    canvas_.fill_(0.5f);                                       // BUG(libtorch-worker-missing-clone)
    canvas_.narrow(1, 2, 12).narrow(2, 2, 12).copy_(img);      // BUG(libtorch-worker-missing-clone)
    return canvas_;
  }

 private:
  torch::Tensor canvas_;
};

class MotionDetector {
 public:
  float score(const torch::Tensor& frame) {
    float s = 0.f;
    if (prev_.defined()) s = (frame - prev_).abs().sum().item<float>();
    prev_ = frame;
    return s;
  }

 private:
  torch::Tensor prev_;
};

}  // namespace

int main() {
  constexpr int kFrames = 5;
  c10::ThreadPool pool(1);
  Letterbox letterbox;
  MotionDetector detector, reference;
  std::mutex mu;
  std::vector<float> scores(kFrames, 0.f), expected(kFrames, 0.f);

  for (int i = 0; i < kFrames; ++i) {
    torch::Tensor frame = letterbox.apply(grab(i));  // BUG(libtorch-worker-missing-clone)
    expected[i] = reference.score(frame.clone());
    pool.run([&detector, &scores, &mu, frame, i] {  // BUG(libtorch-worker-missing-clone)
      std::lock_guard<std::mutex> lock(mu);
      scores[i] = detector.score(frame);
    });
  }
  pool.waitWorkComplete();

  float missed = 0.f;
  for (int i = 0; i < kFrames; ++i) {
    std::cout << "frame " << i << ": motion " << scores[i] << " expected " << expected[i] << "\n";
    missed += expected[i] - scores[i];
  }
  if (missed > 0.5f) {
    std::cout << "HARM: the detector compared the canvas with itself and missed " << missed
              << " units of motion\n";
  }
  return 0;
}
