// CASE: a tabular loader parses each CSV line into one reused std::array
//       row buffer and stores `torch::from_blob(row.data(), {D}).clone()`;
//       a column-statistics helper returns `from_blob(local_vector).clone()`
// SOURCE: the kind of code in libtorch tabular/time-series loaders and the
//         discuss.pytorch.org answers on "from_blob tensor changes when the
//         vector changes -> call .clone()"
// KIND: near-miss
// WHY-OK: every from_blob tensor is cloned in the same expression, while its
//         buffer still holds that row; nothing keeps the wrapper itself
#include <torch/torch.h>
#include <array>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

constexpr int64_t kCols = 4;

std::vector<torch::Tensor> parse_rows(const std::string& csv) {
  std::vector<torch::Tensor> rows;
  std::array<float, kCols> row{};
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string cell;
    for (int64_t c = 0; c < kCols && std::getline(fields, cell, ','); ++c)
      row[c] = std::stof(cell);
    rows.push_back(torch::from_blob(row.data(), {kCols}, torch::kFloat).clone());
  }
  return rows;
}

torch::Tensor column_means(const std::vector<torch::Tensor>& rows) {
  std::vector<double> sums(kCols, 0.0);
  for (const auto& r : rows)
    for (int64_t c = 0; c < kCols; ++c) sums[c] += r[c].item<double>();
  for (auto& s : sums) s /= static_cast<double>(rows.size());
  return torch::from_blob(sums.data(), {kCols}, torch::kDouble).clone().to(torch::kFloat);
}

int main() {
  auto rows = parse_rows("1,2,3,4\n5,6,7,8\n\n9,10,11,12\n");
  auto table = torch::stack(rows);
  std::cout << "table:\n" << table << "\n";
  auto means = column_means(rows);
  std::vector<double> scratch(kCols, -1.0);  // reuses the freed chunk, if any
  std::cout << "means: " << means << "\n";  // 5 6 7 8
  std::cout << "first row intact: " << std::boolalpha
            << rows[0].equal(torch::tensor({1.f, 2.f, 3.f, 4.f})) << "\n";
  return 0;
}
