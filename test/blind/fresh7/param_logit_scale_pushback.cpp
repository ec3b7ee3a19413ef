// CASE: a CLIP-style model registers its learnable temperature; the training
//       script appends model->logit_scale to model->parameters() "so that the
//       temperature is trained", listing it twice for Adam
// SOURCE: the kind of code in contrastive (CLIP / SimCLR) ports to libtorch
//         that add the temperature to the optimizer by hand
// KIND: bug
// HARM: after one step logit_scale has moved about twice as far as Adam's
//       step size
#include <torch/torch.h>

#include <cmath>
#include <iostream>

struct DualEncoderImpl : torch::nn::Module {
  DualEncoderImpl() {
    image = register_module("image", torch::nn::Linear(6, 4));
    text = register_module("text", torch::nn::Linear(5, 4));
    logit_scale = register_parameter("logit_scale", torch::full({}, std::log(1.0 / 0.07)));
  }
  torch::Tensor forward(const torch::Tensor& img, const torch::Tensor& txt) {
    auto a = torch::nn::functional::normalize(image(img),
                                              torch::nn::functional::NormalizeFuncOptions().dim(1));
    auto b = torch::nn::functional::normalize(text(txt),
                                              torch::nn::functional::NormalizeFuncOptions().dim(1));
    return logit_scale.exp() * a.mm(b.t());
  }
  torch::nn::Linear image{nullptr}, text{nullptr};
  torch::Tensor logit_scale;
};
TORCH_MODULE(DualEncoder);

std::vector<torch::Tensor> trainable(DualEncoder& model) {
  auto params = model->parameters();
  params.push_back(model->logit_scale);  // BUG(libtorch-shared-parameter-update)
  return params;
}

int main() {
  torch::manual_seed(4);
  DualEncoder model;
  const double lr = 1e-2;
  torch::optim::Adam opt(trainable(model), torch::optim::AdamOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto img = torch::randn({8, 6});
  auto txt = torch::randn({8, 5});
  auto labels = torch::arange(8);
  const double before = model->logit_scale.item<double>();

  opt.zero_grad();
  auto logits = model->forward(img, txt);
  auto loss = (torch::nn::functional::cross_entropy(logits, labels) +
               torch::nn::functional::cross_entropy(logits.t(), labels)) / 2;
  loss.backward();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double moved = std::abs(model->logit_scale.item<double>() - before);
  std::cout << "logit_scale moved by " << moved << " with lr " << lr << "\n";
  if (moved > 1.5 * lr)
    std::cout << "HARM: Adam moved logit_scale by " << moved << ", about twice its step size "
              << lr << "\n";
  return 0;
}
