// CASE: a torch-sparse-style CSR sparse x dense matmul: `spmm_sum` allocates
//       the result with torch::zeros and calls `spmm_sum_out`, which splits
//       the rows into at::parallel_for blocks and hands each block's
//       `out.narrow(0, begin, len)` to `accumulate_rows`, which adds scaled
//       dense rows into `out_rows[r]`
// SOURCE: the kind of code in rusty1s/pytorch_sparse csrc/cpu/spmm_cpu.cpp
//         (spmm_cpu: out allocated, AT_DISPATCH + at::parallel_for over row
//         chunks) and PyG's torch_geometric CPU kernels
// KIND: near-miss
// WHY-OK: `out` is the result its caller just allocated; each parallel block
//         writes only its own disjoint row range of it
#include <torch/torch.h>
#include <ATen/Parallel.h>
#include <iostream>

static void accumulate_rows(at::Tensor out_rows, int64_t row_begin, const at::Tensor& rowptr,
                            const at::Tensor& col, const at::Tensor& value,
                            const at::Tensor& mat) {
  auto ptr = rowptr.accessor<int64_t, 1>();
  auto cols = col.accessor<int64_t, 1>();
  auto vals = value.accessor<float, 1>();
  for (int64_t r = 0; r < out_rows.size(0); ++r)
    for (int64_t e = ptr[row_begin + r]; e < ptr[row_begin + r + 1]; ++e)
      out_rows[r].add_(mat[cols[e]], vals[e]);
}

at::Tensor& spmm_sum_out(const at::Tensor& rowptr, const at::Tensor& col,
                         const at::Tensor& value, const at::Tensor& mat, at::Tensor& out) {
  const int64_t rows = rowptr.numel() - 1;
  TORCH_CHECK(out.size(0) == rows && out.size(1) == mat.size(1), "spmm: bad out shape");
  at::parallel_for(0, rows, /*grain_size=*/2, [&](int64_t begin, int64_t end) {
    accumulate_rows(out.narrow(0, begin, end - begin), begin, rowptr, col, value, mat);
  });
  return out;
}

at::Tensor spmm_sum(const at::Tensor& rowptr, const at::Tensor& col, const at::Tensor& value,
                    const at::Tensor& mat) {
  auto out = torch::zeros({rowptr.numel() - 1, mat.size(1)}, mat.options());
  return spmm_sum_out(rowptr, col, value, mat, out);
}

int main() {
  torch::manual_seed(0);
  auto dense_adj = (torch::rand({6, 5}) > 0.5).to(torch::kFloat) * torch::rand({6, 5});
  auto nz = dense_adj.nonzero();  // row-major order
  auto row = nz.select(1, 0), col = nz.select(1, 1).contiguous();
  auto value = dense_adj.index({row, col});
  auto rowptr = torch::zeros({7}, torch::kLong);
  rowptr.narrow(0, 1, 6).copy_(torch::bincount(row, {}, 6).cumsum(0));
  auto mat = torch::randn({5, 3});
  auto y = spmm_sum(rowptr, col, value, mat);
  std::cout << "spmm " << y.sizes() << " max |diff| vs dense matmul = "
            << (y - dense_adj.matmul(mat)).abs().max().item<float>() << "\n";
  return 0;
}
