//===--- LineStarts.h - Where the lines of a text begin ---------*- C++ -*-===//
//
// The report reads source lines, SARIF turns fix-it offsets into lines and
// columns, the language server turns offsets into LSP positions: each over the
// same table of line starts.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_OUTPUT_LINESTARTS_H
#define TORCHLINT_TOOL_OUTPUT_LINESTARTS_H

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace torchlint {

class LineStarts {
public:
  LineStarts() = default;
  explicit LineStarts(llvm::StringRef Text) {
    Starts.push_back(0);
    for (size_t I = 0; I < Text.size(); ++I)
      if (Text[I] == '\n')
        Starts.push_back(I + 1);
  }

  /// How many lines the text has (one more than its line breaks).
  size_t size() const { return Starts.size(); }
  /// The offset at which the 0-based line Line begins.
  size_t operator[](size_t Line) const { return Starts[Line]; }
  /// The 0-based line that holds Offset (an offset within the text).
  size_t lineOf(size_t Offset) const {
    return std::upper_bound(Starts.begin(), Starts.end(), Offset) -
           Starts.begin() - 1;
  }

private:
  std::vector<size_t> Starts;
};

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_LINESTARTS_H
