#include <thread>
#include <torch/torch.h>
void normalize_inplace(torch::Tensor x) { x.div_(255); }
torch::Tensor load(torch::Tensor batch) {
  std::thread worker(normalize_inplace, batch);
  torch::Tensor mean = batch.mean();
  worker.join();
  return mean;
}
