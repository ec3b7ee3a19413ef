// CASE: after renaming "backbone" to "encoder", the model keeps loading old
//       checkpoints by registering the same encoder a second time under its
//       legacy name; the trainer's hand-written SGD collects
//       model->parameters() and grads and steps them with
//       torch::_foreach_add_, so every encoder tensor is stepped twice
// SOURCE: the kind of code in C++ training loops that keep state_dict
//         compatibility across a rename, and fused foreach SGD steps
// KIND: bug
// HARM: the encoder weight moves by 2 * lr * grad per step, the head by 1x

#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct EncoderImpl : torch::nn::Module {
  EncoderImpl(int64_t in, int64_t hidden)
      : proj(register_module("proj", torch::nn::Linear(in, hidden))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})))) {}
  torch::Tensor forward(torch::Tensor x) { return torch::gelu(norm->forward(proj->forward(x))); }
  torch::nn::Linear proj;
  torch::nn::LayerNorm norm;
};
TORCH_MODULE(Encoder);

struct TaggerImpl : torch::nn::Module {
  TaggerImpl(int64_t in, int64_t hidden, int64_t tags) {
    encoder = register_module("encoder", Encoder(in, hidden));
    // v1 checkpoints call it "backbone"; keep them loadable.
    register_module("backbone", encoder);  // BUG(libtorch-shared-parameter-update)
    head = register_module("head", torch::nn::Linear(hidden, tags));
  }
  torch::Tensor forward(torch::Tensor x) { return head->forward(encoder->forward(x)); }
  Encoder encoder{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Tagger);

class ForeachSGD {
 public:
  ForeachSGD(std::vector<torch::Tensor> params, double lr) : params_(std::move(params)), lr_(lr) {}
  void zero_grad() {
    for (auto& p : params_)
      if (p.grad().defined()) p.grad().zero_();
  }
  void step() {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> grads;
    grads.reserve(params_.size());
    for (auto& p : params_) grads.push_back(p.grad());
    torch::_foreach_add_(params_, grads, -lr_);  // BUG(libtorch-shared-parameter-update)
  }

 private:
  std::vector<torch::Tensor> params_;
  double lr_;
};

int main() {
  torch::manual_seed(0);
  const double lr = 0.1;
  Tagger model(12, 16, 5);
  ForeachSGD opt(model->parameters(), lr);  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({24, 12});
  auto y = torch::randint(0, 5, {24});
  opt.zero_grad();
  torch::nn::functional::cross_entropy(model->forward(x), y).backward();

  auto& w_enc = model->encoder->proj->weight;
  auto& w_head = model->head->weight;
  auto enc_before = w_enc.detach().clone(), head_before = w_head.detach().clone();
  auto enc_expected = (lr * w_enc.grad()).norm().item<double>();
  auto head_expected = (lr * w_head.grad()).norm().item<double>();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  double enc_ratio = (enc_before - w_enc.detach()).norm().item<double>() / enc_expected;
  double head_ratio = (head_before - w_head.detach()).norm().item<double>() / head_expected;
  std::printf("%zu tensors stepped; encoder moved %.2f x lr*grad, head %.2f x\n",
              model->parameters().size(), enc_ratio, head_ratio);
  if (enc_ratio > 1.5)
    std::printf("HARM: the encoder weight moved %.2f x lr*grad in one step "
                "(listed under \"encoder\" and \"backbone\")\n", enc_ratio);
  return 0;
}
