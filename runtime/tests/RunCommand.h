//===--- RunCommand.h - What the doctor's tests share -----------*- C++ -*-===//

#ifndef TORCHLINT_RUNTIME_TESTS_RUNCOMMAND_H
#define TORCHLINT_RUNTIME_TESTS_RUNCOMMAND_H

#include "Doctor.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <sys/wait.h>

namespace torchlint::doctor::test {

struct RunResult {
  int ExitCode = -1;
  std::string Output;
};

/// Runs \p Command through the shell and collects its standard output.
inline RunResult runCommand(const std::string &Command) {
  RunResult Result;
  FILE *Pipe = popen(Command.c_str(), "r");
  if (!Pipe)
    return Result;
  char Buffer[4096];
  while (std::size_t Read = fread(Buffer, 1, sizeof(Buffer), Pipe))
    Result.Output.append(Buffer, Read);
  int Status = pclose(Pipe);
  if (Status != -1 && WIFEXITED(Status))
    Result.ExitCode = WEXITSTATUS(Status);
  return Result;
}

/// Runs the doctor with \p Arguments, stdout and stderr together unless
/// \p Redirect says otherwise.
inline RunResult runDoctor(const std::string &Arguments,
                           const std::string &Redirect = "2>&1") {
  return runCommand(std::string("'") + TORCHLINT_DOCTOR_BINARY + "' " +
                    Arguments + " " + Redirect);
}

/// The check named \p Name; by value, since callers often pass the
/// temporary that a diagnosis returns.
inline Check find(const std::vector<Check> &Checks, const std::string &Name) {
  for (const Check &C : Checks)
    if (C.Name == Name)
      return C;
  ADD_FAILURE() << "no check named " << Name;
  return {};
}

inline bool has(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

} // namespace torchlint::doctor::test

#endif // TORCHLINT_RUNTIME_TESTS_RUNCOMMAND_H
