//===--- UntrustedDatabaseTest.cpp - A stranger's compile database --------===//
//
// In CI, the compilation database may come from the pull request under
// review. Whatever its commands say, torchlint loads no code, reads no
// configuration file and writes nothing.
//
//===----------------------------------------------------------------------===//

#include "Subprocess.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

/// A directory with a.cpp, which fails to parse when TORCHLINT_EVIL is
/// defined, and a database with one entry for it.
struct Project {
  std::string Dir = temporaryDirectory();
  std::string Source = Dir + "/a.cpp";

  Project() {
    writeFile(Source, "#ifdef TORCHLINT_EVIL\n#error injected\n#endif\n"
                      "int main() { return 0; }\n");
  }
  std::string database(const std::string &Command) const {
    std::string Path = Dir + "/compile_commands.json";
    writeFile(Path, json::array({{{"directory", Dir},
                                  {"file", Source},
                                  {"command", Command + " -c a.cpp -o a.o"}}})
                        .dump());
    return Path;
  }
  /// Every file of the project but torchlint's own cache (by default beside
  /// the compilation database), the one place it may write to.
  std::set<std::string> files() const {
    std::set<std::string> Names;
    for (const auto &Entry : fs::recursive_directory_iterator(Dir)) {
      std::string Name = fs::relative(Entry.path(), Dir).string();
      if (Name.rfind(".torchlint-cache", 0) != 0)
        Names.insert(Name);
    }
    return Names;
  }
};

RunResult torchlint(const std::vector<std::string> &Args) {
  return run(torchlintBinary(), Args);
}

TEST(UntrustedDatabase, PluginsAreNotLoaded) {
  Project P;
  std::string Mark = P.Dir + "/LOADED";
  std::string Plugin = P.Dir + "/evil.so";
  writeFile(P.Dir + "/evil.c",
            "#include <stdio.h>\n"
            "__attribute__((constructor)) static void mark(void) {\n"
            "  FILE *f = fopen(\"" +
                Mark +
                "\", \"w\");\n"
                "  if (f) fclose(f);\n"
                "}\n");
  RunResult Built = run(TORCHLINT_CLANG,
                        {"-shared", "-fPIC", "-o", Plugin, P.Dir + "/evil.c"});
  ASSERT_EQ(Built.ExitCode, 0) << Built.Stderr;
  // The object is real: clang itself loads it, and it leaves its mark.
  RunResult Loaded = run(TORCHLINT_CLANG, {"-fsyntax-only", "-x", "c++",
                                           "-fplugin=" + Plugin, P.Source});
  ASSERT_TRUE(fs::exists(Mark)) << Loaded.Stderr;
  fs::remove(Mark);
  std::string Database = P.database(
      "clang++ -fplugin=" + Plugin + " -fpass-plugin=" + Plugin +
      " -Xclang -load -Xclang " + Plugin + " -Xclang -add-plugin -Xclang evil");
  std::set<std::string> Before = P.files();
  RunResult R = torchlint({"--format=json", Database});
  EXPECT_EQ(R.ExitCode, 0) << R.Stderr;
  EXPECT_FALSE(fs::exists(Mark));
  EXPECT_EQ(P.files(), Before);
  // Said once for the unit, naming each flag.
  EXPECT_EQ(std::count(R.Stderr.begin(), R.Stderr.end(), '\n'), 1) << R.Stderr;
  for (const std::string &Flag : std::vector<std::string>{
           "'-fplugin=" + Plugin + "'", "'-fpass-plugin=" + Plugin + "'",
           "'-Xclang -load -Xclang " + Plugin + "'", "'-Xclang -add-plugin'"})
    EXPECT_NE(R.Stderr.find(Flag), std::string::npos) << Flag << R.Stderr;
  EXPECT_NE(R.Stderr.find("it can load code"), std::string::npos) << R.Stderr;
  json Output = json::parse(R.Stdout);
  ASSERT_EQ(Output["warnings"].size(), 1u) << R.Stdout;
  EXPECT_EQ(Output["warnings"][0]["file"], P.Source);
}

TEST(UntrustedDatabase, NothingIsWritten) {
  Project P;
  std::set<std::string> Before = P.files();
  RunResult R = torchlint({P.database(
      "clang++ --serialize-diagnostics " + P.Dir +
      "/diagnostics.dia -ftime-trace=" + P.Dir +
      "/trace.json -save-temps=obj -MJ " + P.Dir + "/fragment.json -MD -MF " +
      P.Dir + "/a.d" +
      // Straight to the preprocessor, as -Xclang would.
      " -Xpreprocessor -dependency-file -Xpreprocessor " + P.Dir +
      "/b.d -Wp,-MD," + P.Dir + "/c.d" + " -Wp,-D_FORTIFY_SOURCE=2,-UNDEBUG")});
  EXPECT_EQ(R.ExitCode, 0) << R.Stderr;
  std::set<std::string> After = P.files();
  After.erase("compile_commands.json");
  EXPECT_EQ(After, Before);
  EXPECT_NE(R.Stderr.find("'--serialize-diagnostics " + P.Dir +
                          "/diagnostics.dia' (it writes files)"),
            std::string::npos)
      << R.Stderr;
  EXPECT_NE(R.Stderr.find("'-Xpreprocessor -dependency-file' (it passes "
                          "options to clang's internals unchecked)"),
            std::string::npos)
      << R.Stderr;
  EXPECT_NE(R.Stderr.find("'-Wp,-MD," + P.Dir + "/c.d'"), std::string::npos)
      << R.Stderr;
  // Macro definitions stay; the outputs every build names go without a word.
  EXPECT_EQ(R.Stderr.find("FORTIFY"), std::string::npos) << R.Stderr;
  EXPECT_EQ(R.Stderr.find("-MF"), std::string::npos) << R.Stderr;
}

TEST(UntrustedDatabase, ConfigurationFilesAreNotRead) {
  Project P;
  fs::create_directories(P.Dir + "/bin");
  // clang reads <compiler>.cfg beside the compiler a command names, even one
  // that does not exist, and any file given with --config.
  writeFile(P.Dir + "/bin/clang++.cfg", "-DTORCHLINT_EVIL\n");
  writeFile(P.Dir + "/evil.cfg", "-DTORCHLINT_EVIL\n");
  RunResult Beside = torchlint({P.database(P.Dir + "/bin/clang++")});
  EXPECT_EQ(Beside.ExitCode, 0) << Beside.Stderr;
  EXPECT_EQ(Beside.Stderr.find("injected"), std::string::npos) << Beside.Stderr;
  RunResult Given =
      torchlint({P.database("clang++ --config=" + P.Dir + "/evil.cfg")});
  EXPECT_EQ(Given.ExitCode, 0) << Given.Stderr;
  EXPECT_NE(Given.Stderr.find("it reads flags from a file"), std::string::npos)
      << Given.Stderr;
}

TEST(UntrustedDatabase, CMakePrecompiledHeaderIncludeIsKept) {
  Project P;
  // CMake's target_precompile_headers for clang: the forced include is what
  // the source relies on; the .pch was made by the build's own compiler.
  writeFile(P.Dir + "/cmake_pch.hxx", "#define TORCHLINT_FROM_PCH 1\n");
  writeFile(P.Dir + "/uses_pch.cpp",
            "#ifndef TORCHLINT_FROM_PCH\n#error no forced include\n#endif\n");
  writeFile(P.Dir + "/cmake_pch.hxx.pch", "not a precompiled header");
  std::string Path = P.Dir + "/compile_commands.json";
  writeFile(Path,
            json::array(
                {{{"directory", P.Dir},
                  {"file", P.Dir + "/uses_pch.cpp"},
                  {"command", "clang++ -Xclang -include-pch -Xclang " + P.Dir +
                                  "/cmake_pch.hxx.pch -Xclang "
                                  "-include -Xclang " +
                                  P.Dir + "/cmake_pch.hxx -c uses_pch.cpp"}}})
                .dump());
  RunResult R = torchlint({Path});
  EXPECT_EQ(R.ExitCode, 0) << R.Stderr;
  EXPECT_EQ(R.Stderr.find("torchlint: warning"), std::string::npos) << R.Stderr;
}

} // namespace
} // namespace torchlint::test
