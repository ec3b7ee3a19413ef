// CASE: a distillation student scales its logits by a registered
//       inverse-temperature buffer; the annealing schedule is applied through
//       a setter that copy_()s into the buffer, and the training loop calls
//       the scheduler between the forward pass and backward()
// SOURCE: the kind of code in knowledge-distillation / Gumbel-softmax
//         training loops (temperature annealed once per step); compare
//         https://www.yongfengli.tk/2018/04/13/inplace-operation-in-pytorch.html
//         (multiplication needs its inputs unchanged for the gradient)
// KIND: bug
// HARM: backward throws "modified by an inplace operation": the mul in
//       forward saved the buffer the setter rewrote
#include <torch/torch.h>

#include <cmath>
#include <cstdio>

struct StudentImpl : torch::nn::Module {
  StudentImpl() {
    fc = register_module("fc", torch::nn::Linear(16, 10));
    inv_temp_ = register_buffer("inv_temp", torch::full({1}, 1.0 / 4.0));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc(x) * inv_temp_; }  // BUG(libtorch-detached-write)
  void set_temperature(double t) {
    torch::NoGradGuard no_grad;
    inv_temp_.copy_(torch::full({1}, 1.0 / t));  // BUG(libtorch-detached-write)
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor inv_temp_;
};
TORCH_MODULE(Student);

struct TempSchedule {
  Student& model;
  int step = 0;
  void advance() { model->set_temperature(4.0 * std::pow(0.99, ++step) + 1.0); }  // BUG(libtorch-detached-write)
};

int main() {
  torch::manual_seed(13);
  Student student;
  TempSchedule sched{student};
  torch::optim::SGD opt(student->parameters(), 0.1);
  auto x = torch::randn({32, 16});
  auto teacher_probs = torch::softmax(torch::randn({32, 10}), 1);
  try {
    for (int it = 0; it < 3; ++it) {
      opt.zero_grad();
      auto logp = torch::log_softmax(student(x), 1);
      auto loss = -(teacher_probs * logp).sum(1).mean();
      sched.advance();
      loss.backward();  // BUG(libtorch-detached-write)
      opt.step();
    }
    std::printf("training ran\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
