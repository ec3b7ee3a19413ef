// CASE: a training loop queues a TensorBoard-style histogram job, a
//       std::unique_ptr<HistJob> holding a const pointer to the classifier's
//       weight, moved into a logger thread's lambda; then applies a max-norm
//       constraint to that weight in place with renorm_ before the logger
//       reaches the histogram
// SOURCE: the kind of code in libtorch trainers with an asynchronous summary
//         writer (tensorboard_logger-style C++ ports) logging weight
//         histograms "every N steps"
// KIND: bug
// HARM: the logged histogram's largest row norm is the clamped 0.5 instead of
//       the weight's norm at the logged step
#include <torch/torch.h>

#include <cmath>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

namespace summary {

struct HistJob {
  std::string tag;
  int64_t step;
  const torch::Tensor* source;  // no copy: the weight can be large
  std::shared_future<void> writer_ready;
};

struct HistRecord {
  double max_row_norm = 0;
  torch::Tensor counts;
};

std::thread start_hist_writer(std::unique_ptr<HistJob> job, HistRecord& out) {
  return std::thread([job = std::move(job), &out] {  // BUG(libtorch-worker-missing-clone)
    job->writer_ready.wait();  // event file opened
    const torch::Tensor& w = *job->source;
    out.max_row_norm = w.norm(2, {1}).max().item<double>();
    out.counts = torch::histc(w, 20, -2, 2);
  });
}

}  // namespace summary

int main() {
  torch::manual_seed(0);
  torch::nn::Linear fc(16, 4);
  {
    torch::NoGradGuard ng;
    fc->weight.normal_(0, 1);
  }
  const double expected = fc->weight.norm(2, {1}).max().item<double>();

  std::promise<void> opened;
  summary::HistRecord record;
  auto job = std::make_unique<summary::HistJob>(
      summary::HistJob{"fc.weight", 100, &fc->weight, opened.get_future().share()});  // BUG(libtorch-worker-missing-clone)
  std::thread writer = summary::start_hist_writer(std::move(job), record);

  {
    torch::NoGradGuard ng;
    fc->weight.renorm_(2, 0, 0.5);  // BUG(libtorch-worker-missing-clone)
  }
  opened.set_value();
  writer.join();

  std::cout << "row norm at step 100: " << expected << ", logged " << record.max_row_norm
            << "\n";
  if (std::abs(record.max_row_norm - expected) > 1e-4)
    std::cout << "HARM: histogram of step 100 shows the max-norm-clamped weight (row norm "
              << record.max_row_norm << " instead of " << expected << ")\n";
  return 0;
}
