// Ground truth for Note [Module state written before backward], Note
// [Module calls] and Note [In-place modules in a Sequential]: module calls
// through the real ModuleHolder::operator() and forward, the real Linear,
// ReLU, Dropout and Sequential, their real options, and the real parameter
// lists and optimizers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %real_torch

#include <torch/torch.h>

struct CriticImpl : torch::nn::Module {
  CriticImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    fc2 = register_module("fc2", torch::nn::Linear(8, 1));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return fc2(torch::leaky_relu(fc1(x), 0.2));
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Critic);

void PositiveClipBeforeBackward(Critic critic, const torch::Tensor &real,
                                const torch::Tensor &fake) {
  auto loss = critic(fake).mean() - critic(real).mean();
  for (auto &p : critic->parameters())
    p.data().clamp_(-0.01, 0.01);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'clamp_' writes through 'data()' into the parameters of 'critic' between the forward of 'critic' that saved them and the backward that needs them; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  loss.backward();
}

void NegativeClipAfterBackward(Critic critic, const torch::Tensor &real,
                               const torch::Tensor &fake) {
  auto loss = critic(fake).mean() - critic(real).mean();
  loss.backward();
  for (auto &p : critic->parameters())
    p.data().clamp_(-0.01, 0.01);
}

static void max_norm_(torch::nn::Linear &layer, double limit) {
  torch::NoGradGuard no_grad;
  auto norms = layer->weight.norm(2, 1, /*keepdim=*/true).clamp_min(limit);
  layer->weight.mul_(limit / norms);
}

void PositiveMaxNormBeforeBackward(const torch::Tensor &x,
                                   const torch::Tensor &y) {
  torch::nn::Linear hidden(10, 32), out(32, 5);
  auto loss = torch::cross_entropy_loss(out(torch::relu(hidden(x))), y);
  max_norm_(out, 0.5);
  // CHECK-MESSAGES: :[[@LINE-8]]:17: warning: 'mul_' writes into member 'weight' of 'out' between the forward of 'out' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  loss.backward();
}

void NegativeMaxNormOfAnotherLayer(const torch::Tensor &x,
                                   const torch::Tensor &y) {
  torch::nn::Linear hidden(10, 32), out(32, 5), unused(32, 5);
  auto loss = torch::cross_entropy_loss(out(torch::relu(hidden(x))), y);
  max_norm_(unused, 0.5);
  loss.backward();
}

void PositiveSequentialWeightsThroughData(const torch::Tensor &x) {
  torch::nn::Sequential model(torch::nn::Linear(5, 12), torch::nn::Tanh(),
                              torch::nn::Linear(12, 3));
  auto loss = model->forward(x).pow(2).mean();
  for (auto &named : model->named_parameters())
    named.value().data().mul_(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'mul_' writes through 'data()' into the parameters of 'model' between the forward of 'model' that saved them
  loss.backward();
}

struct MultiTaskImpl : torch::nn::Module {
  MultiTaskImpl() {
    trunk = register_module("trunk", torch::nn::Linear(12, 24));
    head = register_module("head", torch::nn::Linear(24, 3));
    act = register_module(
        "act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    auto features = trunk(x);
    auto logits = head(features);
    auto gated = act(features);
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'act' writes in place into local 'features', which 'head' saved for backward
    return logits.sum() + gated.sum();
  }
  torch::nn::Linear trunk{nullptr}, head{nullptr};
  torch::nn::ReLU act{nullptr};
};

void PositiveSequentialDropoutAfterLeakyReLU() {
  torch::nn::Sequential disc(
      torch::nn::Linear(16, 32),
      torch::nn::LeakyReLU(
          torch::nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)),
      torch::nn::Dropout(torch::nn::DropoutOptions(0.25).inplace(true)),
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'Dropout' writes its input in place, the output of 'LeakyReLU', which 'LeakyReLU' saved for backward
      torch::nn::Linear(32, 1));
}

void NegativeSequentialReluAfterConv() {
  torch::nn::Sequential block(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3)),
      torch::nn::BatchNorm2d(8),
      torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
}

void PositiveStepBeforeGeneratorBackward(const torch::Tensor &z,
                                         const torch::Tensor &real) {
  torch::nn::Sequential G(torch::nn::Linear(2, 16), torch::nn::ReLU(),
                          torch::nn::Linear(16, 2));
  torch::nn::Sequential D(torch::nn::Linear(2, 16), torch::nn::Tanh(),
                          torch::nn::Linear(16, 1));
  torch::optim::Adam optD(D->parameters(), torch::optim::AdamOptions(2e-4));
  auto fake = G->forward(z);
  auto d_loss = D->forward(real).mean() - D->forward(fake.detach()).mean();
  auto g_loss = -D->forward(fake).mean();
  d_loss.backward();
  optD.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'step' writes into the parameters of 'D' between the forward of 'D' that saved them and the backward that needs them
  g_loss.backward();
}

// Note [A module call writes its own state]: the real Embedding with
// max_norm renormalises its weight in forward.

struct TiedLanguageModelImpl : torch::nn::Module {
  TiedLanguageModelImpl() {
    embed = register_module(
        "embed",
        torch::nn::Embedding(torch::nn::EmbeddingOptions(100, 16).max_norm(1.0)));
    cell = register_module("cell", torch::nn::GRUCell(16, 16));
  }
  torch::Tensor forward(const torch::Tensor &context, const torch::Tensor &next,
                        const torch::Tensor &state) {
    auto h = cell(embed(context), state);
    auto logits = torch::matmul(h, embed->weight.t());
    auto target = embed(next);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'embed' writes in place into member 'weight', which 'matmul' saved for backward
    return logits.sum() + target.sum();
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::GRUCell cell{nullptr};
};

// Note [A forward inside a helper]: the WGAN critic's loss computed by a
// helper, its weights clipped by another before the backward.
static torch::Tensor critic_loss(torch::nn::Sequential &critic,
                                 const torch::Tensor &real,
                                 const torch::Tensor &fake) {
  return critic->forward(fake).mean() - critic->forward(real).mean();
}

static void clip_weights(torch::nn::Module &critic, double c) {
  for (auto &p : critic.parameters())
    p.data().clamp_(-c, c);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'clamp_' writes through 'data()' into the parameters of 'critic' between the forward of 'critic' that saved them and the backward that needs them; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
}

void PositiveClipBetweenHelperForwardAndBackward(torch::nn::Sequential &critic,
                                                 const torch::Tensor &real,
                                                 const torch::Tensor &fake) {
  auto loss = critic_loss(critic, real, fake);
  clip_weights(*critic, 0.01);
  loss.backward();
}

void NegativeClipAfterBackward(torch::nn::Sequential &critic,
                               const torch::Tensor &real,
                               const torch::Tensor &fake) {
  auto loss = critic_loss(critic, real, fake);
  loss.backward();
  clip_weights(*critic, 0.01);
}

static torch::Tensor detached_score(torch::nn::Sequential &critic,
                                    const torch::Tensor &x) {
  torch::NoGradGuard no_grad;
  return critic->forward(x).mean();
}

void NegativeHelperWithoutGrad(torch::nn::Sequential &critic,
                               const torch::Tensor &x, torch::Tensor &loss) {
  auto score = detached_score(critic, x);
  clip_weights(*critic, 0.01);
  loss.backward();
}
