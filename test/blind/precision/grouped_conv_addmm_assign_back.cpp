// CASE: an mmcv/DCN-style grouped convolution forward: im2col columns per
//       image, then for each group
//       `out_buf[b][g] = out_buf[b][g].flatten(1).addmm_(w[g].flatten(1), cols[g]).view_as(out_buf[b][g])`
//       into an output buffer the function allocated with at::zeros and
//       reshaped with view(); the buffer is returned
// SOURCE: the kind of code in mmcv/ops/csrc/pytorch/deform_conv.cpp
//         (deform_conv_forward: output_buffer[elt][g] = ...addmm_...view_as)
//         and the DCNv2 / mmdeploy modulated_deform_conv CPU/CUDA ports
// KIND: near-miss
// WHY-OK: out_buf is a fresh contiguous buffer, so the flatten and view_as are
//         views of it by construction; the addmm_ result is assigned back
//         into the same slot it came from
#include <torch/torch.h>
#include <iostream>

at::Tensor grouped_conv2d_forward(const at::Tensor& input, const at::Tensor& weight,
                                  const at::Tensor& bias, int64_t group, int64_t pad) {
  const int64_t batch = input.size(0), in_c = input.size(1);
  const int64_t out_c = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  const int64_t out_h = input.size(2) + 2 * pad - kh + 1;
  const int64_t out_w = input.size(3) + 2 * pad - kw + 1;
  TORCH_CHECK(in_c % group == 0 && out_c % group == 0, "channels must divide by group");

  auto out_buf = at::zeros({batch, out_c, out_h, out_w}, input.options());
  out_buf = out_buf.view({batch, group, out_c / group, out_h, out_w});
  auto w = weight.view({group, out_c / group, in_c / group, kh, kw});

  for (int64_t b = 0; b < batch; ++b) {
    auto columns = at::im2col(input.narrow(0, b, 1), {kh, kw}, {1, 1}, {pad, pad}, {1, 1});
    columns = columns.view({group, in_c / group * kh * kw, out_h * out_w});
    for (int64_t g = 0; g < group; ++g) {
      out_buf[b][g] =
          out_buf[b][g].flatten(1).addmm_(w[g].flatten(1), columns[g]).view_as(out_buf[b][g]);
    }
  }
  out_buf = out_buf.view({batch, out_c, out_h, out_w});
  out_buf += bias.view({1, out_c, 1, 1});
  return out_buf;
}

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({2, 4, 7, 7});
  auto w = torch::randn({6, 2, 3, 3});
  auto b = torch::randn({6});
  auto y = grouped_conv2d_forward(x, w, b, /*group=*/2, /*pad=*/1);
  auto ref = torch::conv2d(x, w, b, /*stride=*/1, /*padding=*/1, /*dilation=*/1, /*groups=*/2);
  std::cout << "out " << y.sizes() << " max |diff| vs conv2d = "
            << (y - ref).abs().max().item<float>() << "\n";
  return 0;
}
