// CASE: a classification server hands the raw logits of each batch to a
//       calibration logger thread as logits.to(kCPU, /*non_blocking=*/false,
//       /*copy=*/true), then applies temperature scaling in place with
//       logits.div_(T) before the logger has read them
// SOURCE: the kind of code in libtorch inference servers that log raw scores
//         for offline calibration next to the serving path
// KIND: near-miss
// WHY-OK: copy=true makes .to() allocate new storage even when the tensor is
//         already on the CPU, so the logger owns its values; the in-place
//         temperature scaling only touches the served tensor
#include <torch/torch.h>

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

namespace calib {

class Turnstile {
 public:
  void release() {
    std::lock_guard<std::mutex> lock(m_);
    go_ = true;
    cv_.notify_all();
  }
  void enter() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return go_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool go_ = false;
};

struct RawLogLine {
  double max_logit = 0;
  double entropy = 0;
};

void log_raw(torch::Tensor raw, RawLogLine* line, Turnstile* flush) {
  flush->enter();
  line->max_logit = raw.max().item<double>();
  auto p = torch::softmax(raw, 1);
  line->entropy = -(p * p.log()).sum(1).mean().item<double>();
}

}  // namespace calib

int main() {
  torch::manual_seed(0);
  torch::nn::Linear classifier(12, 5);
  const double temperature = 2.5;
  auto batch = torch::randn({6, 12}) * 3;

  torch::NoGradGuard no_grad;
  auto logits = classifier(batch);
  calib::RawLogLine expected;
  calib::Turnstile ready;
  ready.release();
  calib::log_raw(logits.clone(), &expected, &ready);

  calib::RawLogLine line;
  calib::Turnstile flush;
  std::thread logger(calib::log_raw, logits.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true), &line, &flush);
  logits.div_(temperature);
  auto served = torch::softmax(logits, 1);
  flush.release();
  logger.join();

  std::cout << "served top prob " << served.max().item<float>() << "\n";
  if (std::abs(line.max_logit - expected.max_logit) > 1e-6 || std::abs(line.entropy - expected.entropy) > 1e-6)
    std::cout << "HARM: logger saw scaled logits (max " << line.max_logit << " vs " << expected.max_logit << ")\n";
  else
    std::cout << "logger saw the raw logits\n";
  return 0;
}
