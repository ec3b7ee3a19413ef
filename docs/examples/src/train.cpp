#include "example.h"

#include <iostream>

int main() {
  torch::manual_seed(0);
  TinyNet net;
  auto images = torch::rand({4, 8});
  auto batch = normalize_batch(augment(images));
  std::cout << net->first_row_spread() << "\n";
  std::cout << net->forward(batch).sum().item<float>() << "\n";
  return 0;
}
