// CASE: a mean-teacher / EMA setup keeps its teacher in a std::vector filled
//       with push_back(student), a ModuleHolder copy that shares the student;
//       the EMA update after each step then scales the student's weights
// SOURCE: https://github.com/sebtheiler/tutorials/issues/6 (target network and
//         online network updated together because they were the same)
// KIND: bug
// HARM: the student's weights change during the EMA update
#include <torch/torch.h>

#include <cstdio>
#include <vector>

int main() {
  torch::manual_seed(18);
  torch::nn::Sequential student(torch::nn::Linear(5, 5), torch::nn::ReLU(), torch::nn::Linear(5, 2));
  std::vector<torch::nn::Sequential> teachers;
  teachers.push_back(student);  // BUG(libtorch-shared-parameter-update)

  torch::optim::SGD opt(student->parameters(), 0.1);
  auto x = torch::randn({8, 5});
  auto y = torch::randn({8, 2});
  opt.zero_grad();
  torch::mse_loss(student->forward(x), y).backward();
  opt.step();

  auto after_step = student->parameters()[0].detach().clone();
  const double decay = 0.99;
  {
    torch::NoGradGuard no_grad;
    auto t_params = teachers[0]->parameters();
    auto s_params = student->parameters();
    for (size_t i = 0; i < t_params.size(); ++i) {
      t_params[i].mul_(decay).add_(s_params[i], 1.0 - decay);  // BUG(libtorch-shared-parameter-update)
    }
  }
  const double drift = (student->parameters()[0].detach() - after_step).abs().max().item<double>();
  std::printf("student weight changed by %.6g during the EMA update\n", drift);
  if (drift > 0) std::printf("HARM: the EMA teacher update rewrote the student\n");
  return 0;
}
