// CASE: a tabular pipeline takes the price column out of the feature matrix
//       with unbind(1) to report its raw range, then standardises the matrix
//       out of place and rebinds the variable
// SOURCE: the kind of code in time-series / tabular preprocessing (z-scoring
//         features before training)
// KIND: near-miss
// WHY-OK: features = (features - mean) / std makes a new tensor; the price
//         view keeps the old storage and its raw values
#include <torch/torch.h>
#include <iostream>

int main() {
  // columns: price, volume, spread
  auto features = torch::tensor({100.f, 5000.f, 0.5f, 101.f, 5200.f, 0.4f,
                                 103.f, 4800.f, 0.6f, 104.f, 5100.f, 0.5f})
                      .view({4, 3});
  auto cols = features.unbind(1);
  auto price = cols[0];

  auto mean = features.mean(0);
  auto stdev = features.std(0);
  features = (features - mean) / stdev;

  float lo = price.min().item<float>();
  float hi = price.max().item<float>();
  std::cout << "raw price range: [" << lo << ", " << hi << "]\n";
  std::cout << "standardised column means: " << features.mean(0) << "\n";
  if (lo != 100.0f || hi != 104.0f)
    std::cout << "HARM: raw price range should be [100, 104] but is [" << lo << ", " << hi
              << "]\n";
  return 0;
}
