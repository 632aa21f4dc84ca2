//===--- Subprocess.h - Run the built tools as a user would -----*- C++ -*-===//

#ifndef TORCHLINT_TESTS_SUBPROCESS_H
#define TORCHLINT_TESTS_SUBPROCESS_H

#include <string>
#include <vector>

namespace torchlint::test {

struct RunResult {
  int ExitCode = -1;
  std::string Stdout;
  std::string Stderr;
};

/// Runs Program with Args in Directory (empty: the current one) and waits.
RunResult run(const std::string &Program, const std::vector<std::string> &Args,
              const std::string &Directory = "");

/// The torchlint binary under test.
std::string torchlintBinary();
/// The source folder of test-inputs/.
std::string testInputsDir();
/// The compilation database of test-inputs/, configured by CMake.
std::string testInputsDatabase();
/// A fresh, empty temporary directory, removed at exit.
std::string temporaryDirectory();

std::string readFile(const std::string &Path);
void writeFile(const std::string &Path, const std::string &Text);

} // namespace torchlint::test

#endif // TORCHLINT_TESTS_SUBPROCESS_H
