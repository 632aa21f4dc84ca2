// No libtorch at all: nothing to report.
#include <cstddef>

int main() {
  std::size_t n = 0;
  return static_cast<int>(n);
}
