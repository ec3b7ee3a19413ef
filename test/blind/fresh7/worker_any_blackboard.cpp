// CASE: a trainer posts its per-class loss tensor into a process-wide
//       std::any blackboard for a telemetry thread, then reweights the same
//       tensor in place for the next step before the end-of-step flush wakes
//       the telemetry thread
// SOURCE: the kind of code in robotics / RL stacks that share state between
//         threads through a type-erased key-value blackboard singleton
// KIND: bug
// HARM: the telemetry thread logs the normalised weights instead of the raw
//       per-class losses of the step
#include <torch/torch.h>

#include <any>
#include <cmath>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

namespace bb {

class Blackboard {
 public:
  static Blackboard& instance() {
    static Blackboard board;
    return board;
  }
  void post(const std::string& key, std::any value) {
    std::lock_guard<std::mutex> lock(mu_);
    slots_[key] = std::move(value);
  }
  template <class T>
  T read(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return std::any_cast<T>(slots_.at(key));
  }
  void flush() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      flushed_ = true;
    }
    cv_.notify_all();
  }
  void wait_for_flush() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return flushed_; });
    flushed_ = false;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool flushed_ = false;
  std::unordered_map<std::string, std::any> slots_;
};

}  // namespace bb

class Telemetry {
 public:
  void start() {
    worker_ = std::thread([this] {
      auto& board = bb::Blackboard::instance();
      board.wait_for_flush();
      auto losses = board.read<torch::Tensor>("train/per_class_loss");
      logged_ = losses.sum().item<double>();
    });
  }
  double stop() {
    worker_.join();
    return logged_;
  }

 private:
  std::thread worker_;
  double logged_ = 0.0;
};

int main() {
  Telemetry telemetry;
  telemetry.start();

  // per-class cross-entropy of this step
  torch::Tensor per_class = torch::tensor({0.9, 0.4, 1.7}, torch::kDouble);
  const double raw_sum = per_class.sum().item<double>();

  bb::Blackboard::instance().post("train/per_class_loss", per_class);  // BUG(libtorch-worker-missing-clone)

  // class weights for the next step: proportional to the loss, normalised
  per_class.div_(per_class.sum());  // BUG(libtorch-worker-missing-clone)

  bb::Blackboard::instance().flush();
  const double logged = telemetry.stop();

  std::cout << "raw loss sum " << raw_sum << ", telemetry logged " << logged << "\n";
  if (std::abs(logged - raw_sum) > 1e-9)
    std::cout << "HARM: telemetry logged a per-class loss sum of " << logged
              << " instead of " << raw_sum << "\n";
  return 0;
}
