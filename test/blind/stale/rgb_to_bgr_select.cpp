// CASE: an in-place RGB->BGR conversion of a CHW image keeps the red plane
//       as a select() view, overwrites plane 0 with blue, then copies the
//       "red" view into plane 2
// SOURCE: the kind of code that swaps the channels of a frame in place
//         before handing it to OpenCV (forum questions on RGB<->BGR with
//         tensors)
// KIND: bug
// HARM: the blue plane gets blue again; the red values are lost
#include <torch/torch.h>
#include <iostream>

// img: 3 x H x W, channels in RGB order; reorder to BGR in place.
void rgb_to_bgr_(torch::Tensor& img) {
  auto red = img.select(0, 0);        // BUG(libtorch-inplace-on-view)
  auto blue = img.select(0, 2);
  img.select(0, 0).copy_(blue);       // BUG(libtorch-inplace-on-view)
  img.select(0, 2).copy_(red);        // BUG(libtorch-inplace-on-view)
}

int main() {
  auto img = torch::stack({torch::full({2, 2}, 10.0), torch::full({2, 2}, 20.0),
                           torch::full({2, 2}, 30.0)});
  rgb_to_bgr_(img);
  auto means = img.mean({1, 2});
  std::cout << "channel means after conversion: " << means[0].item<float>() << " "
            << means[1].item<float>() << " " << means[2].item<float>() << "\n";
  if (means[2].item<float>() != 10.0f)
    std::cout << "HARM: plane 2 should hold the old red (10) but holds "
              << means[2].item<float>() << "\n";
  return 0;
}
