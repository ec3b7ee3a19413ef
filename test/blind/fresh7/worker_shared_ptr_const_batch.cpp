// CASE: a batch struct is shared as std::shared_ptr<const Batch> with a
//       dashboard preview thread; const on the pointee does not make the
//       tensors read-only, and the loader normalises batch->images in place
//       before the dashboard asks for the preview
// SOURCE: the kind of code in image-training loops that hand a "read-only"
//         batch to a UI / TensorBoard thumbnail thread
// KIND: bug
// HARM: the preview shows a mean pixel value of about 0 instead of the raw
//       mean of about 127
#include <torch/torch.h>

#include <cmath>
#include <future>
#include <iostream>
#include <memory>
#include <thread>

struct Batch {
  torch::Tensor images;  // N x C x H x W, raw 0..255
  torch::Tensor labels;
};
using ConstBatchPtr = std::shared_ptr<const Batch>;

class PreviewThread {
 public:
  explicit PreviewThread(std::shared_future<void> dashboard_request)
      : request_(std::move(dashboard_request)) {}

  void show(ConstBatchPtr batch) {
    worker_ = std::thread([this, batch = std::move(batch)] {  // BUG(libtorch-worker-missing-clone)
      request_.wait();
      mean_pixel_ = batch->images.mean().item<double>();
    });
  }
  double finish() {
    worker_.join();
    return mean_pixel_;
  }

 private:
  std::shared_future<void> request_;
  std::thread worker_;
  double mean_pixel_ = 0.0;
};

std::shared_ptr<Batch> load_batch() {
  auto b = std::make_shared<Batch>();
  b->images = torch::randint(0, 256, {4, 3, 8, 8}).to(torch::kFloat);
  b->labels = torch::randint(0, 10, {4});
  return b;
}

int main() {
  torch::manual_seed(7);
  std::promise<void> dashboard;
  PreviewThread preview(dashboard.get_future().share());

  std::shared_ptr<Batch> batch = load_batch();
  const double raw_mean = batch->images.mean().item<double>();
  preview.show(batch);  // BUG(libtorch-worker-missing-clone)

  // per-dataset normalisation before the forward
  batch->images.sub_(127.5).div_(127.5);  // BUG(libtorch-worker-missing-clone)

  dashboard.set_value();  // the user opens the dashboard tab
  const double shown = preview.finish();
  std::cout << "preview mean " << shown << ", raw mean " << raw_mean << "\n";
  if (std::abs(shown - raw_mean) > 1e-3)
    std::cout << "HARM: preview thread shows mean pixel " << shown << " instead of " << raw_mean
              << "\n";
  return 0;
}
