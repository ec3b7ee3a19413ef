// CASE: the running-metric accumulator's snapshot() clones the totals into
//       the Snapshot struct before update() adds into them in place
// SOURCE: the corrected accumulator (clone() at the snapshot)
// KIND: near-miss
// WHY-OK: the snapshot owns its own storage; later add_() calls change only
//         the live totals
#include <torch/torch.h>

#include <cstdio>

class RunningLoss {
 public:
  struct Snapshot {
    torch::Tensor sum, count;
  };
  RunningLoss() : sum_(torch::zeros({})), count_(torch::zeros({})) {}
  void update(const torch::Tensor& losses) {
    sum_.add_(losses.sum());
    count_.add_(losses.numel());
  }
  Snapshot snapshot() const { return Snapshot{sum_.clone(), count_.clone()}; }
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
    if (!(m > 0)) std::printf("HARM: epoch %d mean is %f\n", epoch, m);
  }
  return 0;
}
