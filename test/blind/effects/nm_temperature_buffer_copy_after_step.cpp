// CASE: the distillation student with a registered inverse-temperature
//       buffer; the schedule copy_()s the new value into the buffer after
//       opt.step(), before the next forward pass
// SOURCE: the corrected ordering of a temperature-annealing loop
// KIND: near-miss
// WHY-OK: the buffer is rewritten only once the graph that saved it has been
//         run backward and freed; the next forward saves the new value
#include <torch/torch.h>

#include <cmath>
#include <cstdio>

struct StudentImpl : torch::nn::Module {
  StudentImpl() {
    fc = register_module("fc", torch::nn::Linear(16, 10));
    inv_temp_ = register_buffer("inv_temp", torch::full({1}, 1.0 / 4.0));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc(x) * inv_temp_; }
  void set_temperature(double t) {
    torch::NoGradGuard no_grad;
    inv_temp_.copy_(torch::full({1}, 1.0 / t));
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor inv_temp_;
};
TORCH_MODULE(Student);

int main() {
  torch::manual_seed(13);
  Student student;
  torch::optim::SGD opt(student->parameters(), 0.1);
  auto x = torch::randn({32, 16});
  auto teacher_probs = torch::softmax(torch::randn({32, 10}), 1);
  try {
    for (int it = 0; it < 3; ++it) {
      opt.zero_grad();
      auto logp = torch::log_softmax(student(x), 1);
      auto loss = -(teacher_probs * logp).sum(1).mean();
      loss.backward();
      opt.step();
      student->set_temperature(4.0 * std::pow(0.99, it + 1) + 1.0);
    }
    std::printf("training ran, inv_temp %.4f\n", student->inv_temp_.item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
