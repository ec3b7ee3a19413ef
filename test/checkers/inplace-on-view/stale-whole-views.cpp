// RUN: %check_clang_tidy --fix-notes %s libtorch-inplace-on-view %t -- -- %mock_torch

// Note [A view read after its base changed]: a view of the whole tensor
// (`view`, `reshape`, `t()`, `expand`) is the same tensor seen another way,
// and reading it after an update is usually meant. An expression that reads
// both the view and the tensor after the update treats them as two values:
// the view is taken for the old ones, and holds the new.

#include <torch/torch.h>

// Welford's update: M2 += sum((x - old mean) * (x - new mean)).
class RunningMoments {
public:
  void update(const torch::Tensor &batch, double weight) {
    auto old_mean = mean_.expand({batch.size(0), -1});
    // CHECK-FIXES: auto old_mean = mean_.expand({batch.size(0), -1}).clone();
    mean_.add_(batch.mean(0) - mean_, weight);
    m2_.add_(((batch - old_mean) * (batch - mean_)).sum(0));
    // CHECK-NOTES: :[[@LINE-1]]:24: warning: 'old_mean' is read after 'add_' wrote 'mean_' in place; 'old_mean' holds a view of all of it, so it reads the new values, as 'mean_' beside it does [libtorch-inplace-on-view]
    // CHECK-NOTES: :[[@LINE-3]]:11: note: 'add_' writes 'mean_' in place here
    // CHECK-NOTES: :[[@LINE-6]]:27: note: 'old_mean' is a view of 'mean_' taken here; clone it to keep the values
  }

private:
  torch::Tensor mean_, m2_;
};

// A momentum step: the change is the new weights minus the old. A record
// of one handle read against its tensor: Note [Snapshots of handles]
// reports it, once.
torch::Tensor PositiveFlatBeforeAndAfter(torch::Tensor w, const torch::Tensor &g) {
  auto before = w.view({-1});
  // CHECK-FIXES: auto before = w.view({-1}).clone();
  w.sub_(g, 0.1);
  return w.view({-1}) - before;
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'operator-' reads 'w.view({-1})' and 'before', which are one tensor: 'before' is 'view()' of 'w', which shares its storage rather than copying it, and 'sub_' has changed it in place since, so 'before' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'before' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:5: note: 'sub_' writes it in place here
}

// The transpose kept as "previous" and compared with the updated matrix.
bool PositiveTransposeComparedWithBase(torch::Tensor p, const torch::Tensor &q) {
  auto previous = p.t();
  // CHECK-FIXES: auto previous = p.t().clone();
  p.mul_(q);
  return torch::allclose(p, previous.t());
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'allclose' reads 'p' and 'previous', which are one tensor: 'previous' is 't()' of 'p', which shares its storage rather than copying it, and 'mul_' has changed it in place since, so 'previous' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-5]]:19: note: 'previous' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:5: note: 'mul_' writes it in place here
}

// The flat alias is meant to see the averaged values; the base is asked
// only its size.
float NegativeFlatReadWithTheBaseSize(torch::Tensor grad, int64_t world) {
  auto flat = grad.view({-1});
  grad.div_(double(world));
  return flat.norm().item<float>() / grad.numel();
}

// The broadcast is read alone after the update: a live view.
torch::Tensor NegativeExpandReadAlone(torch::Tensor mean, const torch::Tensor &x) {
  auto wide = mean.expand({x.size(0), -1});
  mean.add_(x.mean(0));
  return x - wide;
}

// The old mean is cloned.
torch::Tensor NegativeExpandCloned(torch::Tensor mean, const torch::Tensor &x) {
  auto old_mean = mean.expand({x.size(0), -1}).clone();
  mean.add_(x.mean(0));
  return (x - old_mean) * (x - mean);
}

// The view is taken after the update.
torch::Tensor NegativeExpandTakenAfter(torch::Tensor mean, const torch::Tensor &x) {
  mean.add_(x.mean(0));
  auto wide = mean.expand({x.size(0), -1});
  return (x - wide) * (x - mean);
}

// The view and the base are read together before the update only.
torch::Tensor NegativeReadTogetherBefore(torch::Tensor mean, const torch::Tensor &x) {
  auto wide = mean.expand({x.size(0), -1});
  auto centred = (x - wide) * (x - mean);
  mean.add_(x.mean(0));
  return centred;
}
