// CASE: several inference threads share one model and one input tensor
//       read-only; the weights are fine-tuned only after every thread joined
// SOURCE: https://discuss.pytorch.org/t/implication-of-multithreading-with-a-model-without-mutexes-in-libtorch/119347
//         (many threads running forward on one model pointer)
// KIND: near-miss
// WHY-OK: nothing writes the shared tensors while the threads run; the update
//         comes after join()
#include <torch/torch.h>

#include <cstdio>
#include <thread>
#include <vector>

int main() {
  torch::manual_seed(10);
  torch::nn::Linear model(8, 4);
  auto shared_input = torch::randn({2, 8});
  torch::Tensor expected;
  {
    torch::NoGradGuard g;
    expected = model(shared_input);
  }

  std::vector<torch::Tensor> outputs(4);
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i) {
    workers.emplace_back([&, i] {
      torch::NoGradGuard g;
      outputs[i] = model->forward(shared_input);
    });
  }
  for (auto& t : workers) t.join();

  {
    torch::NoGradGuard g;
    model->weight.mul_(0.9);  // fine-tune step after all readers are done
  }

  bool all_equal = true;
  for (auto& o : outputs) all_equal = all_equal && torch::allclose(o, expected);
  std::printf("all worker outputs match the reference: %s\n", all_equal ? "yes" : "no");
  if (!all_equal) std::printf("HARM: a worker saw modified weights\n");
  return 0;
}
