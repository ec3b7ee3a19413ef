// CASE: a detector fine-tune builds its "trainable" list with std::copy_if
//       over model->parameters() (backbone partly frozen) and then appends
//       the box head's parameters with std::copy into a back_inserter "to be
//       sure the head is in"; the head is a registered child, so its tensors
//       are listed twice and clip_grad_norm_ scales their gradients twice
// SOURCE: the kind of code in libtorch detection fine-tuning loops
//         (Faster R-CNN / YOLO ports freezing the stem and clipping gradients)
// KIND: bug
// HARM: after clipping to max_norm 1.0 the true gradient norm is well below 1
//       (the overcounted norm and the double scaling of the head)
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <iterator>
#include <vector>

struct DetectorImpl : torch::nn::Module {
  DetectorImpl() {
    stem = register_module("stem", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)));
    neck = register_module("neck", torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 8, 3).padding(1)));
    box_head = register_module("box_head", torch::nn::Linear(8, 4));
  }
  torch::Tensor forward(const torch::Tensor& img) {
    auto f = torch::relu(neck(torch::relu(stem(img))));
    return box_head(f.mean({2, 3}));
  }
  torch::nn::Conv2d stem{nullptr}, neck{nullptr};
  torch::nn::Linear box_head{nullptr};
};
TORCH_MODULE(Detector);

double true_grad_norm(Detector& m) {
  double sq = 0;
  for (const auto& p : m->parameters())
    if (p.grad().defined()) sq += p.grad().pow(2).sum().item<double>();
  return std::sqrt(sq);
}

int main() {
  torch::manual_seed(0);
  Detector model;
  for (auto& p : model->stem->parameters()) p.requires_grad_(false);

  std::vector<torch::Tensor> trainable;
  auto all = model->parameters();
  std::copy_if(all.begin(), all.end(), std::back_inserter(trainable),
               [](const torch::Tensor& p) { return p.requires_grad(); });
  auto head = model->box_head->parameters();
  std::copy(head.begin(), head.end(), std::back_inserter(trainable));  // BUG(libtorch-shared-parameter-update)

  auto img = torch::randn({4, 3, 16, 16});
  auto boxes = torch::randn({4, 4}) * 50;
  torch::mse_loss(model(img), boxes).backward();
  std::cout << "gradient norm before clipping " << true_grad_norm(model) << "\n";

  torch::nn::utils::clip_grad_norm_(trainable, 1.0);  // BUG(libtorch-shared-parameter-update)
  const double after = true_grad_norm(model);
  std::cout << "gradient norm after clipping to 1.0: " << after << "\n";
  if (std::abs(after - 1.0) > 1e-3)
    std::cout << "HARM: clip_grad_norm_ over a list with the head twice left norm " << after
              << " instead of 1.0\n";

  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(1e-2).momentum(0.9));
  opt.step();
  return 0;
}
