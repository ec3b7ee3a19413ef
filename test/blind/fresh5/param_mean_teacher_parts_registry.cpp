// CASE: a Mean-Teacher trainer keeps a registry of named model parts
//       ("backbone", "head" and "model" for full checkpoints) for student and
//       teacher; a templated EMA helper zips the parts' parameters() into
//       (teacher, student) pairs, so the whole-model entry repeats every
//       backbone and head tensor and each update decays the teacher twice
// SOURCE: semi-supervised segmentation trainers (Mean Teacher / EMA teacher)
//         ported to libtorch; shared entries in parameter lists:
//         https://github.com/torch/nn/issues/613
// KIND: bug
// HARM: the teacher moves with effective decay 0.9801 instead of 0.99
#include <torch/torch.h>

#include <iostream>
#include <memory>

struct SegNetImpl : torch::nn::Module {
  SegNetImpl() {
    backbone = register_module("backbone", torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)),
                                                                 torch::nn::ReLU()));
    head = register_module("head", torch::nn::Conv2d(8, 4, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) { return head->forward(backbone->forward(x)); }
  torch::nn::Sequential backbone{nullptr};
  torch::nn::Conv2d head{nullptr};
};
TORCH_MODULE(SegNet);

using Parts = std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>>;

Parts parts_of(SegNet& net) {
  return {{"backbone", net->backbone.ptr()}, {"head", net->head.ptr()}, {"model", net.ptr()}};  // BUG(libtorch-shared-parameter-update)
}

template <class Registry>
class EmaTeacher {
 public:
  EmaTeacher(const Registry& teacher, const Registry& student, double decay) : decay_(decay) {
    for (size_t i = 0; i < teacher.size(); ++i) {
      auto t = teacher[i].second->parameters();
      auto s = student[i].second->parameters();
      for (size_t j = 0; j < t.size(); ++j) pairs_.emplace_back(t[j], s[j]);  // BUG(libtorch-shared-parameter-update)
    }
  }
  void update() {
    torch::NoGradGuard no_grad;
    for (auto& [t, s] : pairs_) t.mul_(decay_).add_(s, 1.0 - decay_);  // BUG(libtorch-shared-parameter-update)
  }

 private:
  double decay_;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> pairs_;
};

int main() {
  torch::manual_seed(0);
  SegNet student, teacher;
  {
    torch::NoGradGuard no_grad;
    auto sp = student->parameters(), tp = teacher->parameters();
    for (size_t i = 0; i < sp.size(); ++i) tp[i].copy_(sp[i]);
  }
  for (auto& p : teacher->parameters()) p.set_requires_grad(false);
  auto student_parts = parts_of(student), teacher_parts = parts_of(teacher);
  EmaTeacher<Parts> ema(teacher_parts, student_parts, 0.99);  // BUG(libtorch-shared-parameter-update)
  torch::optim::SGD opt(student->parameters(), torch::optim::SGDOptions(0.5));

  auto img = torch::randn({2, 3, 8, 8});
  auto mask = torch::randint(0, 4, {2, 8, 8}, torch::kLong);
  opt.zero_grad();
  torch::nn::functional::cross_entropy(student->forward(img), mask).backward();
  opt.step();

  auto t_w = teacher->head->weight, s_w = student->head->weight;
  auto expected = 0.99 * t_w.clone() + 0.01 * s_w.detach();
  ema.update();  // BUG(libtorch-shared-parameter-update)

  float off = (t_w - expected).abs().max().item<float>();
  float eff = 0.99f * ((t_w - s_w.detach()).norm() / (expected - s_w.detach()).norm()).item<float>();
  std::cout << "teacher head deviation from one EMA step: " << off << "\n";
  if (off > 1e-6f)
    std::cout << "HARM: teacher head moved with effective decay " << eff << " instead of 0.99\n";
  return 0;
}
