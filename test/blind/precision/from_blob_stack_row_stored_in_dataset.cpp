// CASE: a tabular torch::data Dataset parses each record into a stack array
//       `float row[kFeatures]` declared inside the loading loop and stores
//       `torch::from_blob(row, {kFeatures})` in its member vector without a
//       copy; Dataset::get hands the stored tensors to the DataLoader
// SOURCE: the kind of code in libtorch custom-dataset examples for CSV /
//         binary records (torch::data::datasets::Dataset<Self>); the
//         from_blob docs say the tensor does not own or copy the memory
// KIND: bug
// HARM: every stored sample points at the same dead stack slot, so the
//       samples no longer hold their own records (sample 0 is not record 0)
#include <torch/torch.h>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

constexpr int64_t kFeatures = 4;

class RecordDataset : public torch::data::datasets::Dataset<RecordDataset> {
 public:
  explicit RecordDataset(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      float row[kFeatures];
      float label = 0;
      std::istringstream fields(line);
      for (int64_t c = 0; c < kFeatures; ++c) fields >> row[c];
      fields >> label;
      features_.push_back(torch::from_blob(row, {kFeatures}, torch::kFloat)); // BUG(libtorch-from-blob-escape)
      labels_.push_back(torch::tensor(label));
    }
  }
  torch::data::Example<> get(size_t i) override { return {features_.at(i), labels_.at(i)}; }
  torch::optional<size_t> size() const override { return features_.size(); }

 private:
  std::vector<torch::Tensor> features_, labels_;
};

int main() {
  RecordDataset ds("1 2 3 4 0\n5 6 7 8 1\n9 10 11 12 0\n");
  auto first = ds.get(0).data;
  std::cout << "sample 0 features: " << first << "\n";
  if (!first.equal(torch::tensor({1.f, 2.f, 3.f, 4.f})))
    std::cout << "HARM: sample 0 does not hold record 0 (" << first[0].item<float>() << ", "
              << first[1].item<float>() << ", ...) - it aliases a dead stack buffer\n";
  return 0;
}
