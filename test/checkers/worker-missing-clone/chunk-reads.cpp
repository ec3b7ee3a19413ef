// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

// at::parallel_for chunks that write only their own part but read the
// parts other chunks are writing.

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <vector>

// Positive: each row is divided by the maximum of all rows, which other
// chunks are dividing at the same time.

void PositiveGlobalMax(torch::Tensor out) {
  at::parallel_for(0, out.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).div_(out.max());
    // CHECK-NOTES: :[[@LINE-3]]:40: warning: by-reference capture 'out' shares its storage with worker entry point 'at::parallel_for' and each chunk writes it in place while other chunks read it [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE-2]]:7: note: the worker first uses 'out' here, captured by reference
    // CHECK-NOTES: :[[@LINE-3]]:24: note: 'div_' writes 'out' in place here
    // CHECK-NOTES: :[[@LINE-4]]:29: note: a chunk reads 'out' outside its own part here
  });
}

// Positive: a stencil reads its neighbours' rows, which may belong to
// another chunk.

void PositiveStencil(torch::Tensor u) {
  at::parallel_for(1, u.size(0) - 1, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      auto row = u[i];
      row.copy_((u[i - 1] + u[i + 1]) / 2);
      // CHECK-NOTES: :[[@LINE-4]]:42: warning: by-reference capture 'u' shares its storage with worker entry point 'at::parallel_for' and each chunk writes it in place while other chunks read it
      // CHECK-NOTES: :[[@LINE-3]]:18: note: the worker first uses 'u' here, captured by reference
      // CHECK-NOTES: :[[@LINE-3]]:11: note: 'copy_' writes 'u' in place here
      // CHECK-NOTES: :[[@LINE-4]]:18: note: a chunk reads 'u' outside its own part here
    }
  });
}

// Positive: a running sum over elements of a vector.

void PositivePrefixElements(std::vector<torch::Tensor> &outs) {
  at::parallel_for(1, outs.size(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      outs[i].add_(outs[i - 1]);
    // CHECK-NOTES: :[[@LINE-3]]:40: warning: by-reference capture 'outs' holds tensors that share their storage with worker entry point 'at::parallel_for' and each chunk writes them in place while other chunks read them
    // CHECK-NOTES: :[[@LINE-2]]:7: note: the worker first uses 'outs' here, captured by reference
    // CHECK-NOTES: :[[@LINE-3]]:15: note: 'add_' writes a tensor of 'outs' in place here
    // CHECK-NOTES: :[[@LINE-4]]:20: note: a chunk reads 'outs' outside its own part here
  });
}

// Negative: a chunk reads only its own row, metadata and other tensors.

void NegativeOwnRow(torch::Tensor out, torch::Tensor in) {
  at::parallel_for(0, out.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).div_(out.select(0, i).sum() + in.max());
  });
}

void NegativeMetadata(torch::Tensor out, torch::Tensor in) {
  at::parallel_for(0, out.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).copy_(in.select(0, i) / out.size(1));
  });
}

void NegativeOwnElement(std::vector<torch::Tensor> &outs) {
  at::parallel_for(0, outs.size(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      outs[i].mul_(outs[i].sum());
  });
}

// Negative: the maximum is taken before the chunks start.

void NegativeMaxBefore(torch::Tensor out) {
  auto peak = out.max();
  at::parallel_for(0, out.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).div_(peak);
  });
}
