// CASE: an inference server's `preprocess(const at::Tensor& img)` takes
//       `auto x = img.contiguous();` believing it makes a private copy, then
//       normalises the colour planes in place through narrow()/select(); the
//       decoded image it is given is already contiguous, so `x` is the
//       caller's tensor, which is later JPEG-encoded for the audit log
// SOURCE: the kind of code in TorchServe-style C++ handlers and libtorch
//         deployment samples ("call .contiguous() before from/to the model");
//         contiguous() returns `self` when the tensor is already contiguous
// KIND: bug
// HARM: the image written to the audit log is the normalised tensor, not
//       the decoded pixels
#include <torch/torch.h>
#include <iostream>

at::Tensor preprocess(const at::Tensor& img) {  // (3, H, W) float in [0, 1]
  auto x = img.contiguous(); // BUG(libtorch-inplace-on-view)
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdv[3] = {0.229f, 0.224f, 0.225f};
  for (int64_t c = 0; c < 3; ++c)
    x.select(0, c).sub_(mean[c]).div_(stdv[c]); // BUG(libtorch-inplace-on-view)
  x.narrow(1, 0, 2).zero_();  // mask the camera's timestamp strip // BUG(libtorch-inplace-on-view)
  return x.unsqueeze(0);
}

at::Tensor decode_jpeg_stub(int64_t h, int64_t w) {
  return torch::linspace(0, 1, 3 * h * w).view({3, h, w});  // contiguous, like a decoder's output
}

double audit_log_mean(const at::Tensor& img) { return img.mean().item<double>(); }

int main() {
  auto img = decode_jpeg_stub(8, 8);
  const double decoded_mean = img.mean().item<double>();
  auto batch = preprocess(img);
  std::cout << "model input " << batch.sizes() << "\n";
  const double logged = audit_log_mean(img);
  std::cout << "decoded mean " << decoded_mean << ", logged mean " << logged << "\n";
  if (std::abs(logged - decoded_mean) > 1e-6)
    std::cout << "HARM: contiguous() returned the caller's image itself; the audit log got "
                 "the normalised tensor\n";
  return 0;
}
