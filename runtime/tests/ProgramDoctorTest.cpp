//===--- ProgramDoctorTest.cpp - The doctor on users' programs ------------===//
//
// Real ELF files, made by the test from tiny C sources with the system's C
// compiler: a folder laid out like a CUDA libtorch download (libc10,
// libtorch_cpu, libc10_cuda, libtorch_cuda with a .nv_fatbin section,
// libtorch, each with its soname and RUNPATH $ORIGIN), a CPU-only one, and
// programs linked against them the ways users link: through CMake's
// TORCH_LIBRARIES, by hand under --as-needed, with a RUNPATH, an RPATH, and
// none. The loader's search is pinned to folders the test controls (no
// ld.so cache, a default folder holding only libc), so the results do not
// depend on what this machine has installed.
//
//===----------------------------------------------------------------------===//

#include "ProgramDoctor.h"
#include "BuildDirectory.h"
#include "FatBinary.h"
#include "LibraryResolver.h"
#include "RunCommand.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace torchlint::doctor;

namespace {

using test::find;
using test::has;
using test::runCommand;
using test::runDoctor;
using test::RunResult;

void writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary);
  Out << Text;
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

void run(const std::string &Command) {
  RunResult Result = runCommand("(" + Command + ") 2>&1");
  ASSERT_EQ(Result.ExitCode, 0) << Command << "\n" << Result.Output;
}

void appendLittle(std::string &Out, std::uint64_t Value, int Bytes) {
  for (int I = 0; I < Bytes; ++I)
    Out += static_cast<char>((Value >> (8 * I)) & 0xff);
}

/// One fat binary entry as nvcc writes it: a 64-byte header (kind, version,
/// header size, payload size, ..., the architecture at byte 28), then the
/// payload.
std::string fatBinaryEntry(int Kind, int Architecture, std::size_t Payload) {
  std::string Entry;
  appendLittle(Entry, Kind, 2);
  appendLittle(Entry, 0x0101, 2);
  appendLittle(Entry, 64, 4);
  appendLittle(Entry, Payload, 8);
  appendLittle(Entry, 0, 4);
  appendLittle(Entry, 0, 4);
  appendLittle(Entry, 0x10008, 4);
  appendLittle(Entry, Architecture, 4);
  Entry.resize(64, '\0');
  Entry.append(Payload, 'x');
  return Entry;
}

std::string fatBinary(const std::vector<std::string> &Entries) {
  std::string Body;
  for (const std::string &E : Entries)
    Body += E;
  std::string Out;
  appendLittle(Out, 0xBA55ED50, 4);
  appendLittle(Out, 1, 2);
  appendLittle(Out, 16, 2);
  appendLittle(Out, Body.size(), 8);
  return Out + Body;
}

/// The fixture: built once for the suite, in a fresh temporary folder.
class ProgramDoctor : public ::testing::Test {
protected:
  static std::string Root;
  static std::string Libc;

  static std::string cudaLib() { return Root + "/cuda/lib"; }
  static std::string cpuLib() { return Root + "/cpu/lib"; }

  static void compileLibrary(const std::string &Folder, const std::string &Name,
                             const std::string &Body,
                             const std::string &Links) {
    std::string Source = Root + "/src/" + Name + ".c";
    writeFile(Source, Body + "\n");
    run(std::string(TORCHLINT_TEST_C_COMPILER) + " -shared -fPIC -o " + Folder +
        "/" + Name + ".so " + Source + " -Wl,-soname," + Name +
        ".so -Wl,--enable-new-dtags '-Wl,-rpath,$ORIGIN' -L" + Folder + " " +
        Links);
  }

  /// A program that calls \p Function, which the first library on
  /// \p Links defines.
  static void compileProgram(const std::string &Output,
                             const std::string &Links,
                             const std::string &Function = "torch_function") {
    std::string Source = Root + "/src/main.c";
    writeFile(Source, "int " + Function + "(void);\n" +
                          "int main(void) { return " + Function + "(); }\n");
    run(std::string(TORCHLINT_TEST_C_COMPILER) + " -o " + Output + " " +
        Source + " " + Links);
  }

  static void makeLibtorch(const std::string &Lib, bool Cuda) {
    run("mkdir -p " + Lib);
    compileLibrary(Lib, "libc10", "int c10_function(void) { return 0; }", "");
    compileLibrary(Lib, "libtorch_cpu",
                   "int c10_function(void);\n"
                   "int torch_cpu_function(void) { return c10_function(); }",
                   "-lc10");
    std::string TorchLinks = "-Wl,--no-as-needed -ltorch_cpu";
    if (Cuda) {
      compileLibrary(Lib, "libc10_cuda", "int c10_cuda_function(void);",
                     "-lc10");
      compileLibrary(Lib, "libtorch_cuda",
                     "int torch_cuda_function(void) { return 0; }",
                     "-Wl,--no-as-needed -ltorch_cpu -lc10_cuda -lc10");
      // GPU code for sm_70 and sm_80, and compute_80 PTX for newer GPUs.
      writeFile(
          Root + "/src/fatbin",
          fatBinary({fatBinaryEntry(2, 70, 40), fatBinaryEntry(2, 80, 8)}) +
              fatBinary({fatBinaryEntry(1, 80, 16)}));
      run(std::string(TORCHLINT_TEST_OBJCOPY) + " --add-section .nv_fatbin=" +
          Root + "/src/fatbin --set-section-flags .nv_fatbin=readonly " + Lib +
          "/libtorch_cuda.so");
      TorchLinks += " -ltorch_cuda";
    }
    compileLibrary(Lib, "libtorch", "int torch_function(void) { return 0; }",
                   TorchLinks);
  }

  static bool haveTools() {
    return access(TORCHLINT_TEST_C_COMPILER, X_OK) == 0 &&
           access(TORCHLINT_TEST_OBJCOPY, X_OK) == 0;
  }

  void SetUp() override {
    if (!haveTools())
      GTEST_SKIP() << "no C compiler or objcopy to make the test programs";
  }

  static void SetUpTestSuite() {
    if (!haveTools())
      return;
    char Template[] = "/tmp/torchlint-program-doctor-XXXXXX";
    ASSERT_NE(mkdtemp(Template), nullptr);
    Root = Template;
    run("mkdir -p " + Root + "/src " + Root + "/cuda/bin " + Root +
        "/cpu/bin " + Root + "/system " + Root + "/stray " + Root + "/plugin");
    makeLibtorch(cudaLib(), true);
    makeLibtorch(cpuLib(), false);

    std::string CudaRunPath =
        " -Wl,--enable-new-dtags '-Wl,-rpath,$ORIGIN/../lib'";
    // What TORCH_LIBRARIES gives a CMake project: libtorch_cuda under
    // --no-as-needed, the rest under the toolchain's --as-needed.
    compileProgram(Root + "/cuda/bin/cmake_app",
                   "-L" + cudaLib() + CudaRunPath +
                       " -Wl,--as-needed -ltorch -lc10 -Wl,--no-as-needed "
                       "-ltorch_cuda -ltorch_cpu -Wl,--as-needed");
    // By hand, as many Makefiles do: the linker drops what is unreferenced.
    compileProgram(Root + "/cuda/bin/as_needed",
                   "-L" + cudaLib() + CudaRunPath +
                       " -Wl,--as-needed -ltorch -ltorch_cuda -ltorch_cpu "
                       "-lc10",
                   "torch_cpu_function");
    compileProgram(Root + "/cuda/bin/no_runpath",
                   "-L" + cudaLib() + " -Wl,--no-as-needed -ltorch");
    compileProgram(Root + "/cuda/bin/rpath",
                   "-L" + cudaLib() + " -Wl,--disable-new-dtags,-rpath," +
                       cudaLib() + " -Wl,--no-as-needed -ltorch");
    compileProgram(Root + "/cpu/bin/cpu_app",
                   "-L" + cpuLib() +
                       " -Wl,--enable-new-dtags '-Wl,-rpath,$ORIGIN/../lib' "
                       "-Wl,--no-as-needed -ltorch");

    // A plugin without a path of its own that needs libextra.so, which only
    // the program's path provides: an RPATH reaches it, a RUNPATH does not.
    compileLibrary(Root + "/stray", "libextra", "int extra(void) { return 0; }",
                   "");
    run(std::string(TORCHLINT_TEST_C_COMPILER) + " -shared -fPIC -o " + Root +
        "/plugin/libplugin.so -x c /dev/null "
        "-Wl,-soname,libplugin.so -L" +
        Root + "/stray -Wl,--no-as-needed -lextra");
    std::string PluginLinks = "-L" + Root + "/plugin -L" + cudaLib() +
                              " -Wl,--no-as-needed -lplugin -ltorch -Wl,";
    compileProgram(Root + "/cuda/bin/plugin_rpath",
                   PluginLinks + "--disable-new-dtags,-rpath," + Root +
                       "/plugin:" + Root + "/stray:" + cudaLib());
    compileProgram(Root + "/cuda/bin/plugin_runpath",
                   PluginLinks + "--enable-new-dtags,-rpath," + Root +
                       "/plugin:" + Root + "/stray:" + cudaLib());
    // A stray libc10.so that LD_LIBRARY_PATH puts before the program's.
    compileLibrary(Root + "/stray", "libc10",
                   "int c10_function(void) { return 1; }", "");

    // The only default folder: libc, wherever this machine keeps it.
    std::string Error;
    std::unique_ptr<FileSource> Self =
        FileSource::open(Root + "/cuda/bin/cmake_app", Error);
    ASSERT_TRUE(Self) << Error;
    std::optional<ElfFile> Elf = readElf(*Self, Error);
    ASSERT_TRUE(Elf) << Error;
    LoadedProgram Loaded =
        resolveLibraries(Root + "/cuda/bin/cmake_app", *Elf, LoaderSettings());
    const LoadedLibrary *FoundLibc = Loaded.find("libc.so.6");
    ASSERT_NE(FoundLibc, nullptr);
    Libc = FoundLibc->Path;
    run("ln -s " + Libc + " " + Root + "/system/libc.so.6");
  }

  static void TearDownTestSuite() {
    if (!Root.empty() && !std::getenv("TORCHLINT_KEEP_TEST_FILES"))
      runCommand("rm -rf '" + Root + "'");
  }

  static LoaderSettings settings(const std::string &LibraryPath = "") {
    LoaderSettings Settings;
    Settings.LibraryPath = LibraryPath;
    Settings.CacheFile = Root + "/no-ld.so.cache";
    Settings.DefaultFolders = {Root + "/system"};
    return Settings;
  }

  static ProgramFacts inspect(const std::string &Program,
                              const std::string &LibraryPath = "") {
    std::string Error;
    std::optional<ProgramFacts> Facts =
        inspectProgram(Root + "/" + Program, settings(LibraryPath), Error);
    EXPECT_TRUE(Facts) << Error;
    return Facts ? *Facts : ProgramFacts();
  }

  static std::string inspectError(const std::string &Path) {
    std::string Error;
    EXPECT_FALSE(inspectProgram(Path, settings(), Error)) << Path;
    return Error;
  }

  static VisibleGpus gpus(int Major, int Minor) {
    VisibleGpus Gpus;
    Gpus.Devices.push_back({"Test GPU", Major, Minor});
    return Gpus;
  }
};

std::string ProgramDoctor::Root;
std::string ProgramDoctor::Libc;

std::string fixFor(const Check &C, const std::string &Build) {
  for (const auto &[Name, Fix] : C.BuildFixes)
    if (Name == Build)
      return Fix;
  return "";
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

TEST_F(ProgramDoctor, LinkedThroughTorchLibrariesIsFine) {
  ProgramFacts Facts = inspect("cuda/bin/cmake_app");
  EXPECT_EQ(Facts.Elf.RunPath, "$ORIGIN/../lib");
  EXPECT_EQ(Facts.TorchFolder, cudaLib());
  EXPECT_TRUE(Facts.TorchHasCuda);
  EXPECT_TRUE(Facts.LoadsTorchCuda);
  ASSERT_TRUE(Facts.Code);
  EXPECT_EQ(describe(*Facts.Code), "sm_70, sm_80, compute_80 (PTX)");
  const LoadedLibrary *Cuda = Facts.Loaded.find("libtorch_cuda.so");
  ASSERT_NE(Cuda, nullptr);
  EXPECT_EQ(Cuda->FoundThrough, "RUNPATH of cmake_app");
  EXPECT_EQ(Cuda->Path, Root + "/cuda/bin/../lib/libtorch_cuda.so");

  std::vector<Check> Checks = diagnoseProgram(Facts, gpus(9, 0));
  ASSERT_EQ(Checks.size(), 5u);
  EXPECT_FALSE(hasProblem(Checks));
  EXPECT_EQ(Checks[0].Detail, "all 6 libraries it loads are found");
  EXPECT_EQ(Checks[1].Detail, "it loads libtorch from " + cudaLib() +
                                  " (libtorch_cpu.so through RUNPATH of "
                                  "cmake_app)");
  EXPECT_EQ(Checks[2].Detail,
            cudaLib() + " is a CUDA build (libc10_cuda.so, libtorch_cuda.so)");
  EXPECT_EQ(Checks[3].Detail,
            "libtorch_cuda.so is loaded, needed by cmake_app");
  EXPECT_EQ(Checks[4].Detail,
            "libtorch_cuda has code for sm_70, sm_80, compute_80 (PTX); GPU "
            "0 (Test GPU, compute capability 9.0) runs it");
}

TEST_F(ProgramDoctor, AsNeededDropsLibtorchCuda) {
  ProgramFacts Facts = inspect("cuda/bin/as_needed");
  EXPECT_EQ(Facts.Elf.Needed,
            (std::vector<std::string>{"libtorch_cpu.so", "libc.so.6"}));
  EXPECT_TRUE(Facts.TorchHasCuda);
  EXPECT_FALSE(Facts.LoadsTorchCuda);
  std::vector<Check> Checks = diagnoseProgram(Facts, gpus(8, 0));
  Check Loaded = find(Checks, "libtorch_cuda loaded");
  ASSERT_EQ(Loaded.State, Status::Fail);
  EXPECT_EQ(Loaded.Detail,
            "nothing it loads needs libtorch_cuda.so (it links "
            "libtorch_cpu.so), so libtorch's CUDA backend never registers and "
            "torch::cuda::is_available() is false; the linker drops "
            "-ltorch_cuda under --as-needed (the default of Ubuntu's GCC) "
            "because the program references none of its symbols");
  EXPECT_EQ(fixFor(Loaded, "Makefile"),
            "LDLIBS += -Wl,--no-as-needed -ltorch_cuda -Wl,--as-needed, "
            "before -ltorch -ltorch_cpu -lc10");
  EXPECT_EQ(fixFor(Loaded, "qmake"),
            "LIBS += -Wl,--no-as-needed -ltorch_cuda -Wl,--as-needed, before "
            "-ltorch -ltorch_cpu -lc10");
  EXPECT_TRUE(has(fixFor(Loaded, "CMake"),
                  "target_link_libraries(app PRIVATE \"${TORCH_LIBRARIES}\")"));
  EXPECT_EQ(find(Checks, "libraries found").State, Status::Ok);
  EXPECT_EQ(find(Checks, "libtorch has CUDA").State, Status::Ok);
}

TEST_F(ProgramDoctor, LibrariesNotFoundNamesWhereTheyWereLookedFor) {
  ProgramFacts Facts = inspect("cuda/bin/no_runpath");
  Check Found = diagnoseProgram(Facts, gpus(8, 0))[0];
  ASSERT_EQ(Found.State, Status::Fail);
  EXPECT_EQ(Found.Detail, "ld.so stops the program before main: libtorch.so "
                          "(needed by no_runpath) is not found; looked in " +
                              Root + "/system (default folder)");
  EXPECT_EQ(fixFor(Found, "Makefile"),
            "LDFLAGS += -Wl,-rpath,/path/to/libtorch/lib");
  EXPECT_EQ(fixFor(Found, "qmake"), "QMAKE_RPATHDIR += /path/to/libtorch/lib");
  EXPECT_EQ(diagnoseProgram(Facts, gpus(8, 0))[1].State, Status::Skip);

  // The same program with LD_LIBRARY_PATH set finds everything there.
  ProgramFacts WithPath = inspect("cuda/bin/no_runpath", cudaLib());
  EXPECT_FALSE(hasProblem(diagnoseProgram(WithPath, gpus(8, 0))));
  ASSERT_NE(WithPath.Loaded.find("libtorch.so"), nullptr);
  EXPECT_EQ(WithPath.Loaded.find("libtorch.so")->FoundThrough,
            "LD_LIBRARY_PATH");

  // A file that is there but no ELF library stops ld.so, as it stops the
  // program: it does not look further.
  run("mkdir -p " + Root + "/broken && echo text > " + Root +
      "/broken/libtorch.so");
  ProgramFacts Broken =
      inspect("cuda/bin/no_runpath", Root + "/broken:" + cudaLib());
  Check Stopped = diagnoseProgram(Broken, gpus(8, 0))[0];
  ASSERT_EQ(Stopped.State, Status::Fail);
  EXPECT_TRUE(has(Stopped.Detail,
                  Root + "/broken/libtorch.so is not an ELF file (ld.so stops "
                         "with \"invalid ELF header\")"))
      << Stopped.Detail;
}

TEST_F(ProgramDoctor, DeployedWithoutItsLibraries) {
  // The program copied elsewhere without the folder its $ORIGIN RUNPATH
  // names: nothing of libtorch is found.
  run("mkdir -p " + Root + "/deployed/bin && cp " + Root +
      "/cuda/bin/cmake_app " + Root + "/deployed/bin/");
  ProgramFacts Facts = inspect("deployed/bin/cmake_app");
  Check Found = diagnoseProgram(Facts, gpus(8, 0))[0];
  ASSERT_EQ(Found.State, Status::Fail);
  EXPECT_TRUE(
      has(Found.Detail, "libtorch_cuda.so (needed by cmake_app) is not found; "
                        "looked in " +
                            Root +
                            "/deployed/bin/../lib (RUNPATH of "
                            "cmake_app), " +
                            Root + "/system (default folder)"))
      << Found.Detail;
  EXPECT_EQ(Found.Fix,
            "copy the missing libraries where the program's RUNPATH "
            "($ORIGIN/../lib) looks, beside the program as deployed, or tell "
            "the loader where the libraries are, in the program (a RUNPATH) "
            "rather than in every shell "
            "(LD_LIBRARY_PATH=/path/to/libtorch/lib)");
}

TEST_F(ProgramDoctor, RPathAndRunPathSearchDifferently) {
  ProgramFacts Rpath = inspect("cuda/bin/rpath");
  EXPECT_EQ(Rpath.Elf.RPath, cudaLib());
  EXPECT_FALSE(Rpath.Elf.RunPath);
  ASSERT_NE(Rpath.Loaded.find("libtorch.so"), nullptr);
  ASSERT_NE(Rpath.Loaded.find("libtorch_cpu.so"), nullptr);
  EXPECT_EQ(Rpath.Loaded.find("libtorch.so")->FoundThrough, "RPATH of rpath");
  // libtorch.so's own RUNPATH ($ORIGIN) hides the program's RPATH from its
  // own needs.
  EXPECT_EQ(Rpath.Loaded.find("libtorch_cpu.so")->FoundThrough,
            "RUNPATH of libtorch.so");
  EXPECT_FALSE(hasProblem(diagnoseProgram(Rpath, gpus(8, 0))));

  // libplugin.so has no path of its own: the program's RPATH is searched for
  // its libextra.so, the program's RUNPATH is not.
  ProgramFacts ViaRpath = inspect("cuda/bin/plugin_rpath");
  const LoadedLibrary *Extra = ViaRpath.Loaded.find("libextra.so");
  ASSERT_NE(Extra, nullptr);
  EXPECT_EQ(Extra->NeededBy, "libplugin.so");
  EXPECT_EQ(Extra->FoundThrough, "RPATH of plugin_rpath");

  ProgramFacts ViaRunpath = inspect("cuda/bin/plugin_runpath");
  EXPECT_EQ(ViaRunpath.Loaded.find("libextra.so"), nullptr);
  Check Found = diagnoseProgram(ViaRunpath, gpus(8, 0))[0];
  ASSERT_EQ(Found.State, Status::Fail);
  EXPECT_EQ(Found.Detail, "ld.so stops the program before main: libextra.so "
                          "(needed by libplugin.so) is not found; looked in " +
                              Root + "/system (default folder)");
}

TEST_F(ProgramDoctor, CpuOnlyLibtorch) {
  ProgramFacts Facts = inspect("cpu/bin/cpu_app");
  std::vector<Check> Checks = diagnoseProgram(Facts, gpus(8, 0));
  Check Cuda = find(Checks, "libtorch has CUDA");
  ASSERT_EQ(Cuda.State, Status::Fail);
  EXPECT_EQ(Cuda.Detail, cpuLib() + " holds a CPU-only libtorch (no "
                                    "libtorch_cuda.so beside "
                                    "libtorch_cpu.so), so the program can "
                                    "never use a GPU");
  EXPECT_EQ(fixFor(Cuda, "Makefile"),
            "TORCH = /path/to/libtorch; CXXFLAGS += -I$(TORCH)/include "
            "-I$(TORCH)/include/torch/csrc/api/include; LDFLAGS += "
            "-L$(TORCH)/lib -Wl,-rpath,$(TORCH)/lib; LDLIBS += "
            "-Wl,--no-as-needed -ltorch_cuda -Wl,--as-needed -ltorch "
            "-ltorch_cpu -lc10");
  EXPECT_EQ(find(Checks, "libtorch_cuda loaded").State, Status::Skip);
  EXPECT_EQ(find(Checks, "GPU architectures").State, Status::Skip);
}

TEST_F(ProgramDoctor, TwoLibtorchInstallationsMixed) {
  ProgramFacts Facts = inspect("cuda/bin/cmake_app", Root + "/stray");
  ASSERT_EQ(Facts.TorchFolders.size(), 2u);
  Check Torch = find(diagnoseProgram(Facts, gpus(8, 0)), "libtorch");
  ASSERT_EQ(Torch.State, Status::Fail);
  EXPECT_EQ(Torch.Detail, "it mixes libtorch libraries from 2 installations "
                          "(" +
                              cudaLib() + ", " + Root +
                              "/stray); they must come from one build");
}

TEST_F(ProgramDoctor, ArchitecturesAgainstTheGpus) {
  ProgramFacts Facts = inspect("cuda/bin/cmake_app");
  // sm_70 SASS runs on 7.5; compute_80 PTX is compiled for 12.0 by the
  // driver; 6.1 has neither.
  EXPECT_EQ(diagnoseProgram(Facts, gpus(7, 5))[4].State, Status::Ok);
  EXPECT_EQ(diagnoseProgram(Facts, gpus(12, 0))[4].State, Status::Ok);
  Check Old = diagnoseProgram(Facts, gpus(6, 1))[4];
  ASSERT_EQ(Old.State, Status::Fail);
  EXPECT_EQ(Old.Detail,
            "libtorch_cuda has code for sm_70, sm_80, compute_80 (PTX); GPU 0 "
            "(Test GPU, compute capability 6.1) has none it can run, so every "
            "kernel fails with \"no kernel image is available for execution "
            "on the device\"");
  EXPECT_TRUE(has(Old.Fix, "TORCH_CUDA_ARCH_LIST=\"6.1\"")) << Old.Fix;

  VisibleGpus None;
  None.Unavailable = "no NVIDIA driver: libcuda.so.1: cannot open";
  Check Skipped = diagnoseProgram(Facts, None)[4];
  EXPECT_EQ(Skipped.State, Status::Skip);
  EXPECT_EQ(Skipped.Detail,
            "libtorch_cuda has code for sm_70, sm_80, compute_80 (PTX); no "
            "GPU to compare it with (no NVIDIA driver: libcuda.so.1: cannot "
            "open)");
}

TEST_F(ProgramDoctor, BadInputIsOneClearError) {
  writeFile(Root + "/text.txt", "hello\n");
  writeFile(Root + "/script.sh", "#!/bin/sh\nexec ./app\n");
  writeFile(Root + "/app.exe", std::string("MZ") + std::string(200, '\0'));
  std::string Program = readFile(Root + "/cuda/bin/cmake_app");
  writeFile(Root + "/truncated", Program.substr(0, 40));
  writeFile(Root + "/headers-cut", Program.substr(0, 100));
  std::string ThirtyTwo = Program;
  ThirtyTwo[4] = 1;
  ThirtyTwo[18] = 3;
  writeFile(Root + "/thirty-two", ThirtyTwo);
  std::string Foreign = Program;
  Foreign[18] = static_cast<char>(183);
  Foreign[19] = 0;
  writeFile(Root + "/foreign", Foreign);
  run(std::string(TORCHLINT_TEST_C_COMPILER) + " -c -o " + Root +
      "/object.o -x c /dev/null");

  EXPECT_EQ(inspectError(Root + "/missing"),
            "cannot read it: No such file or directory");
  EXPECT_EQ(inspectError(Root), "cannot read it: it is a directory");
  EXPECT_EQ(inspectError(Root + "/text.txt"), "it is not an ELF program");
  EXPECT_EQ(inspectError(Root + "/script.sh"),
            "it is a script, not a program; name the executable it runs");
  EXPECT_TRUE(has(inspectError(Root + "/app.exe"),
                  "it is a Windows (PE) executable; reading its imports is "
                  "not supported yet"));
  EXPECT_EQ(inspectError(Root + "/truncated"),
            "it is cut off inside its ELF header (truncated?)");
  EXPECT_EQ(inspectError(Root + "/headers-cut"),
            "its program headers lie past the end of the file (truncated?)");
  EXPECT_EQ(inspectError(Root + "/thirty-two"),
            "it is a 32-bit ELF file (x86 (32-bit)); libtorch exists for "
            "64-bit programs only");
  if (hostMachine() == MachineX86_64)
    EXPECT_EQ(inspectError(Root + "/foreign"),
              "it is built for AArch64, and this machine is x86-64; run the "
              "doctor where the program runs");
  EXPECT_EQ(inspectError(Root + "/object.o"),
            "it is an ELF object file, not a linked program");
}

TEST_F(ProgramDoctor, CommandLine) {
  // Only the program's own paths: this machine's libtorch plays no part.
  // --library-path= : the program runs with no LD_LIBRARY_PATH, whatever
  // the test's own environment has.
  RunResult Good = runDoctor(
      "--library-path= --binary '" + Root + "/cuda/bin/cmake_app'", "2>&1");
  EXPECT_EQ(Good.ExitCode, 0) << Good.Output;
  EXPECT_TRUE(has(Good.Output, "program: " + Root + "/cuda/bin/cmake_app"))
      << Good.Output;
  EXPECT_TRUE(has(Good.Output, "problems: none")) << Good.Output;

  RunResult Dropped = runDoctor(
      "--library-path= --binary '" + Root + "/cuda/bin/as_needed'", "2>&1");
  EXPECT_EQ(Dropped.ExitCode, 1) << Dropped.Output;
  EXPECT_TRUE(has(Dropped.Output, "FAIL libtorch_cuda loaded: "));
  EXPECT_TRUE(has(Dropped.Output,
                  "     fix (Makefile): LDLIBS += -Wl,--no-as-needed "
                  "-ltorch_cuda -Wl,--as-needed, before -ltorch -ltorch_cpu "
                  "-lc10\n"))
      << Dropped.Output;
  EXPECT_TRUE(has(Dropped.Output,
                  "problems: 1; start with the first (libtorch_cuda loaded)"));

  RunResult Json = runDoctor("--json --library-path= --binary '" + Root +
                                 "/cuda/bin/as_needed'",
                             "2>/dev/null");
  nlohmann::json Parsed = nlohmann::json::parse(Json.Output, nullptr, false);
  ASSERT_FALSE(Parsed.is_discarded()) << Json.Output;
  EXPECT_EQ(Json.ExitCode, 1);
  EXPECT_EQ(Parsed["problems"], 1);
  EXPECT_EQ(Parsed["program"]["loads_libtorch_cuda"], false);
  EXPECT_EQ(Parsed["checks"][3]["status"], "FAIL");
  EXPECT_TRUE(Parsed["checks"][3]["fixes"].contains("qmake"));

  RunResult Bad = runDoctor("--binary /etc/hostname-not-there-at-all");
  EXPECT_EQ(Bad.ExitCode, 2);
  EXPECT_EQ(Bad.Output, "torchlint-doctor: error: "
                        "/etc/hostname-not-there-at-all: cannot read it: No "
                        "such file or directory\n");
  RunResult Empty = runDoctor("--binary=");
  EXPECT_EQ(Empty.ExitCode, 2);
  EXPECT_EQ(Empty.Output, "torchlint-doctor: error: --binary needs a value "
                          "(see --help)\n");
  RunResult NoValue = runDoctor("--binary");
  EXPECT_EQ(NoValue.ExitCode, 2);
  EXPECT_EQ(NoValue.Output, "torchlint-doctor: error: --binary needs a value "
                            "(see --help)\n");
}

TEST_F(ProgramDoctor, RealProgramLinkedAgainstThisMachinesLibtorch) {
  // The doctor itself is a program linked against the libtorch it was built
  // with: Debian's CPU-only one here, a CUDA one on the GPU machine.
  RunResult Result = runDoctor(
      std::string("--binary '") + TORCHLINT_DOCTOR_BINARY + "'", "2>/dev/null");
  EXPECT_TRUE(has(Result.Output, "OK   libraries found: all "))
      << Result.Output;
  EXPECT_TRUE(has(Result.Output, "OK   libtorch: it loads libtorch from "))
      << Result.Output;
#ifdef TORCHLINT_TORCH_HAS_CUDA
  EXPECT_TRUE(has(Result.Output, "OK   libtorch has CUDA: ")) << Result.Output;
  EXPECT_TRUE(has(Result.Output, "OK   libtorch_cuda loaded: "))
      << Result.Output;
#else
  EXPECT_EQ(Result.ExitCode, 1) << Result.Output;
  EXPECT_TRUE(has(Result.Output, "FAIL libtorch has CUDA: ")) << Result.Output;
  EXPECT_TRUE(has(Result.Output, "holds a CPU-only libtorch (no "
                                 "libtorch_cuda.so beside libtorch_cpu.so)"))
      << Result.Output;
#endif
}

//===----------------------------------------------------------------------===//
// The readers
//===----------------------------------------------------------------------===//

TEST(FatBinaryReader, CraftedSection) {
  std::string Bytes =
      fatBinary({fatBinaryEntry(2, 90, 24), fatBinaryEntry(1, 90, 8)}) +
      std::string(8, '\0') + fatBinary({fatBinaryEntry(2, 120, 0)});
  MemorySource Source(Bytes);
  GpuCode Code = readFatBinaries(Source, 0, Bytes.size());
  EXPECT_EQ(Code.Problem, "");
  EXPECT_EQ(Code.Sass, (std::set<int>{90, 120}));
  EXPECT_EQ(Code.Ptx, (std::set<int>{90}));
  EXPECT_EQ(Code.Entries, 3u);
  EXPECT_TRUE(canRun(Code, 9, 0));
  EXPECT_TRUE(canRun(Code, 12, 1));
  EXPECT_TRUE(canRun(Code, 10, 0)) << "compute_90 PTX compiles for 10.0";
  EXPECT_FALSE(canRun(Code, 8, 9));

  // A size that runs past the section stops the read with a reason.
  GpuCode Cut = readFatBinaries(Source, 0, Bytes.size() - 30);
  EXPECT_FALSE(Cut.Problem.empty());
  std::string Junk = "not a fat binary at all";
  MemorySource JunkSource(Junk);
  EXPECT_EQ(readFatBinaries(JunkSource, 0, Junk.size()).Problem,
            "an unknown fat binary header at offset 0 of the section");
}

TEST(FatBinaryReader, WhatNvccWrites) {
  const char *Nvcc = "/usr/local/cuda/bin/nvcc";
  if (access(Nvcc, X_OK) != 0)
    GTEST_SKIP() << "no nvcc at " << Nvcc;
  char Template[] = "/tmp/torchlint-fatbin-XXXXXX";
  ASSERT_NE(mkdtemp(Template), nullptr);
  std::string Folder = Template;
  writeFile(Folder + "/k.cu", "__global__ void k(float *x) { x[0] = 1; }\n");
  run(std::string(Nvcc) + " -shared -Xcompiler -fPIC -o " + Folder +
      "/libk.so " + Folder +
      "/k.cu -gencode arch=compute_80,code=sm_80 -gencode "
      "arch=compute_90,code=[sm_90,compute_90]");
  std::string Error;
  std::unique_ptr<FileSource> File =
      FileSource::open(Folder + "/libk.so", Error);
  ASSERT_TRUE(File) << Error;
  std::optional<ElfFile> Elf = readElf(*File, Error);
  ASSERT_TRUE(Elf) << Error;
  GpuCode Code = readGpuCode(*File, *Elf);
  EXPECT_EQ(Code.Problem, "");
  EXPECT_EQ(Code.Sass, (std::set<int>{80, 90}));
  EXPECT_EQ(Code.Ptx, (std::set<int>{90}));
  runCommand("rm -rf '" + Folder + "'");
}

std::string loaderCache(
    const std::vector<std::tuple<int, std::string, std::string>> &Entries) {
  std::string Strings, Table;
  std::size_t StringsStart = 48 + Entries.size() * 24;
  for (const auto &[Flags, Name, Path] : Entries) {
    appendLittle(Table, static_cast<std::uint32_t>(Flags), 4);
    appendLittle(Table, StringsStart + Strings.size(), 4);
    Strings += Name + '\0';
    appendLittle(Table, StringsStart + Strings.size(), 4);
    Strings += Path + '\0';
    appendLittle(Table, 0, 4);
    appendLittle(Table, 0, 8);
  }
  std::string Header = "glibc-ld.so.cache1.1";
  appendLittle(Header, Entries.size(), 4);
  appendLittle(Header, Strings.size(), 4);
  Header.resize(48, '\0');
  return Header + Table + Strings;
}

TEST(LoaderCache, NewFormatKeepsThisMachinesEntries) {
  std::string Bytes = loaderCache({{0x0303, "libc10.so", "/x86/libc10.so"},
                                   {0x0a03, "libc10.so", "/arm/libc10.so"},
                                   {0x0303, "libm.so.6", "/x86/libm.so.6"}});
  MemorySource Source(Bytes);
  auto Entries = parseLoaderCache(Source, MachineX86_64);
  ASSERT_TRUE(Entries);
  EXPECT_EQ(Entries->size(), 2u);
  EXPECT_EQ(Entries->find("libc10.so")->second, "/x86/libc10.so");
  auto Arm = parseLoaderCache(Source, MachineAArch64);
  ASSERT_TRUE(Arm);
  EXPECT_EQ(Arm->size(), 1u);
  EXPECT_EQ(Arm->find("libc10.so")->second, "/arm/libc10.so");

  MemorySource Cut(Bytes.substr(0, 60));
  EXPECT_FALSE(parseLoaderCache(Cut, MachineX86_64));
  MemorySource NotACache(std::string("hello world, no cache here at all"));
  EXPECT_FALSE(parseLoaderCache(NotACache, MachineX86_64));
}

TEST(LoaderCache, OldFormatBeforeTheNewOne) {
  std::string New = loaderCache({{0x0303, "libz.so.1", "/lib/libz.so.1"}});
  std::string Old = "ld.so-1.7.0";
  Old.resize(12, '\0');
  appendLittle(Old, 1, 4); // One old entry of 12 bytes.
  Old.append(12, '\0');
  Old.resize((Old.size() + 7) & ~std::size_t(7), '\0');
  MemorySource Source(Old + New);
  auto Entries = parseLoaderCache(Source, MachineX86_64);
  ASSERT_TRUE(Entries);
  // Offsets count from the new header, so the old table does not shift them.
  EXPECT_EQ(Entries->find("libz.so.1")->second, "/lib/libz.so.1");
}

TEST(LoaderCache, ThisMachinesCacheHasLibc) {
  std::string Error;
  std::unique_ptr<FileSource> Cache =
      FileSource::open("/etc/ld.so.cache", Error);
  if (!Cache)
    GTEST_SKIP() << "no /etc/ld.so.cache: " << Error;
  auto Entries = parseLoaderCache(*Cache, hostMachine());
  ASSERT_TRUE(Entries);
  ASSERT_TRUE(Entries->count("libc.so.6"));
  EXPECT_EQ(access(Entries->find("libc.so.6")->second.c_str(), R_OK), 0);
}

TEST(ElfReader, ReadsALinkedProgram) {
  std::string Error;
  std::unique_ptr<FileSource> File =
      FileSource::open(TORCHLINT_DOCTOR_BINARY, Error);
  ASSERT_TRUE(File) << Error;
  std::optional<ElfFile> Elf = readElf(*File, Error);
  ASSERT_TRUE(Elf) << Error;
  EXPECT_TRUE(Elf->Is64Bit);
  EXPECT_EQ(Elf->Machine, hostMachine());
  EXPECT_TRUE(Elf->Interpreter);
  EXPECT_NE(std::find(Elf->Needed.begin(), Elf->Needed.end(), "libc.so.6"),
            Elf->Needed.end());
  EXPECT_TRUE(Elf->section(".dynamic"));
  EXPECT_TRUE(Elf->section(".text"));
}

//===----------------------------------------------------------------------===//
// Build folders
//===----------------------------------------------------------------------===//

TEST(LinkCommand, AsNeededStateAndLibraryNames) {
  std::vector<LinkedLibrary> Libraries = parseLinkCommand(
      "/usr/bin/c++ main.o -o app -Wl,-rpath,/opt/libtorch/lib "
      "/opt/libtorch/lib/libtorch.so /opt/libtorch/lib/libc10.so "
      "-Wl,--no-as-needed,\"/opt/libtorch/lib/libtorch_cuda.so\" "
      "-Wl,--as-needed -ltorch_cpu -l:libc10_cuda.so.2 libfoo.a -lpthread");
  ASSERT_EQ(Libraries.size(), 7u);
  EXPECT_EQ(Libraries[0].Name, "torch");
  EXPECT_EQ(Libraries[1].Name, "c10");
  EXPECT_EQ(Libraries[2].Name, "torch_cuda");
  EXPECT_TRUE(Libraries[2].NoAsNeeded);
  EXPECT_EQ(Libraries[2].Spelling, "/opt/libtorch/lib/libtorch_cuda.so");
  EXPECT_EQ(Libraries[3].Name, "torch_cpu");
  EXPECT_TRUE(Libraries[3].AsNeeded);
  EXPECT_EQ(Libraries[4].Name, "c10_cuda");
  EXPECT_EQ(Libraries[5].Name, "foo");
  EXPECT_EQ(Libraries[6].Name, "pthread");

  EXPECT_EQ(splitCommandLine("a 'b c' \"d \\\"e\\\"\" f\\ g"),
            (std::vector<std::string>{"a", "b c", "d \"e\"", "f g"}));
}

/// A build folder as CMake leaves it, against the fixture's CUDA libtorch.
class BuildFolderTest : public ::testing::Test {
protected:
  std::string Root;
  std::string Torch;

  void SetUp() override {
    char Template[] = "/tmp/torchlint-build-folder-XXXXXX";
    ASSERT_NE(mkdtemp(Template), nullptr);
    Root = Template;
    Torch = Root + "/libtorch";
    run("mkdir -p " + Torch + "/lib " + Torch + "/share/cmake/Torch " + Torch +
        "/share/cmake/Caffe2 " + Root + "/build");
    for (const char *Name : {"libtorch.so", "libtorch_cpu.so", "libc10.so",
                             "libtorch_cuda.so", "libc10_cuda.so"})
      writeFile(Torch + "/lib/" + Name, "");
    writeFile(Torch + "/share/cmake/Caffe2/Caffe2Config.cmake",
              "if(ON)\n"
              "  # The file public/cuda.cmake exclusively uses CAFFE2_USE_*.\n"
              "  set(CAFFE2_USE_CUDA ON)\n"
              "  include(\"${CMAKE_CURRENT_LIST_DIR}/public/cuda.cmake\")\n"
              "endif()\n");
    writeFile(Root + "/build/CMakeCache.txt", "# This is the CMakeCache file.\n"
                                              "CMAKE_GENERATOR:INTERNAL=Ninja\n"
                                              "Torch_DIR:PATH=" +
                                                  Torch +
                                                  "/share/cmake/Torch\n");
  }
  void TearDown() override { runCommand("rm -rf '" + Root + "'"); }

  std::vector<Check> diagnose() {
    std::string Error;
    std::optional<BuildFolder> Build = readBuildFolder(Root + "/build", Error);
    EXPECT_TRUE(Build) << Error;
    return Build ? diagnoseBuildFolder(*Build) : std::vector<Check>();
  }
};

const char *const NinjaEdges =
    "build good: CXX_EXECUTABLE_LINKER__good_Release main.o\n"
    "  LINK_LIBRARIES = -Wl,-rpath,$LIB  $LIB/libtorch.so  $LIB/libc10.so  "
    "-Wl,--no-as-needed,\"$LIB/libtorch_cuda.so\" -Wl,--as-needed  "
    "-Wl,--no-as-needed,\"$LIB/libtorch_cpu.so\" -Wl,--as-needed\n"
    "  OBJECT_DIR = CMakeFiles/good.dir\n"
    "\n"
    "build libbyhand.so: CXX_SHARED_LIBRARY_LINKER__byhand_Release hand.o\n"
    "  LINK_LIBRARIES = -ltorch_cpu  -lc10\n"
    "\n"
    "build dropped: CXX_EXECUTABLE_LINKER__dropped_Release main.o\n"
    "  LINK_FLAGS = -Wl,--as-needed\n"
    "  LINK_LIBRARIES = -ltorch_cuda -ltorch_cpu $\n"
    "      -lc10\n"
    "\n"
    "build unrelated: C_EXECUTABLE_LINKER__unrelated_Release u.o\n"
    "  LINK_LIBRARIES = -lm\n"
    "\n"
    "build main.o: CXX_COMPILER__good_Release main.cpp\n";

std::string withLibrary(std::string Text, const std::string &Lib) {
  for (std::size_t At = Text.find("$LIB"); At != std::string::npos;
       At = Text.find("$LIB"))
    Text.replace(At, 4, Lib);
  return Text;
}

TEST_F(BuildFolderTest, NinjaLinkLines) {
  writeFile(Root + "/build/build.ninja",
            withLibrary(NinjaEdges, Torch + "/lib"));
  std::vector<Check> Checks = diagnose();
  ASSERT_EQ(Checks.size(), 5u);
  EXPECT_EQ(Checks[0].Detail, "Torch_DIR is " + Torch +
                                  "/share/cmake/Torch; its libraries are in " +
                                  Torch + "/lib");
  EXPECT_EQ(Checks[1].State, Status::Ok);
  EXPECT_EQ(Checks[2].Name, "link line of good");
  EXPECT_EQ(Checks[2].State, Status::Ok);
  EXPECT_EQ(Checks[2].Detail, "it links " + Torch +
                                  "/lib/libtorch_cuda.so under "
                                  "--no-as-needed (build.ninja)");
  EXPECT_EQ(Checks[3].Name, "link line of libbyhand.so");
  ASSERT_EQ(Checks[3].State, Status::Fail);
  EXPECT_EQ(Checks[3].Detail,
            "it links -ltorch_cpu, -lc10 (build.ninja) but not "
            "libtorch_cuda.so, so the program runs CPU-only although its "
            "libtorch has CUDA");
  // The fix names the CMake target, which the rule's name carries.
  EXPECT_TRUE(
      has(fixFor(Checks[3], "CMake"),
          "target_link_libraries(byhand PRIVATE \"${TORCH_LIBRARIES}\")"))
      << fixFor(Checks[3], "CMake");
  EXPECT_EQ(Checks[4].Name, "link line of dropped");
  ASSERT_EQ(Checks[4].State, Status::Fail);
  EXPECT_EQ(Checks[4].Detail,
            "it links -ltorch_cuda under --as-needed (build.ninja), so the "
            "linker drops it: the program references none of its symbols");
}

TEST_F(BuildFolderTest, CompilerThatPassesAsNeededByDefault) {
  // A driver whose link command has --as-needed first, as Debian's and
  // Ubuntu's GCC have: a library with no flag of its own is dropped.
  writeFile(Root + "/fake-cc", "#!/bin/sh\n"
                               "echo ' \"/usr/bin/ld\" \"--as-needed\" "
                               "-o /dev/null' >&2\n");
  run("chmod +x " + Root + "/fake-cc");
  EXPECT_EQ(compilerAddsAsNeeded(Root + "/fake-cc"), true);
  EXPECT_EQ(compilerAddsAsNeeded("relative/cc"), std::nullopt);
  writeFile(Root + "/build/CMakeCache.txt",
            "CMAKE_CXX_COMPILER:FILEPATH=" + Root +
                "/fake-cc\n"
                "Torch_DIR:PATH=" +
                Torch + "/share/cmake/Torch\n");
  writeFile(Root + "/build/build.ninja",
            "build app: CXX_EXECUTABLE_LINKER__app_ main.o\n"
            "  LINK_LIBRARIES = -ltorch_cuda -ltorch_cpu -lc10\n");
  std::vector<Check> Checks = diagnose();
  ASSERT_EQ(Checks.size(), 3u);
  ASSERT_EQ(Checks[2].State, Status::Fail);
  EXPECT_EQ(Checks[2].Detail,
            "it links -ltorch_cuda (build.ninja) with no --no-as-needed "
            "before it, and the compiler passes --as-needed to the linker by "
            "default, so the linker drops it: the program references none "
            "of its symbols");
}

TEST_F(BuildFolderTest, MakefileLinkTxt) {
  run("mkdir -p " + Root + "/build/CMakeFiles/app.dir " + Root +
      "/build/sub/CMakeFiles/static.dir");
  writeFile(Root + "/build/CMakeFiles/app.dir/link.txt",
            "/usr/bin/c++ CMakeFiles/app.dir/main.cpp.o -o app "
            "-ltorch_cpu -lc10\n");
  writeFile(Root + "/build/sub/CMakeFiles/static.dir/link.txt",
            "/usr/bin/ar qc libstatic.a a.o\n/usr/bin/ranlib libstatic.a\n");
  std::vector<Check> Checks = diagnose();
  ASSERT_EQ(Checks.size(), 3u);
  EXPECT_EQ(Checks[2].Name, "link line of app");
  EXPECT_EQ(Checks[2].State, Status::Fail);
  EXPECT_TRUE(has(Checks[2].Detail, "(CMakeFiles/app.dir/link.txt)"))
      << Checks[2].Detail;
}

TEST_F(BuildFolderTest, FileApiReply) {
  run("mkdir -p " + Root + "/build/.cmake/api/v1/reply");
  writeFile(Root + "/build/.cmake/api/v1/reply/target-app-Debug-0123.json",
            R"({"name": "app", "link": {"commandFragments": [
                 {"fragment": "-Wl,--no-as-needed,\"/t/libtorch_cuda.so\" -Wl,--as-needed", "role": "libraries"},
                 {"fragment": "-ltorch_cpu", "role": "libraries"}]}})");
  writeFile(Root + "/build/.cmake/api/v1/reply/target-lib-Debug-4567.json",
            R"({"name": "lib", "archive": {}})");
  std::vector<Check> Checks = diagnose();
  ASSERT_EQ(Checks.size(), 3u);
  EXPECT_EQ(Checks[2].Name, "link line of app");
  EXPECT_EQ(Checks[2].State, Status::Ok) << Checks[2].Detail;
}

TEST_F(BuildFolderTest, CpuOnlyAndMissingLibtorch) {
  run("rm " + Torch + "/lib/libtorch_cuda.so " + Torch + "/lib/libc10_cuda.so");
  std::vector<Check> Checks = diagnose();
  ASSERT_EQ(Checks[1].State, Status::Fail);
  EXPECT_EQ(Checks[1].Detail,
            Torch + "/lib holds a CPU-only libtorch (no libtorch_cuda.so "
                    "beside libtorch_cpu.so), although its Caffe2Config.cmake "
                    "says it was built with CUDA: the installation is "
                    "incomplete");

  writeFile(Root + "/build/CMakeCache.txt",
            "Torch_DIR:PATH=Torch_DIR-NOTFOUND\n");
  Checks = diagnose();
  ASSERT_EQ(Checks.size(), 1u);
  EXPECT_EQ(Checks[0].State, Status::Fail);
  EXPECT_TRUE(has(Checks[0].Fix, "-DCMAKE_PREFIX_PATH=")) << Checks[0].Fix;
}

TEST_F(BuildFolderTest, BadInput) {
  std::string Error;
  EXPECT_FALSE(readBuildFolder(Root + "/nothing", Error));
  EXPECT_EQ(Error, "it is not a folder");
  EXPECT_FALSE(readBuildFolder(Torch, Error));
  EXPECT_EQ(Error, "it has no CMakeCache.txt; name the folder CMake "
                   "configured (the one given to -B)");
  RunResult Result = runDoctor("--build-dir '" + Torch + "'");
  EXPECT_EQ(Result.ExitCode, 2);
  EXPECT_EQ(Result.Output, "torchlint-doctor: error: " + Torch +
                               ": it has no CMakeCache.txt; name the folder "
                               "CMake configured (the one given to -B)\n");
}

TEST(BuildFolder, ARealCMakeProjectAgainstThisMachinesLibtorch) {
  char Template[] = "/tmp/torchlint-cmake-project-XXXXXX";
  ASSERT_NE(mkdtemp(Template), nullptr);
  std::string Root = Template;
  writeFile(Root + "/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\n"
            "project(app CXX)\n"
            "find_package(Torch REQUIRED)\n"
            "add_executable(app main.cpp)\n"
            "target_link_libraries(app \"${TORCH_LIBRARIES}\")\n");
  writeFile(Root + "/main.cpp", "int main() {}\n");
  run("cmake -S '" + Root + "' -B '" + Root +
      "/build' -G 'Unix Makefiles' "
      "-DTorch_DIR='" TORCHLINT_TEST_TORCH_DIR "' >/dev/null");
  RunResult Result = runDoctor("--build-dir '" + Root + "/build'");
  EXPECT_TRUE(
      has(Result.Output, "build folder: " + Root + "/build (Unix Makefiles)\n"))
      << Result.Output;
  EXPECT_TRUE(has(Result.Output, "OK   libtorch: Torch_DIR is "))
      << Result.Output;
#ifdef TORCHLINT_TORCH_HAS_CUDA
  EXPECT_TRUE(has(Result.Output, "OK   libtorch has CUDA")) << Result.Output;
  EXPECT_TRUE(has(Result.Output, "OK   link line of app: ")) << Result.Output;
  EXPECT_EQ(Result.ExitCode, 0) << Result.Output;
#else
  EXPECT_TRUE(has(Result.Output, "FAIL libtorch has CUDA")) << Result.Output;
  EXPECT_TRUE(has(Result.Output, "its Caffe2Config.cmake agrees (CUDA off)"))
      << Result.Output;
  EXPECT_EQ(Result.ExitCode, 1) << Result.Output;
#endif
  runCommand("rm -rf '" + Root + "'");
}

} // namespace
