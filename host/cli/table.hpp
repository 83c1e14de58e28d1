// A plain text table for the human (-o table) views: columns padded to their widest cell (counted
// in code points, so UTF-8 names align), two spaces apart, no blanks at the end of a line.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace schedhost::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace schedhost::cli
