// RUN: %check_clang_tidy %s libtorch-from-blob-escape %t -- -- %mock_torch

// Copies decide escapes: a from_blob tensor replaced by a copy before its
// buffer dies escapes nothing, whichever copy the layout and dtype facts
// prove (Note [Layout facts]). A from_blob tensor is contiguous, so the
// views and may-alias results that keep it contiguous copy nothing.

#include <torch/torch.h>

#include <vector>

// Negative: the image is permuted, so contiguous() copies it, also after
// views that keep its strides.

torch::Tensor NegativePermutedContiguous(int64_t h, int64_t w) {
  std::vector<unsigned char> pixels(h * w * 3);
  return torch::from_blob(pixels.data(), {h, w, 3}, torch::kByte)
      .permute({2, 0, 1})
      .unsqueeze(0)
      .contiguous();
}

torch::Tensor NegativePermutedNamed(int64_t h, int64_t w) {
  std::vector<float> pixels(h * w * 3);
  auto image = torch::from_blob(pixels.data(), {h, w, 3});
  image = image.permute({2, 0, 1});
  image = image.contiguous();
  return image;
}

// Negative: a dtype the options variable shows, converted to another.
torch::Tensor NegativeOptionsThenTo(int64_t n) {
  std::vector<unsigned char> bytes(n);
  auto options = torch::TensorOptions().dtype(torch::kByte);
  auto raw = torch::from_blob(bytes.data(), {n}, options);
  return raw.to(torch::kFloat);
}

// Positive: contiguous() of a tensor that is already contiguous returns it,
// and so does a view that keeps it contiguous.

torch::Tensor PositiveContiguousOfContiguous(int64_t n) {
  std::vector<float> samples(n);
  return torch::from_blob(samples.data(), {n}).unsqueeze(0).contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: a from_blob tensor wraps local buffer 'samples' and is returned from 'PositiveContiguousOfContiguous', which destroys the buffer
}

torch::Tensor PositiveReshapeIsAView(int64_t h, int64_t w) {
  std::vector<float> pixels(h * w);
  auto image = torch::from_blob(pixels.data(), {h, w});
  // CHECK-FIXES: auto image = torch::from_blob(pixels.data(), {h, w}).clone();
  return image.reshape({-1});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: a from_blob tensor wraps local buffer 'pixels' and is returned from 'PositiveReshapeIsAView'
}

// Positive: the same dtype, so to() returns the tensor itself.
torch::Tensor PositiveToSameDtype(int64_t n) {
  std::vector<float> samples(n);
  auto options = torch::TensorOptions().dtype(torch::kFloat);
  auto raw = torch::from_blob(samples.data(), {n}, options);
  // CHECK-FIXES: auto raw = torch::from_blob(samples.data(), {n}, options).clone();
  return raw.to(torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: a from_blob tensor wraps local buffer 'samples' and is returned from 'PositiveToSameDtype'
}
