// CASE: an activation tap queues (step, tensor) tuples as c10::IValue records
//       for a background writer that flushes every two records; the forward
//       pass logs each pre-activation and then rebinds the variable to the
//       ReLU of it
// SOURCE: the kind of activation-statistics logger used in C++ inference
//         servers that keep TorchScript IValues as their record type
// KIND: near-miss
// WHY-OK: clamp_min (not clamp_min_) builds a new tensor and rebinds h; the
//         record still holds the untouched pre-activation
#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <thread>

class ActivationTap {
 public:
  explicit ActivationTap(size_t flush_every) : flush_every_(flush_every), writer_([this] { run(); }) {}
  ~ActivationTap() { close(); }

  void log(const std::string& name, int64_t step, const torch::Tensor& value) {
    std::lock_guard<std::mutex> lk(mu_);
    names_.push_back(name);
    records_.emplace_back(c10::ivalue::Tuple::create({c10::IValue(step), c10::IValue(value)}));
    cv_.notify_one();
  }
  void close() {
    { std::lock_guard<std::mutex> lk(mu_); closing_ = true; }
    cv_.notify_one();
    if (writer_.joinable()) writer_.join();
  }
  std::map<std::string, double> minima() { std::lock_guard<std::mutex> lk(mu_); return minima_; }

 private:
  void run() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [this] { return closing_ || records_.size() >= flush_every_; });
      while (!records_.empty()) {
        const auto tuple = records_.front().toTuple();
        const auto value = tuple->elements()[1].toTensor();
        minima_[names_.front()] = value.min().item<double>();
        records_.pop_front();
        names_.pop_front();
      }
      if (closing_) return;
    }
  }
  size_t flush_every_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::list<c10::IValue> records_;
  std::list<std::string> names_;
  std::map<std::string, double> minima_;
  bool closing_ = false;
  std::thread writer_;
};

struct MlpImpl : torch::nn::Module {
  MlpImpl() : fc1(register_module("fc1", torch::nn::Linear(8, 16))), fc2(register_module("fc2", torch::nn::Linear(16, 4))) {}
  torch::Tensor forward(torch::Tensor x, ActivationTap& tap, int64_t step) {
    auto h = fc1->forward(x);
    tap.log("fc1.pre", step, h);
    h = h.clamp_min(0);
    auto out = fc2->forward(h);
    tap.log("fc2.pre", step, out);
    return out;
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Mlp);

int main() {
  torch::manual_seed(3);
  Mlp net;
  ActivationTap tap(/*flush_every=*/2);
  torch::NoGradGuard no_grad;
  auto x = torch::randn({32, 8});
  const double true_min = net->fc1->forward(x).min().item<double>();
  auto y = net->forward(x, tap, /*step=*/0);
  tap.close();
  const double logged = tap.minima().at("fc1.pre");
  std::printf("fc1 pre-activation minimum: %.3f, tap logged %.3f (output %s)\n", true_min, logged,
              y.sizes().vec() == std::vector<int64_t>{32, 4} ? "ok" : "bad");
  if (logged != true_min)
    std::printf("HARM: the tap logged a pre-activation minimum of %.3f, the layer produced %.3f\n",
                logged, true_min);
  return 0;
}
