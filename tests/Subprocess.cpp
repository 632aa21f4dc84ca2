#include "Subprocess.h"

#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace torchlint::test {

namespace {
std::string slurp(int FD) {
  std::string Text;
  char Buffer[65536];
  ssize_t N;
  while ((N = read(FD, Buffer, sizeof Buffer)) > 0)
    Text.append(Buffer, static_cast<size_t>(N));
  return Text;
}

struct TemporaryRoot {
  std::filesystem::path Path;
  TemporaryRoot() {
    std::string Model =
        (std::filesystem::temp_directory_path() / "torchlint-test-XXXXXX")
            .string();
    if (!mkdtemp(Model.data()))
      throw std::runtime_error("mkdtemp failed");
    Path = Model;
  }
  ~TemporaryRoot() {
    std::error_code EC;
    std::filesystem::remove_all(Path, EC);
  }
};
} // namespace

RunResult run(const std::string &Program, const std::vector<std::string> &Args,
              const std::string &Directory) {
  // Output goes to files, so that neither pipe can fill up and block.
  std::string Out = temporaryDirectory() + "/out";
  std::string Err = temporaryDirectory() + "/err";
  pid_t Child = fork();
  if (Child < 0)
    throw std::runtime_error("fork failed");
  if (Child == 0) {
    int OutFD = open(Out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ErrFD = open(Err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(OutFD, 1);
    dup2(ErrFD, 2);
    if (!Directory.empty() && chdir(Directory.c_str()) != 0)
      _exit(127);
    std::vector<char *> Argv;
    Argv.push_back(const_cast<char *>(Program.c_str()));
    for (const std::string &Arg : Args)
      Argv.push_back(const_cast<char *>(Arg.c_str()));
    Argv.push_back(nullptr);
    execv(Program.c_str(), Argv.data());
    _exit(127);
  }
  int Status = 0;
  waitpid(Child, &Status, 0);
  RunResult Result;
  Result.ExitCode = WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
  Result.Stdout = readFile(Out);
  Result.Stderr = readFile(Err);
  return Result;
}

std::string torchlintBinary() { return TORCHLINT_BINARY; }
std::string testInputsDir() { return TORCHLINT_TEST_INPUTS; }
std::string testInputsDatabase() { return TORCHLINT_TEST_INPUTS_DATABASE; }

std::string temporaryDirectory() {
  static TemporaryRoot Root;
  static int Counter = 0;
  std::filesystem::path Dir = Root.Path / std::to_string(++Counter);
  std::filesystem::create_directories(Dir);
  return Dir.string();
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

void writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary);
  Out << Text;
}

} // namespace torchlint::test
