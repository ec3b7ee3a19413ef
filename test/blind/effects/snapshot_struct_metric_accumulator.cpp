// CASE: a running-metric accumulator hands out a Snapshot{sum_, count_} at the
//       start of each epoch so that the epoch's mean can be computed as the
//       difference to the running totals; update() adds into the totals in
//       place
// SOURCE: the kind of code in torchmetrics-like C++ accumulators; a struct of
//         torch::Tensor members copies handles, not values
// KIND: bug
// HARM: the snapshot follows the totals, so the epoch mean is 0/0 = nan
#include <torch/torch.h>

#include <cstdio>

class RunningLoss {
 public:
  struct Snapshot {
    torch::Tensor sum, count;
  };
  RunningLoss() : sum_(torch::zeros({})), count_(torch::zeros({})) {}
  void update(const torch::Tensor& losses) {
    sum_.add_(losses.sum());  // BUG(libtorch-inplace-on-view)
    count_.add_(losses.numel());  // BUG(libtorch-inplace-on-view)
  }
  Snapshot snapshot() const { return Snapshot{sum_, count_}; }  // BUG(libtorch-inplace-on-view)
  double mean_since(const Snapshot& s) const {
    return ((sum_ - s.sum) / (count_ - s.count)).item<double>();
  }

 private:
  torch::Tensor sum_, count_;
};

int main() {
  torch::manual_seed(19);
  RunningLoss tracker;
  for (int epoch = 0; epoch < 2; ++epoch) {
    auto start = tracker.snapshot();
    for (int b = 0; b < 10; ++b) tracker.update(torch::rand({8}) + epoch);
    const double m = tracker.mean_since(start);
    std::printf("epoch %d mean loss %.4f\n", epoch, m);
    if (!(m > 0)) std::printf("HARM: epoch %d mean is %f: the snapshot moved with the totals\n", epoch, m);
  }
  return 0;
}
