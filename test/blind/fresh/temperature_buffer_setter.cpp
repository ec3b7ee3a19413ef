// CASE: knowledge distillation whose temperature buffer is annealed by a
//       schedule object through a setter, called after the student's forward
//       and before backward
// SOURCE: the kind of code in knowledge-distillation training loops with a
//         temperature schedule; the error is the one of the "modified by an
//         inplace operation" threads on discuss.pytorch.org
// KIND: bug
// HARM: backward throws "modified by an inplace operation": the division by
//       the temperature saved the buffer, which fill_ then bumped
#include <torch/torch.h>

#include <iostream>
#include <string>

struct StudentImpl : torch::nn::Module {
  StudentImpl() {
    fc = register_module("fc", torch::nn::Linear(8, 5));
    temperature = register_buffer("temperature", torch::full({1}, 4.0));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::log_softmax(fc->forward(x) / temperature, 1);  // BUG(libtorch-detached-write)
  }
  void set_temperature(double t) {
    temperature.fill_(t);  // BUG(libtorch-detached-write)
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor temperature;
};
TORCH_MODULE(Student);

struct TemperatureSchedule {
  double start, end;
  int total;
  void step(Student& student, int it) {
    student->set_temperature(start + (end - start) * it / total);  // BUG(libtorch-detached-write)
  }
};

int main() {
  torch::manual_seed(0);
  Student student;
  TemperatureSchedule schedule{4.0, 1.0, 100};
  torch::optim::Adam opt(student->parameters(), torch::optim::AdamOptions(1e-3));
  auto x = torch::randn({32, 8});
  auto teacher_probs = torch::softmax(torch::randn({32, 5}), 1);
  try {
    for (int it = 0; it < 5; ++it) {
      opt.zero_grad();
      auto log_p = student(x);  // BUG(libtorch-detached-write)
      auto loss = -(teacher_probs * log_p).sum(1).mean();
      schedule.step(student, it + 1);  // BUG(libtorch-detached-write)
      loss.backward();  // BUG(libtorch-detached-write)
      opt.step();
    }
    std::cout << "distillation ran\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
