// CASE: a CLIP-style training script appends a learnable logit_scale to
//       model->parameters() before building Adam
// SOURCE: the kind of code in contrastive (CLIP / SimCLR) ports to libtorch
//         that add the temperature to the optimizer by hand
// KIND: near-miss
// WHY-OK: the temperature lives in the loss object, not in the model: it is
//         registered nowhere, so parameters() does not list it and the
//         push_back adds it exactly once
#include <torch/torch.h>

#include <cmath>
#include <iostream>

struct DualEncoderImpl : torch::nn::Module {
  DualEncoderImpl() {
    image = register_module("image", torch::nn::Linear(6, 4));
    text = register_module("text", torch::nn::Linear(5, 4));
  }
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& img,
                                                  const torch::Tensor& txt) {
    auto opts = torch::nn::functional::NormalizeFuncOptions().dim(1);
    return {torch::nn::functional::normalize(image(img), opts),
            torch::nn::functional::normalize(text(txt), opts)};
  }
  torch::nn::Linear image{nullptr}, text{nullptr};
};
TORCH_MODULE(DualEncoder);

struct InfoNCE {
  torch::Tensor logit_scale = torch::full({}, std::log(1.0 / 0.07), torch::requires_grad());
  torch::Tensor operator()(const torch::Tensor& a, const torch::Tensor& b) const {
    auto logits = logit_scale.exp() * a.mm(b.t());
    auto labels = torch::arange(a.size(0));
    return (torch::nn::functional::cross_entropy(logits, labels) +
            torch::nn::functional::cross_entropy(logits.t(), labels)) / 2;
  }
};

std::vector<torch::Tensor> trainable(DualEncoder& model, const InfoNCE& criterion) {
  auto params = model->parameters();
  params.push_back(criterion.logit_scale);
  return params;
}

int main() {
  torch::manual_seed(4);
  DualEncoder model;
  InfoNCE criterion;
  const double lr = 1e-2;
  torch::optim::Adam opt(trainable(model, criterion), torch::optim::AdamOptions(lr));

  auto img = torch::randn({8, 6});
  auto txt = torch::randn({8, 5});
  const double before = criterion.logit_scale.item<double>();

  opt.zero_grad();
  auto [a, b] = model->forward(img, txt);
  criterion(a, b).backward();
  opt.step();

  const double moved = std::abs(criterion.logit_scale.item<double>() - before);
  std::cout << "logit_scale moved by " << moved << " with lr " << lr << "\n";
  if (moved > 1.5 * lr)
    std::cout << "HARM: Adam moved logit_scale by " << moved << "\n";
  return 0;
}
