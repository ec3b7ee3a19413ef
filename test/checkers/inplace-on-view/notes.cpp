// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

#include <torch/torch.h>

void normalize(torch::Tensor t) {
  t.div_(255);
}

void PositiveThroughHelper(const torch::Tensor &images) {
  auto first = images.select(0, 0);
  // CHECK-FIXES: auto first = images.select(0, 0).clone();
  normalize(first);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'normalize' writes in place to 'first', a view of parameter 'images'; the caller's tensor changes too [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:23: note: view of parameter 'images' created here by 'select'
  // CHECK-NOTES: :[[@LINE-9]]:5: note: 'normalize' writes its parameter 't' in place here
}

torch::Tensor head_of(const torch::Tensor &x) { return x.narrow(0, 0, 1); }

void PositiveReturnedView(const torch::Tensor &x) {
  head_of(x).zero_();
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'zero_' writes in place to a view of parameter 'x'; the caller's tensor changes too
  // CHECK-NOTES: :[[@LINE-2]]:3: note: view of parameter 'x' created here by 'head_of'
}

void PositiveLambdaCapture(const torch::Tensor &x) {
  auto h = x.select(0, 1);
  auto clear = [&] { h.fill_(0); };
  // CHECK-NOTES: :[[@LINE-1]]:24: warning: 'fill_' writes in place to 'h', a view of parameter 'x'
  // CHECK-NOTES: :[[@LINE-3]]:14: note: view of parameter 'x' created here by 'select'
  // CHECK-FIXES: auto h = x.select(0, 1).clone();
  clear();
}

void PositiveInitCapture(const torch::Tensor &x) {
  auto scale = [v = x.narrow(0, 0, 2)] { v.mul_(2); };
  // CHECK-NOTES: :[[@LINE-1]]:44: warning: 'mul_' writes in place to 'v', a view of parameter 'x'
  // CHECK-NOTES: :[[@LINE-2]]:23: note: view of parameter 'x' created here by 'narrow'
  scale();
}

void PositiveBranchMerge(const torch::Tensor &x, bool first) {
  torch::Tensor target;
  if (first)
    target = x.select(0, 0);
  else
    target = torch::zeros({3});
  target.add_(1);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'add_' writes in place to 'target', a possible alias of parameter 'x' (a view of it on some paths); whether 'x' changes depends on the path taken
  // CHECK-NOTES: :[[@LINE-5]]:16: note: possible alias of parameter 'x' created here by 'select'
}

void PositiveLoopCarried(const torch::Tensor &x, int n) {
  torch::Tensor cur = x;
  for (int i = 0; i < n; ++i) {
    cur.mul_(0.5);
    // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'mul_' writes in place to 'cur', a view of parameter 'x'; the caller's tensor changes too
    // CHECK-NOTES: :[[@LINE+1]]:15: note: view of parameter 'x' created here by 'narrow'
    cur = cur.narrow(0, 0, 1);
  }
}

void NegativeEarlyReturn(const torch::Tensor &x, bool skip) {
  auto v = x.narrow(0, 0, 1);
  if (skip)
    return;
  v = v.clone();
  v.zero_();
}
