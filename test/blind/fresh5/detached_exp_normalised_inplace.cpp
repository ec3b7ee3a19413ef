// CASE: a knowledge-distillation loss computes tempered probabilities by hand
//       to avoid an extra allocation: exp() of the scaled logits, then an
//       in-place div_ by the row sums; exp saved its output for backward, so
//       the student's backward throws
// SOURCE: distillation losses written for libtorch students (speech / vision
//         model compression); the error as reported in
//         https://github.com/pytorch/pytorch/issues/46820 and in
//         https://discuss.pytorch.org/t/leaf-variable-was-used-in-an-inplace-operation/308
// KIND: bug
// HARM: backward throws "one of the variables needed for gradient computation
//       has been modified by an inplace operation"
#include <torch/torch.h>

#include <iostream>

namespace kd {

torch::Tensor tempered_probs(const torch::Tensor& logits, double temperature) {
  auto shifted = (logits - std::get<0>(logits.max(1, /*keepdim=*/true))) / temperature;
  auto p = shifted.exp();
  p.div_(p.sum(1, /*keepdim=*/true));  // BUG(libtorch-detached-write)
  return p;
}

torch::Tensor distillation_loss(const torch::Tensor& student_logits, const torch::Tensor& teacher_logits,
                                double temperature) {
  auto target = tempered_probs(teacher_logits, temperature).detach();
  auto student = tempered_probs(student_logits, temperature);
  return -(target * student.clamp_min(1e-8).log()).sum(1).mean() * temperature * temperature;
}

}  // namespace kd

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential teacher(torch::nn::Linear(20, 64), torch::nn::ReLU(), torch::nn::Linear(64, 10));
  torch::nn::Sequential student(torch::nn::Linear(20, 16), torch::nn::ReLU(), torch::nn::Linear(16, 10));
  torch::optim::Adam opt(student->parameters(), torch::optim::AdamOptions(1e-3));

  auto x = torch::randn({8, 20});
  torch::Tensor t_logits;
  {
    torch::NoGradGuard no_grad;
    t_logits = teacher->forward(x);
  }
  opt.zero_grad();
  auto loss = kd::distillation_loss(student->forward(x), t_logits, 4.0);
  try {
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::cout << "step ok, loss " << loss.item<float>() << "\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: student backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
