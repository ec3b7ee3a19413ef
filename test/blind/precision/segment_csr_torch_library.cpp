// CASE: a torch-scatter-style `segment_sum_csr` CPU kernel writes each
//       segment's sum into row `s` of the `out` tensor it receives; the op is
//       registered with TORCH_LIBRARY, its schema marks `out` as written
//       (Tensor(a!)), and the Python-facing wrapper allocates `out` with
//       new_zeros before dispatching
// SOURCE: the kind of code in rusty1s/pytorch_scatter csrc/cpu/segment_csr_cpu.cpp
//         and csrc/segment_csr.cpp (TORCH_LIBRARY(torch_scatter, m) registrations)
// KIND: near-miss
// WHY-OK: `out` is the operator's declared output argument; its only callers
//         pass a freshly allocated tensor and read it as the result
#include <torch/torch.h>
#include <torch/library.h>
#include <iostream>

void segment_sum_csr_cpu(const at::Tensor& src, const at::Tensor& indptr,
                         at::Tensor out) {
  TORCH_CHECK(indptr.dim() == 1 && out.size(0) == indptr.size(0) - 1,
              "segment_sum_csr: out must have one row per segment");
  auto ptr = indptr.accessor<int64_t, 1>();
  for (int64_t s = 0; s + 1 < indptr.size(0); ++s) {
    const int64_t beg = ptr[s], len = ptr[s + 1] - ptr[s];
    if (len == 0) {
      out[s].zero_();
      continue;
    }
    out[s] = src.narrow(0, beg, len).sum(0);
  }
}

TORCH_LIBRARY(tscatter, m) {
  m.def("segment_sum_csr(Tensor src, Tensor indptr, Tensor(a!) out) -> ()");
}

TORCH_LIBRARY_IMPL(tscatter, CPU, m) {
  m.impl("segment_sum_csr", TORCH_FN(segment_sum_csr_cpu));
}

// What the Python wrapper (torch_scatter.segment_csr) does.
at::Tensor segment_csr(const at::Tensor& src, const at::Tensor& indptr) {
  auto out = src.new_zeros({indptr.size(0) - 1, src.size(1)});
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("tscatter::segment_sum_csr", "")
                       .typed<void(const at::Tensor&, const at::Tensor&, at::Tensor)>();
  op.call(src, indptr, out);
  return out;
}

int main() {
  // Node features of three graphs batched together: 2, 0 and 3 nodes.
  auto x = torch::arange(10, torch::kFloat).view({5, 2});
  auto indptr = torch::tensor({0, 2, 2, 5}, torch::kLong);
  auto pooled = segment_csr(x, indptr);
  std::cout << "graph sums:\n" << pooled << "\n";
  auto expect = torch::stack({x.narrow(0, 0, 2).sum(0), torch::zeros({2}),
                              x.narrow(0, 2, 3).sum(0)});
  std::cout << "matches reference: " << std::boolalpha << pooled.equal(expect) << "\n";
  return 0;
}
