// CASE: a tabular pipeline takes the price column out of the feature matrix
//       with unbind(1) to report its raw range later, then standardises the
//       matrix in place with sub_/div_
// SOURCE: the kind of code in time-series / tabular preprocessing
//         (z-scoring features in place to save memory, cf. forum threads
//         "values of my tensor changed after normalisation")
// KIND: bug
// HARM: the "raw" price range printed is the standardised one
#include <torch/torch.h>
#include <iostream>

int main() {
  // columns: price, volume, spread
  auto features = torch::tensor({100.f, 5000.f, 0.5f, 101.f, 5200.f, 0.4f,
                                 103.f, 4800.f, 0.6f, 104.f, 5100.f, 0.5f})
                      .view({4, 3});
  auto cols = features.unbind(1);                 // BUG(libtorch-inplace-on-view)
  auto price = cols[0];                           // BUG(libtorch-inplace-on-view)

  auto mean = features.mean(0);
  auto stdev = features.std(0);
  features.sub_(mean).div_(stdev);                // BUG(libtorch-inplace-on-view)

  float lo = price.min().item<float>();           // BUG(libtorch-inplace-on-view)
  float hi = price.max().item<float>();           // BUG(libtorch-inplace-on-view)
  std::cout << "raw price range: [" << lo << ", " << hi << "]\n";
  std::cout << "standardised column means: " << features.mean(0) << "\n";
  if (hi < 100.0f)
    std::cout << "HARM: raw price max should be 104 but reads " << hi << "\n";
  return 0;
}
