//===--- ConfigurationFuzzer.cpp - .clang-tidy files from strangers -------===//
//
// The CheckOptions of a .clang-tidy file, which a pull request may change.
// Whatever the YAML, the reader answers with options or an error that names
// the file.
//
//===----------------------------------------------------------------------===//

#include "driver/Configuration.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Yaml(reinterpret_cast<const char *>(Data), Size);
  auto Options = torchlint::parseCheckOptions(Yaml, "/fuzz/.clang-tidy");
  if (!Options) {
    std::string Message = llvm::toString(Options.takeError());
    if (llvm::StringRef(Message).find("/fuzz/.clang-tidy") ==
        llvm::StringRef::npos)
      std::abort();
  }
  return 0;
}
