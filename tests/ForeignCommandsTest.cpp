//===--- ForeignCommandsTest.cpp - Databases of other compilers -----------===//
//
// A compilation database records the build's own compiler: GCC's flags, MSVC's
// precompiled headers, a forced include with a precompiled header beside it.
// clang must still parse each unit as the build compiled it.
//
//===----------------------------------------------------------------------===//

#include "Subprocess.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

/// A source that parses only when a forced include defined FORCED, and a
/// database with one command for it.
struct ForcedIncludeProject {
  std::string Dir = temporaryDirectory();

  ForcedIncludeProject() {
    writeFile(Dir + "/forced.h", "#define FORCED 1\n");
    writeFile(Dir + "/a.cpp",
              "#ifndef FORCED\n#error no forced include\n#endif\n"
              "int main() { return 0; }\n");
  }
  std::string database(const std::string &Command) const {
    std::string Path = Dir + "/compile_commands.json";
    writeFile(Path, json::array({{{"directory", Dir},
                                  {"file", Dir + "/a.cpp"},
                                  {"command", Command}}})
                        .dump());
    return Path;
  }
};

/// Analyzed without a warning or an error, with the result cache off so
/// that each run parses.
void expectCleanRun(const std::string &Database) {
  RunResult R = run(torchlintBinary(), {"--no-cache", Database});
  EXPECT_EQ(R.ExitCode, 0) << R.Stderr;
  EXPECT_EQ(R.Stderr.find("torchlint: error"), std::string::npos) << R.Stderr;
  EXPECT_EQ(R.Stderr.find("torchlint: warning"), std::string::npos) << R.Stderr;
}

TEST(ForeignCommands, GccOnlyFlagsAreDropped) {
  ForcedIncludeProject P;
  expectCleanRun(P.database(
      "g++ -fno-gnu-unique -fconcepts-diagnostics-depth=2 -fipa-pta "
      "-Wno-maybe-uninitialized -Wlogical-op -fmax-errors=3 -include forced.h "
      "-c a.cpp -o a.o"));
}

TEST(ForeignCommands,
     ForcedIncludeIsNotSwappedForThePrecompiledHeaderBesideIt) {
  ForcedIncludeProject P;
  // clang's driver turns `-include forced.h` into `-include-pch forced.h.pch`
  // when that file exists; a build's own header is unreadable to this clang.
  writeFile(P.Dir + "/forced.h.pch", "made by another compiler");
  for (const char *Include : {"-include forced.h",
                              "-include"
                              "forced.h",
                              "--include=forced.h"})
    expectCleanRun(
        P.database(std::string("clang++ ") + Include + " -c a.cpp -o a.o"));
}

TEST(ForeignCommands, MsvcPrecompiledHeaderIsNotUsed) {
  ForcedIncludeProject P;
  writeFile(P.Dir + "/a.pch", "made by cl.exe");
  expectCleanRun(P.database("cl.exe /nologo /EHsc /Yuforced.h /Fpa.pch "
                            "/FIforced.h /c a.cpp /Foa.obj"));
}

// What CMake writes for target_precompile_headers with GCC: `-include
// cmake_pch.hxx`, with cmake_pch.hxx.gch beside it once built.
TEST(ForeignCommands, CMakeGccPrecompiledHeaders) {
  std::string Dir = temporaryDirectory();
  writeFile(Dir + "/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.18)\n"
            "project(uses_pch CXX)\n"
            "find_package(Torch REQUIRED)\n"
            "add_executable(app main.cpp)\n"
            "target_link_libraries(app PRIVATE ${TORCH_LIBRARIES})\n"
            "target_precompile_headers(app PRIVATE forced.h <vector>)\n");
  writeFile(Dir + "/forced.h", "#define FORCED 1\n");
  writeFile(
      Dir + "/main.cpp",
      "#ifndef FORCED\n#error no forced include\n#endif\n"
      "#include <torch/torch.h>\n"
      "int main() {\n"
      "  torch::Device device(\"cpu\");\n"
      "  torch::nn::Linear model(4, 2);\n"
      "  model->to(device);\n"
      "  model->forward(torch::ones({3, 4}).to(device)).sum().backward();\n"
      "}\n");
  std::string Build = Dir + "/build";
  RunResult Configured =
      run(TORCHLINT_CMAKE,
          {"-S", Dir, "-B", Build, "-G", "Unix Makefiles",
           "-DCMAKE_CXX_COMPILER=g++", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"});
  ASSERT_EQ(Configured.ExitCode, 0) << Configured.Stdout << Configured.Stderr;
  // The precompiled header alone, as the build would make it first.
  json Commands = json::parse(readFile(Build + "/compile_commands.json"));
  ASSERT_EQ(Commands.size(), 2u) << Commands.dump(1);
  std::string Main;
  for (const json &Command : Commands) {
    std::string Text = Command["command"];
    if (Text.find("c++-header") != std::string::npos) {
      RunResult Made = run("/bin/sh", {"-c", Text}, Build);
      ASSERT_EQ(Made.ExitCode, 0) << Made.Stderr;
    } else {
      Main = Text;
    }
  }
  EXPECT_NE(Main.find("-include " + Build), std::string::npos) << Main;
  bool HeaderMade = false;
  for (const auto &Entry : fs::recursive_directory_iterator(Build))
    HeaderMade |= Entry.path().extension() == ".gch";
  ASSERT_TRUE(HeaderMade);

  RunResult R = run(torchlintBinary(), {"--no-cache", "--format=json",
                                        Build + "/compile_commands.json"});
  EXPECT_EQ(R.ExitCode, 1) << R.Stderr;
  EXPECT_EQ(R.Stderr.find("error"), std::string::npos) << R.Stderr;
  json Output = json::parse(R.Stdout);
  ASSERT_EQ(Output["findings"].size(), 1u) << R.Stdout;
  EXPECT_EQ(Output["findings"][0]["rule"], "torch-hardcoded-cpu-device");
  EXPECT_EQ(Output["findings"][0]["line"], 6);
}

} // namespace
} // namespace torchlint::test
