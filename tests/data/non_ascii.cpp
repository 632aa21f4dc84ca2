// Lines with text outside ASCII before a finding: SARIF counts columns in
// UTF-16 code units, clang in bytes.
#include <torch/torch.h>

int main() {
  auto x = /* é, 😀 */ torch::tensor({1.0f, 2.0f}).cuda();
  return x.numel() == 2 ? 0 : 1;
}
