// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

#include <torch/torch.h>

// Note [Module state written before backward]: a module call saves some of
// the module's state for the backward of its result (a Linear layer its
// weight, a user's module what its forward's operations save). Writing that
// state between the forward and the backward breaks the backward.

struct TwoLayerImpl : torch::nn::Module {
  TwoLayerImpl() : fc1(4, 8), fc2(8, 1) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc2(fc1(x).tanh()); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(TwoLayer);

// Positive: clipping every parameter through data() before the backward of
// a loss the forward computed.

void PositiveClipBeforeBackward(TwoLayer net, const torch::Tensor &x) {
  auto loss = net->forward(x).sum();
  for (auto &p : net->parameters())
    p.data().clamp_(-0.1, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'clamp_' writes through 'data()' into the parameters of 'net' between the forward of 'net' that saved them and the backward that needs them; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-4]]:20: note: the forward of 'net' saves them for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs them runs here
  loss.backward();
}

// Positive: a single layer's weight rescaled under a NoGradGuard, with the
// result read through another function's value first.

void PositiveRescaleUnderNoGrad(const torch::Tensor &x) {
  torch::nn::Linear head(4, 2);
  auto logits = head(x.relu());
  auto loss = logits.pow(2).mean();
  {
    torch::NoGradGuard no_grad;
    head->weight.mul_(0.5);
    // CHECK-NOTES: :[[@LINE-1]]:18: warning: 'mul_' writes into member 'weight' of 'head' between the forward of 'head' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation'
    // CHECK-NOTES: :[[@LINE-6]]:17: note: the forward of 'head' saves it for backward here
    // CHECK-NOTES: :[[@LINE+2]]:3: note: the backward that needs it runs here
  }
  loss.backward();
}

// Positive: a helper renormalises the rows through detach(); the finding is
// at the write in the helper, with notes at the call and at the backward.

void renormalise(torch::nn::Linear &layer, double max_norm) {
  auto w = layer->weight.detach();
  w.div_(w.norm().clamp_min(max_norm) / max_norm);
}

void PositiveHelperBeforeBackward(const torch::Tensor &x) {
  torch::nn::Linear proj(4, 4);
  auto loss = proj(x).sum();
  renormalise(proj, 1.0);
  // CHECK-NOTES: :[[@LINE-7]]:5: warning: 'div_' writes through 'detach()' into member 'weight' of 'proj' between the forward of 'proj' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation'
  // CHECK-NOTES: :[[@LINE-2]]:3: note: 'renormalise' is called here, between the forward and the backward
  // CHECK-NOTES: :[[@LINE-4]]:15: note: the forward of 'proj' saves it for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  loss.backward();
}

// Positive: a helper that takes the tensor itself.

void clip(torch::Tensor w, double limit) { w.data().clamp_(-limit, limit); }

void PositiveTensorHelper(TwoLayer net, const torch::Tensor &x) {
  auto y = net(x);
  clip(net->fc2->weight, 0.01);
  // CHECK-NOTES: :[[@LINE-5]]:53: warning: 'clamp_' writes through 'data()' into member 'weight' of 'net' between the forward of 'net' that saved it and the backward that needs it; 'data()' does not share the version counter, so backward computes wrong gradients without an error
  // CHECK-NOTES: :[[@LINE-2]]:3: note: 'clip' is called here
  // CHECK-NOTES: :[[@LINE-4]]:12: note: the forward of 'net'
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  y.mean().backward();
}

// Positive: a buffer the forward multiplies by, set through a method of the
// module and reached through an object that holds the model.

struct ScaledImpl : torch::nn::Module {
  ScaledImpl() : fc(8, 8) { scale_ = register_buffer("scale", torch::ones({1})); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x) * scale_; }
  void set_scale(double s) {
    torch::NoGradGuard no_grad;
    scale_.fill_(s);
  }
  torch::nn::Linear fc;
  torch::Tensor scale_;
};
TORCH_MODULE(Scaled);

struct Annealer {
  Scaled &model;
  void step(int epoch) { model->set_scale(1.0 / (1 + epoch)); }
};

void PositiveSetterThroughAnotherObject(Scaled model, Annealer &annealer,
                                        const torch::Tensor &x) {
  auto out = model(x);
  annealer.step(3);
  // CHECK-NOTES: :[[@LINE-16]]:12: warning: 'fill_' writes into member 'scale_' between the forward of 'model' that saved it and the backward that needs it; backward throws
  // CHECK-NOTES: :[[@LINE-2]]:12: note: 'step' is called here
  // CHECK-NOTES: :[[@LINE-4]]:14: note: the forward of 'model'
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  out.sum().backward();
}

// Positive: standardising every weight of a `torch::nn::Module &`.

void standardise(torch::nn::Module &m) {
  for (auto &item : m.named_parameters()) {
    auto w = item.value().data();
    w.sub_(w.mean());
  }
}

void PositiveNamedParametersHelper(TwoLayer net, const torch::Tensor &x) {
  auto loss = net(x).sum();
  standardise(*net);
  // CHECK-NOTES: :[[@LINE-7]]:7: warning: 'sub_' writes through 'data()' into the parameters of 'net' between the forward of 'net' that saved them and the backward that needs them
  // CHECK-NOTES: :[[@LINE-2]]:3: note: 'standardise' is called here
  // CHECK-NOTES: :[[@LINE-4]]:15: note: the forward of 'net'
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs them runs here
  loss.backward();
}

// Negative: the same clipping after the backward, as the algorithm wants.

void NegativeClipAfterBackward(TwoLayer net, const torch::Tensor &x) {
  for (int step = 0; step < 3; ++step) {
    auto loss = net->forward(x).sum();
    loss.backward();
    for (auto &p : net->parameters())
      p.data().clamp_(-0.1, 0.1);
  }
}

// Negative: the forward ran without grad, so it saved nothing.

void NegativeForwardWithoutGrad(TwoLayer net, const torch::Tensor &x,
                                const torch::Tensor &target) {
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    y = net(x);
  }
  auto w = torch::ones({1}, torch::requires_grad());
  auto loss = (y * w - target).pow(2).sum();
  for (auto &p : net->parameters())
    p.data().clamp_(-0.1, 0.1);
  loss.backward();
}

// Negative: another module instance is written.

void NegativeOtherInstance(const torch::Tensor &x) {
  torch::nn::Linear online(4, 4), target(4, 4);
  auto loss = online(x).sum();
  renormalise(target, 1.0);
  loss.backward();
}

// Negative: the backward does not start from the module's result.

void NegativeUnrelatedBackward(TwoLayer net, const torch::Tensor &x) {
  auto y = net(x);
  auto w = torch::rand({3}, torch::requires_grad());
  auto penalty = (w * w).sum();
  clip(net->fc1->weight, 0.5);
  penalty.backward();
}

// Negative: a member the forward only adds is not saved (add saves neither
// input), so writing it before backward is harmless.

struct ShiftedImpl : torch::nn::Module {
  ShiftedImpl() : fc(8, 8) { offset_ = register_buffer("offset", torch::zeros({8})); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x) + offset_; }
  torch::nn::Linear fc;
  torch::Tensor offset_;
};
TORCH_MODULE(Shifted);

void NegativeUnsavedMember(Shifted model, const torch::Tensor &x) {
  auto loss = model(x).sum();
  {
    torch::NoGradGuard no_grad;
    model->offset_.fill_(0.5);
  }
  loss.backward();
}

// Negative: a direct write outside a no-grad scope is refused by autograd at
// once (a parameter is a leaf that requires grad); not this rule's finding.

void NegativeDirectWriteWithGrad(const torch::Tensor &x) {
  torch::nn::Linear head(4, 2);
  auto loss = head(x).sum();
  head->weight.mul_(0.5);
  loss.backward();
}

// Positive: a buffer written directly, with grad on: autograd allows it (a
// buffer does not require grad), and backward throws.

struct TemperedImpl : torch::nn::Module {
  TemperedImpl() : fc(8, 4) {
    temperature = register_buffer("temperature", torch::ones({1}));
  }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x) * temperature; }
  void anneal(double t) { temperature.fill_(t); }
  torch::nn::Linear fc;
  torch::Tensor temperature;
};
TORCH_MODULE(Tempered);

void PositiveBufferWrittenWithGradOn(Tempered student, const torch::Tensor &x) {
  auto loss = student(x).sum();
  student->anneal(0.5);
  // CHECK-NOTES: :[[@LINE-9]]:39: warning: 'fill_' writes into member 'temperature' of 'student' between the forward of 'student' that saved it and the backward that needs it; backward throws
  // CHECK-NOTES: :[[@LINE-2]]:12: note: 'anneal' is called here
  // CHECK-NOTES: :[[@LINE-4]]:15: note: the forward of 'student'
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  loss.backward();
}

// Note [Optimizer steps]: a step of an optimizer built from one module's
// parameters writes them all. Both losses are built first, then the
// discriminator is stepped, then the generator's loss, computed through the
// discriminator before the step, is differentiated.

void PositiveStepBeforeSecondBackward(TwoLayer generator, TwoLayer critic,
                                      const torch::Tensor &z,
                                      const torch::Tensor &real) {
  torch::optim::Adam opt_critic(critic->parameters());
  auto fake = generator(z);
  auto critic_loss = critic(real).mean() - critic(fake.detach()).mean();
  auto generator_loss = critic(fake).mean();
  critic_loss.backward();
  opt_critic.step();
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'step' writes into the parameters of 'critic' between the forward of 'critic' that saved them and the backward that needs them; backward throws
  // CHECK-NOTES: :[[@LINE-4]]:25: note: the forward of 'critic' saves them for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs them runs here
  generator_loss.backward();
}

// Negative: the generator's loss is computed after the step.

void NegativeStepThenNewLoss(TwoLayer generator, TwoLayer critic,
                             const torch::Tensor &z, const torch::Tensor &real) {
  torch::optim::Adam opt_critic(critic->parameters());
  auto fake = generator(z);
  auto critic_loss = critic(real).mean() - critic(fake.detach()).mean();
  critic_loss.backward();
  opt_critic.step();
  auto generator_loss = critic(fake).mean();
  generator_loss.backward();
}

// Negative: the step is of another module's optimizer.

void NegativeOtherModulesStep(TwoLayer generator, TwoLayer critic,
                              const torch::Tensor &z) {
  torch::optim::Adam opt_generator(generator->parameters());
  auto generator_loss = critic(generator(z)).mean();
  generator_loss.backward();
  opt_generator.step();
  auto again = critic(generator(z).detach()).mean();
  opt_generator.step();
  again.backward();
}

// Negative: the variable the forward's result went into is given a new
// forward's result after the step, and the backward starts from that one.

void NegativeResultRecomputedAfterStep(TwoLayer generator, TwoLayer critic,
                                       const torch::Tensor &z,
                                       const torch::Tensor &real) {
  torch::optim::Adam opt_critic(critic->parameters());
  auto scores = critic(real);
  auto critic_loss = scores.mean();
  scores = critic(generator(z).detach());
  critic_loss = critic_loss - scores.mean();
  critic_loss.backward();
  opt_critic.step();
  scores = critic(generator(z));
  auto generator_loss = scores.mean();
  generator_loss.backward();
}

// Note [A module call writes its own state]: an Embedding built with
// max_norm renormalises its weight in forward.

struct TiedLanguageModelImpl : torch::nn::Module {
  TiedLanguageModelImpl()
      : embed(torch::nn::EmbeddingOptions(100, 16).max_norm(1.0)), cell(16, 16) {}
  torch::Tensor forward(const torch::Tensor &context, const torch::Tensor &next) {
    auto h = cell(embed(context));
    auto logits = torch::matmul(h, embed->weight.t());
    auto target = embed(next);
    // CHECK-NOTES: :[[@LINE-1]]:19: warning: 'embed' writes in place into member 'weight', which 'matmul' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation'
    // CHECK-NOTES: :[[@LINE-3]]:19: note: 'matmul' saves 'weight' for backward here
    return logits.sum() + target.sum();
  }
  torch::nn::Embedding embed;
  torch::nn::Linear cell;
};

// Positive: the second lookup renormalises the weight the first saved.

void PositiveTwoLookups(const torch::Tensor &a, const torch::Tensor &b) {
  torch::nn::Embedding table(torch::nn::EmbeddingOptions(10, 4).max_norm(1.0));
  auto first = table(a);
  auto second = table(b);
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'table' writes into member 'weight' of 'table' between the forward of 'table' that saved it and the backward that needs it; backward throws
  // CHECK-NOTES: :[[@LINE-3]]:16: note: the forward of 'table' saves it for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  (first.sum() + second.sum()).backward();
}

// Negative: without max_norm the lookups write nothing.

void NegativeTwoLookupsWithoutMaxNorm(const torch::Tensor &a,
                                      const torch::Tensor &b) {
  torch::nn::Embedding table(10, 4);
  auto first = table(a);
  auto second = table(b);
  (first.sum() + second.sum()).backward();
}

// Negative: the projection saved another embedding's weight.

void NegativeOtherTable(const torch::Tensor &h, const torch::Tensor &ids) {
  torch::nn::Embedding users(torch::nn::EmbeddingOptions(10, 4).max_norm(1.0));
  torch::nn::Embedding items(10, 4);
  auto scores = torch::matmul(h, items->weight.t());
  auto picked = users(ids);
  (scores.sum() + picked.sum()).backward();
}

// Negative: two submodules of one module share no state. The max-norm
// lookup of `items` writes its own weight, which the forward of `users`
// did not save; the score matrix is built from a clone of it.

struct TwoTowerImpl : torch::nn::Module {
  TwoTowerImpl()
      : users(10, 4), items(torch::nn::EmbeddingOptions(20, 4).max_norm(1.0)) {}
  torch::Tensor forward(const torch::Tensor &u, const torch::Tensor &i) {
    auto user = users(u);
    auto all = torch::matmul(user, items->weight.clone().t());
    auto picked = items(i);
    return all.sum() - (user * picked).sum();
  }
  torch::nn::Embedding users, items;
};

// Positive: the same submodule looked up twice in one forward; the
// instance is the submodule member, reached from `this` and from a handle.

struct TwoLookupsImpl : torch::nn::Module {
  TwoLookupsImpl()
      : users(10, 4), items(torch::nn::EmbeddingOptions(20, 4).max_norm(1.0)) {}
  torch::Tensor forward(const torch::Tensor &pos, const torch::Tensor &neg) {
    auto user = users(pos);
    auto good = items(pos);
    auto bad = items(neg);
    // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'items' writes into member 'weight' between the forward of 'items' that saved it and the backward that needs it; backward throws
    // CHECK-NOTES: :[[@LINE-3]]:17: note: the forward of 'items' saves it for backward here
    // CHECK-NOTES: :[[@LINE+1]]:5: note: the backward that needs it runs here
    return (user * good).sum() - (user * bad).sum();
  }
  torch::nn::Embedding users, items;
};

void NegativeSiblingHandles(const torch::Tensor &ids) {
  std::vector<torch::nn::Embedding> tables;
  torch::nn::Embedding first(10, 4);
  torch::nn::Embedding second(torch::nn::EmbeddingOptions(10, 4).max_norm(1.0));
  auto a = first(ids);
  auto b = second(ids);
  (a.sum() + b.sum()).backward();
}

// Note [A forward inside a helper]: the loss is computed by a function of
// the translation unit that runs the module it is given.

torch::Tensor lossOf(TwoLayer &model, const torch::Tensor &x) {
  return model->forward(x).pow(2).mean();
}

void PositiveForwardInHelper(TwoLayer net, const torch::Tensor &x) {
  auto loss = lossOf(net, x);
  for (auto &p : net->parameters())
    p.data().clamp_(-0.01, 0.01);
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'clamp_' writes through 'data()' into the parameters of 'net' between the forward of 'net' that saved them and the backward that needs them
  // CHECK-NOTES: :[[@LINE-4]]:15: note: the forward of 'net' saves them for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs them runs here
  loss.backward();
}

torch::Tensor scoreWithoutGrad(TwoLayer &model, const torch::Tensor &x) {
  torch::NoGradGuard no_grad;
  return model->forward(x).mean();
}

torch::Tensor lossOfInput(TwoLayer &model, const torch::Tensor &x) {
  return x.pow(2).mean();
}

// Negative: the helper's forward runs without grad, or the helper runs no
// forward of the module it is given.
void NegativeHelperForwardWithoutGrad(TwoLayer net, const torch::Tensor &x,
                                      torch::Tensor other) {
  auto score = scoreWithoutGrad(net, x);
  auto loss = lossOfInput(net, other);
  for (auto &p : net->parameters())
    p.data().clamp_(-0.01, 0.01);
  (score + loss).backward();
}
