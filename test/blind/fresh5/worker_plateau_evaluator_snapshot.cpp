// CASE: every 50 steps the trainer submits a Snapshot{step, net->parameters()}
//       to a plateau-detector thread that keeps the previous snapshot as a
//       member and compares validation losses of consecutive checkpoints; the
//       snapshot holds the live parameter handles, so optimizer steps rewrite
//       the "previous checkpoint" the evaluator still reads
// SOURCE: ReduceLROnPlateau-style schedulers written by hand for libtorch
//         trainers, with evaluation moved to a background thread; cf.
//         https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: the evaluator reports zero improvement between checkpoints although the
//       validation loss fell, so the learning rate is halved every time
#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

struct Snapshot {
  int64_t step;
  std::vector<torch::Tensor> params;
};

class PlateauEvaluator {
 public:
  PlateauEvaluator(torch::nn::Linear scratch, torch::Tensor x, torch::Tensor y)
      : net_(std::move(scratch)), x_(std::move(x)), y_(std::move(y)), worker_([this] { run(); }) {}
  ~PlateauEvaluator() {
    { std::lock_guard<std::mutex> l(m_); stop_ = true; }
    cv_.notify_one();
    worker_.join();
  }
  std::future<double> submit(Snapshot s) {
    std::promise<double> done;
    auto fut = done.get_future();
    { std::lock_guard<std::mutex> l(m_); inbox_.emplace_back(std::move(s), std::move(done)); }
    cv_.notify_one();
    return fut;
  }

 private:
  void run() {
    for (;;) {
      std::pair<Snapshot, std::promise<double>> job;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [this] { return stop_ || !inbox_.empty(); });
        if (inbox_.empty()) return;
        job = std::move(inbox_.front());
        inbox_.pop_front();
      }
      double cur = val_loss(job.first.params);
      double improvement = prev_ ? val_loss(prev_->params) - cur : 1e9;  // BUG(libtorch-worker-missing-clone)
      prev_ = std::move(job.first);  // BUG(libtorch-worker-missing-clone)
      job.second.set_value(improvement);
    }
  }
  double val_loss(const std::vector<torch::Tensor>& params) {
    torch::NoGradGuard no_grad;
    auto mine = net_->parameters();
    for (size_t i = 0; i < mine.size(); ++i) mine[i].copy_(params[i]);
    return torch::mse_loss(net_->forward(x_), y_).item<double>();
  }
  torch::nn::Linear net_;
  torch::Tensor x_, y_;
  std::optional<Snapshot> prev_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::pair<Snapshot, std::promise<double>>> inbox_;
  bool stop_ = false;
  std::thread worker_;
};

int main() {
  torch::manual_seed(0);
  auto w_true = torch::randn({4, 1});
  auto x = torch::randn({256, 4}), y = x.mm(w_true);
  auto xv = torch::randn({64, 4}), yv = xv.mm(w_true);

  torch::nn::Linear net(4, 1);
  double lr = 0.01;
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(lr));
  PlateauEvaluator evaluator(torch::nn::Linear(4, 1), xv, yv);
  double last_val = 0;

  for (int64_t step = 1; step <= 150; ++step) {
    opt.zero_grad();
    torch::mse_loss(net->forward(x), y).backward();
    opt.step();  // BUG(libtorch-worker-missing-clone)
    if (step % 50 != 0) continue;
    double improvement = evaluator.submit({step, net->parameters()}).get();  // BUG(libtorch-worker-missing-clone)
    double val;
    { torch::NoGradGuard ng; val = torch::mse_loss(net->forward(xv), yv).item<double>(); }
    if (step > 50) {
      std::cout << "step " << step << " val " << val << " (was " << last_val
                << "), evaluator improvement " << improvement << "\n";
      if (improvement < 1e-6 && last_val - val > 1e-6) {
        lr *= 0.5;
        static_cast<torch::optim::SGDOptions&>(opt.param_groups()[0].options()).lr(lr);
        std::cout << "HARM: plateau reported at step " << step << " (improvement " << improvement
                  << ") though validation loss fell by " << last_val - val << "; lr cut to " << lr << "\n";
      }
    }
    last_val = val;
  }
  return 0;
}
