// CASE: an exporter stores a lambda member that captures a copy of the
//       model's std::vector<torch::Tensor> state (a copy of the handles, not
//       of the values) and runs it on ATen's inter-op pool with at::launch;
//       the trainer then decays the weights in place before the exporter's
//       storage backend is opened
// SOURCE: the kind of code in libtorch services that export checkpoints in the
//         background (at::launch) while training continues
// KIND: bug
// HARM: the exported checkpoint holds the decayed weights, not the ones at
//       the time of export()
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <future>
#include <iostream>
#include <vector>

class AsyncExporter {
 public:
  AsyncExporter& with_state(const std::vector<torch::Tensor>& state) {
    job_ = [this, state] {  // BUG(libtorch-worker-missing-clone)
      backend_open_.get_future().wait();
      double checksum = 0.0;
      for (const auto& t : state) checksum += t.sum().item<double>();
      written_.set_value(checksum);
    };
    return *this;
  }
  std::future<double> export_async() {
    auto done = written_.get_future();
    at::launch(job_);  // BUG(libtorch-worker-missing-clone)
    return done;
  }
  void open_backend() { backend_open_.set_value(); }

 private:
  std::function<void()> job_;
  std::promise<void> backend_open_;
  std::promise<double> written_;
};

int main() {
  torch::manual_seed(5);
  torch::nn::Sequential net(torch::nn::Linear(6, 6), torch::nn::Tanh(), torch::nn::Linear(6, 2));
  std::vector<torch::Tensor> state = net->parameters();

  double expected = 0.0;
  for (const auto& t : state) expected += t.sum().item<double>();

  AsyncExporter exporter;
  auto written = exporter.with_state(state).export_async();  // BUG(libtorch-worker-missing-clone)

  {
    torch::NoGradGuard no_grad;
    for (auto& w : state) w.mul_(1.0 - 0.05);  // BUG(libtorch-worker-missing-clone)
  }
  exporter.open_backend();

  const double got = written.get();
  std::cout << "exported checksum " << got << ", expected " << expected << "\n";
  if (std::abs(got - expected) > 1e-6)
    std::cout << "HARM: the exported checkpoint checksum is " << got << " instead of " << expected
              << "\n";
  return 0;
}
