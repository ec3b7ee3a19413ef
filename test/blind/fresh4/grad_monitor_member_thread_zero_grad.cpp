// CASE: a trainer hands each step's gradient handles to a monitor whose
//       worker is a member function started as a std::thread in the
//       constructor; the monitor writes its histograms in windows of two
//       steps, and meanwhile the next step's zero_grad() and backward() have
//       rewritten the same gradient tensors in place
// SOURCE: training dashboards that log gradient norms off the training
//         thread (TensorBoard/W&B-style loggers ported to libtorch)
// KIND: bug
// HARM: step 0's logged gradient norm is step 1's
#include <torch/torch.h>

#include <cmath>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

class GradMonitor {
 public:
  explicit GradMonitor(size_t window) : window_(window), worker_(&GradMonitor::run, this) {}
  ~GradMonitor() { close(); }

  void record(int step, std::vector<torch::Tensor> grads) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.push_back({step, std::move(grads)});
    }
    wake_.notify_one();
  }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    wake_.notify_one();
    if (worker_.joinable()) worker_.join();
  }

  std::map<int, double> norms;

 private:
  struct Entry {
    int step;
    std::vector<torch::Tensor> grads;
  };

  void run() {
    for (;;) {
      std::vector<Entry> window;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return pending_.size() >= window_ || closed_; });
        if (pending_.empty()) return;
        window.swap(pending_);
      }
      for (const auto& entry : window) {
        double squares = 0;
        for (const auto& g : entry.grads) squares += g.pow(2).sum().item<double>();
        norms[entry.step] = std::sqrt(squares);
      }
    }
  }

  size_t window_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Entry> pending_;
  bool closed_ = false;
  std::thread worker_;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Linear model(3, 1);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  GradMonitor monitor(2);
  std::vector<double> true_norms;

  for (int step = 0; step < 2; ++step) {
    auto x = torch::randn({8, 3}) * (step + 1);
    auto y = torch::randn({8, 1});
    optimizer.zero_grad();  // BUG(libtorch-worker-missing-clone)
    auto loss = torch::mse_loss(model->forward(x), y);
    loss.backward();  // BUG(libtorch-worker-missing-clone)
    std::vector<torch::Tensor> grads;
    double squares = 0;
    for (const auto& p : model->parameters()) {
      grads.push_back(p.grad());
      squares += p.grad().pow(2).sum().item<double>();
    }
    true_norms.push_back(std::sqrt(squares));
    monitor.record(step, grads);  // BUG(libtorch-worker-missing-clone)
    optimizer.step();
  }
  monitor.close();

  std::cout << "step 0 gradient norm " << true_norms[0] << ", logged " << monitor.norms[0]
            << "; step 1 " << true_norms[1] << ", logged " << monitor.norms[1] << "\n";
  if (std::abs(monitor.norms[0] - true_norms[0]) > 1e-6)
    std::cout << "HARM: the monitor logged " << monitor.norms[0] << " for step 0, whose gradient norm was "
              << true_norms[0] << "\n";
  return 0;
}
