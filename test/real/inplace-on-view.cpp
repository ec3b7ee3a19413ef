// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %real_torch

#include <torch/library.h>
#include <torch/torch.h>

using torch::indexing::Slice;

void PositiveParameterView(const torch::Tensor &input) {
  auto head = input.narrow(0, 0, 1);
  // CHECK-FIXES: auto head = input.narrow(0, 0, 1).clone();
  head.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'zero_' writes in place to 'head', a view of parameter 'input'; the caller's tensor changes too [libtorch-inplace-on-view]
}

float PositiveIndexAssignment(torch::Tensor x) {
  auto rows = x.narrow(0, 0, 2);
  rows.index({Slice(), 0}) = 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'operator=' writes in place to a view of parameter 'x'
  rows[0] = 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'operator=' writes in place to a view of parameter 'x'
  return rows.sum().item<float>();
}

void PositiveOutArgument(const torch::Tensor &x, const torch::Tensor &y) {
  auto top = x.narrow(0, 0, 1);
  // CHECK-FIXES: auto top = x.narrow(0, 0, 1).clone();
  at::add_out(top, y, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'add_out' writes in place to 'top', a view of parameter 'x'
  torch::mul_out(top, y, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'mul_out' writes in place to 'top', a view of parameter 'x'
}

struct Net : torch::nn::Module {
  Net() { gain = register_parameter("gain", torch::ones({3})); }
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale, gain;
  void PositiveModuleState() {
    fc->weight.narrow(0, 0, 1).mul_(0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'mul_' writes in place to a view of member 'weight'; the object's state changes too, and autograd records the write: PyTorch throws 'a view of a leaf Variable that requires grad is being used in an in-place operation' outside a no-grad scope
    auto g = gain.select(0, 0);
    g.fill_(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'fill_' writes in place to 'g', a view of member 'gain'; the object's state changes too, and autograd records the write
  }
  // Negative: an unregistered member, and parameters under a no-grad guard
  // (Note [Writes into object state]).
  void NegativeModuleState() {
    auto s = scale.select(0, 0);
    s.fill_(1);
    torch::NoGradGuard no_grad;
    fc->weight.narrow(0, 0, 1).mul_(0.5);
    gain.select(0, 0).fill_(1);
  }
};

// Negative: a rollout buffer filling slices of its own members.
class Rollout {
public:
  void insert(const torch::Tensor &obs, const torch::Tensor &reward, int step) {
    observations_[step + 1].copy_(obs);
    rewards_.select(0, step).copy_(reward);
    returns_.index({step}) = reward;
  }
  void after_update() { observations_[0].copy_(observations_[-1]); }
  // Positive target: hands out a view of its storage.
  torch::Tensor latest() { return observations_.select(0, 0); }

private:
  torch::Tensor observations_, rewards_, returns_;
};

void PositiveHandedOut(Rollout &rollout) {
  auto last = rollout.latest();
  // CHECK-FIXES: auto last = rollout.latest().clone();
  last.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'zero_' writes in place to 'last', a view of member 'observations_', which 'latest' returned; the object's state changes too
}

void PositiveExpanded(const torch::Tensor &x, const torch::Tensor &mask) {
  auto grid = torch::zeros({3}).expand({4, 3});
  // CHECK-FIXES: auto grid = torch::zeros({3}).expand({4, 3}).clone();
  grid.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'add_' writes in place to 'grid', an expanded view of a temporary, whose elements share memory; PyTorch throws
  auto wide = x.expand_as(mask);
  // CHECK-FIXES: auto wide = x.expand_as(mask).clone();
  wide.index_put_({mask}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'index_put_' writes in place to 'wide', an expanded view of parameter 'x', whose elements share memory; PyTorch only warns and the result is silently wrong
}

void PositiveMayAlias(const torch::Tensor &x) {
  auto flat = x.reshape({-1});
  // CHECK-FIXES: auto flat = x.reshape({-1}).clone();
  flat.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'flat', a possible alias of parameter 'x' ('reshape' returns a view when the layout allows); whether 'x' changes depends on its layout at run time
  auto c = x.contiguous();
  // CHECK-FIXES: auto c = x.contiguous().clone();
  c.clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'clamp_' writes in place to 'c', a possible alias of parameter 'x'
}

torch::Tensor NegativeFillOwnBuffer(const torch::Tensor &rows, int64_t n) {
  auto out = torch::empty({n, 3});
  for (int64_t i = 0; i < n; ++i)
    out.narrow(0, i, 1).copy_(rows.select(0, i));
  out.index({Slice(), 0}) = 0;
  return out;
}

void NegativeClone(const torch::Tensor &x) {
  auto head = x.narrow(0, 0, 1).clone();
  head.zero_();
}

torch::Tensor NegativeExpandedReadOnly(const torch::Tensor &x, const torch::Tensor &y) {
  return y.add(x.expand({4, 3}));
}

torch::Tensor NegativeFreshChain(const torch::Tensor &t) { return t.add(1).div_(2); }

void NegativeOutputParameters(torch::Tensor &dst, const torch::Tensor &out,
                              const torch::Tensor &x) {
  dst.narrow(0, 0, 1).copy_(x);
  out.select(0, 0).copy_(x);
}

void negative_kernel_(const torch::Tensor &self) { self.narrow(0, 0, 1).zero_(); }

// May-alias results that the function's facts decide (Note [Layout facts]).
void NegativeDecidedCopies(const torch::Tensor &x) {
  auto c = x.t().contiguous();
  c.clamp_(0, 1);
  auto image = torch::zeros({3, 4, 4}, torch::kByte);
  auto scaled = image.to(torch::kFloat);
  scaled.div_(255);
  auto frame = torch::rand({4, 4, 3});
  frame = frame.permute({2, 0, 1}).to(torch::kFloat).div_(255);
  c.add_(image.sum() + frame.sum());
}

// Output parameters (Note [Output parameters]): written directly, returned,
// registered, or handed fresh tensors by every caller.
void NegativeKernelFillsOutput(const at::Tensor boxes, at::Tensor ious) {
  for (int64_t i = 0; i < boxes.size(0); ++i)
    ious[i] = boxes[i].sum();
  auto first = ious.narrow(0, 0, 1);
  first.mul_(2);
  at::print(first);
}

std::vector<torch::Tensor> NegativeInOut(torch::Tensor prediction,
                                         torch::Tensor mask) {
  prediction.select(-1, 0) -= prediction.select(-1, 2) / 2;
  auto row = mask.narrow(0, 0, 1);
  row.zero_();
  at::print(row);
  return {mask, prediction.select(-1, 4)};
}

void negativeRegistered(const at::Tensor &input, const at::Tensor &out) {
  auto head = out.narrow(0, 0, 1);
  head.copy_(input.narrow(0, 0, 1));
  at::print(head);
}

TORCH_LIBRARY(torchalias_test, m) {
  m.def("fill(Tensor input, Tensor(a!) out) -> ()", negativeRegistered);
}

static void negativeAccumulate(at::Tensor acc, const at::Tensor &x) {
  auto head = acc.narrow(0, 0, 1);
  head.add_(x);
  at::print(head);
}

at::Tensor CallsWithFresh(const at::Tensor &x) {
  auto acc = at::zeros({4});
  negativeAccumulate(acc, x);
  return acc;
}

torch::Tensor PositiveClonedThenWritten(const torch::Tensor &image) {
  auto work = image.clone();
  image.select(0, 0).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'zero_' writes in place to a view of parameter 'image'; the caller's tensor changes too
  return work + image.mean();
}

// Known views (Note [Layout facts]) and results copied back.
torch::Tensor NegativeKnownViews(const torch::Tensor &w, const torch::Tensor &cols,
                                 torch::Tensor grad_weight, int64_t g) {
  auto out = at::zeros({g, 4, 4});
  auto buffer = at::zeros_like(out);
  buffer = buffer.view({g, -1});
  buffer = buffer.contiguous();
  buffer.copy_(out.view({g, -1}));
  for (int64_t i = 0; i < g; ++i) {
    out[i].flatten().addmm_(w, cols);
    grad_weight[i] = grad_weight[i].flatten(1).addmm_(w, cols).view_as(grad_weight[i]);
  }
  return out + buffer.view({g, 4, 4});
}

float PositiveUnknownLayout(const torch::Tensor &input) {
  auto base = input.sigmoid();
  auto flat = base.flatten();
  // CHECK-FIXES: auto flat = base.flatten().clone();
  flat.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'flat', a possible alias of local 'base' ('flatten' returns a view when the layout allows)
  return base.sum().item<float>();
}

void draw(const torch::Tensor &t);

torch::Tensor normalized(torch::Tensor kpts, int64_t width, int64_t height) {
  kpts.select(-1, 0).div_(width);
  kpts.select(-1, 1).div_(height);
  return kpts;
}

void PositiveChangedArgumentReadAfter() {
  auto keypoints = torch::rand({17, 3});
  auto unit = normalized(keypoints, 640, 480);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'normalized' writes its argument 'keypoints' in place through a view of its parameter 'kpts', and 'keypoints' is read after the call as if it were unchanged [libtorch-inplace-on-view]
  draw(unit);
  draw(keypoints);
}

// The output parameter rebound to a view of itself on some paths only.
void NegativeRebindOnSomePaths(torch::Tensor grad_bias,
                               const torch::Tensor &g_out, int64_t group,
                               bool with_bias) {
  for (int64_t b = 0; b < g_out.size(0); ++b) {
    if (with_bias)
      grad_bias = grad_bias.view({group, -1});
    for (int64_t g = 0; g < group; ++g)
      if (with_bias)
        grad_bias[g] = grad_bias[g]
                           .view({-1, 1})
                           .addmm_(g_out[b][g], g_out[b][g].t())
                           .view(-1);
    if (with_bias)
      grad_bias = grad_bias.view({-1});
  }
}

// Note [In-place options on a tensor someone still reads], with the real
// ReLU and Dropout modules and their options.

struct ResidualBlockImpl : torch::nn::Module {
  ResidualBlockImpl() {
    fc = register_module("fc", torch::nn::Linear(8, 8));
    act = register_module(
        "act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto identity = x;
    auto out = fc(act(x));
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'act' is built to write its input in place, and its input is parameter 'x'; 'identity', which holds the same tensor, is read afterwards and sees the write
    return out + identity;
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::ReLU act{nullptr};
};

struct ConvBlockImpl : torch::nn::Module {
  ConvBlockImpl() {
    conv = register_module("conv", torch::nn::Conv2d(3, 8, 3));
    act = register_module(
        "act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  }
  torch::Tensor forward(const torch::Tensor &x) { return act(conv(x)); }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::ReLU act{nullptr};
};

// Note [A view read after its base changed], against the real headers.
float PositiveStaleColumnAfterStandardise() {
  auto table = torch::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}).view({2, 3});
  auto columns = table.unbind(1);
  auto price = columns[0];
  table.sub_(table.mean(0)).div_(table.std(0));
  return price.max().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'price' is read after 'sub_' wrote 'table' in place; 'price' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
}

class FrameHistory {
public:
  torch::Tensor oldest() const { return frames_[0]; }
  void push(const torch::Tensor &frame) {
    frames_.copy_(torch::roll(frames_, -1, 0));
    frames_[3].copy_(frame);
  }

private:
  torch::Tensor frames_ = torch::zeros({4, 8});
};

float PositiveStaleAccessorViewAfterShift(FrameHistory &history) {
  auto dropped = history.oldest();
  history.push(torch::rand({8}));
  return dropped.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'dropped' is read after 'push' wrote member 'frames_' in place; 'dropped' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
}

float NegativeWindowOverRefilledStaging(int steps) {
  auto staging = torch::zeros({8, 4});
  auto head = staging.narrow(0, 0, 2);
  float total = 0;
  for (int step = 0; step < steps; ++step) {
    staging.copy_(torch::rand({8, 4}));
    total += head.sum().item<float>();
  }
  return total;
}

float NegativeDisjointChannel() {
  auto image = torch::rand({8, 8, 3});
  auto red = image.select(2, 0);
  image.select(2, 2).mul_(0.5);
  return red.mean().item<float>();
}
