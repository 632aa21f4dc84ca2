//===--- ProgramDoctor.cpp - Why a user's program runs CPU-only -----------===//

#include "ProgramDoctor.h"
#include "DoctorText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <ostream>
#include <set>

#include <dirent.h>
#include <unistd.h>

namespace torchlint::doctor {

namespace {

const char *const LibrariesCheck = "libraries found";
const char *const TorchCheck = "libtorch";
const char *const TorchCudaCheck = "libtorch has CUDA";
const char *const LoadsCudaCheck = "libtorch_cuda loaded";
const char *const ArchitecturesCheck = "GPU architectures";

const char *const CudaLibtorchSource =
    "a CUDA libtorch: the \"cxx11 ABI\" CUDA download from "
    "https://pytorch.org/get-started/locally/, or pip's torch (its folder is "
    "`python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))'`); "
    "Debian's libtorch-dev is CPU-only";

std::string realFolder(const std::string &Path) {
  std::string Folder = folderOf(Path);
  char Real[PATH_MAX];
  return realpath(Folder.c_str(), Real) ? std::string(Real) : Folder;
}

/// libtorch's own libraries, not those of projects named after it
/// (libtorchvision, libtorchaudio, libtorch_tensorrt).
bool isTorchLibrary(const std::string &Stem) {
  return Stem == "libtorch" || Stem == "libtorch_cpu" ||
         startsWith(Stem, "libtorch_cuda") || Stem == "libtorch_hip" ||
         Stem == "libtorch_global_deps" || Stem == "libc10" ||
         Stem == "libc10_cuda" || Stem == "libc10_hip";
}

bool isTorchCuda(const std::string &Stem) {
  return startsWith(Stem, "libtorch_cuda");
}

std::string join(const std::vector<std::string> &Items,
                 const std::string &Separator) {
  std::string Text;
  for (const std::string &Item : Items)
    Text += (Text.empty() ? "" : Separator) + Item;
  return Text;
}

/// The libtorch_cuda* libraries in \p Folder, sorted: libtorch_cuda.so in
/// 2.x; libtorch_cuda_cu.so and libtorch_cuda_cpp.so in some 1.x builds.
std::vector<std::string> cudaLibrariesIn(const std::string &Folder) {
  std::vector<std::string> Found;
  std::set<std::string> Stems;
  if (DIR *Handle = opendir(Folder.c_str())) {
    while (dirent *Entry = readdir(Handle)) {
      std::string Name = Entry->d_name;
      std::string Stem = libraryStem(Name);
      if (Name.find(".so") != std::string::npos &&
          (isTorchCuda(Stem) || Stem == "libc10_cuda" ||
           Stem == "libtorch_hip") &&
          Stems.insert(Stem).second)
        Found.push_back(Name);
    }
    closedir(Handle);
  }
  std::sort(Found.begin(), Found.end());
  return Found;
}

/// The union of the GPU code of \p Folder's libtorch_cuda libraries.
std::optional<GpuCode> gpuCodeIn(const std::string &Folder,
                                 const std::vector<std::string> &Libraries) {
  std::optional<GpuCode> Union;
  for (const std::string &Name : Libraries) {
    if (!isTorchCuda(libraryStem(Name)))
      continue;
    std::string Error;
    std::unique_ptr<FileSource> File =
        FileSource::open(Folder + "/" + Name, Error);
    if (!File)
      continue;
    std::optional<ElfFile> Elf = readElf(*File, Error);
    if (!Elf || !Elf->section(".nv_fatbin"))
      continue;
    GpuCode Code = readGpuCode(*File, *Elf);
    if (!Union)
      Union = GpuCode();
    Union->Sass.insert(Code.Sass.begin(), Code.Sass.end());
    Union->Ptx.insert(Code.Ptx.begin(), Code.Ptx.end());
    Union->Entries += Code.Entries;
    if (Union->Problem.empty() && !Code.Problem.empty())
      Union->Problem = Name + ": " + Code.Problem;
  }
  return Union;
}

std::string programKind(const ElfFile &Elf) {
  std::string Kind = "64-bit " + machineName(Elf.Machine) + " ";
  if (Elf.Type == TypeExecutable)
    return Kind + "executable";
  if (Elf.Interpreter)
    return Kind + "executable (position-independent)";
  return Kind + "shared library";
}

//===----------------------------------------------------------------------===//
// The program's checks
//===----------------------------------------------------------------------===//

Check checkLibrariesFound(const ProgramFacts &F) {
  std::vector<const LoadedLibrary *> Missing;
  for (const LoadedLibrary &L : F.Loaded.Libraries)
    if (!L.Found)
      Missing.push_back(&L);
  if (Missing.empty()) {
    std::string Detail = "all " + std::to_string(F.Loaded.Libraries.size()) +
                         " libraries it loads are found";
    if (F.Loaded.Truncated)
      Detail += " (the search stopped after the first " +
                std::to_string(F.Loaded.Libraries.size()) + ")";
    return Check::ok(LibrariesCheck, Detail);
  }
  std::string Detail = "ld.so stops the program before main: ";
  std::vector<std::string> Each;
  for (const LoadedLibrary *L : Missing)
    Each.push_back(L->Name + " (needed by " + L->NeededBy +
                   ") is not found; looked in " + join(L->Searched, ", "));
  Detail += join(Each, "; ");
  // The libtorch folder is the answer only when it holds what is missing;
  // else the program loads one libtorch and looks for another's libraries.
  std::string Folder = "/path/to/libtorch/lib";
  if (!F.TorchFolder.empty() &&
      access((F.TorchFolder + "/" + Missing.front()->Name).c_str(), F_OK) == 0)
    Folder = F.TorchFolder;
  std::string Fix = "tell the loader where the libraries are, in the "
                    "program (a RUNPATH) rather than in every shell "
                    "(LD_LIBRARY_PATH=" +
                    Folder + ")";
  // A path relative to the program means it was meant to travel with its
  // libraries: the usual miss is a deployment that left them behind.
  const std::optional<std::string> &OwnPath =
      F.Elf.RunPath ? F.Elf.RunPath : F.Elf.RPath;
  if (OwnPath && contains(*OwnPath, "$ORIGIN"))
    Fix = "copy the missing libraries where the program's " +
          std::string(F.Elf.RunPath ? "RUNPATH" : "RPATH") + " (" + *OwnPath +
          ") looks, beside the program as deployed, or " + Fix;
  return Check::fail(
      LibrariesCheck, Detail, Fix,
      {{"CMake", "keep CMake's build RUNPATH (do not set "
                 "CMAKE_SKIP_RPATH), and for installed programs "
                 "set_target_properties(app PROPERTIES INSTALL_RPATH \"" +
                     Folder + "\")"},
       {"Makefile", "LDFLAGS += -Wl,-rpath," + Folder},
       {"qmake", "QMAKE_RPATHDIR += " + Folder}});
}

Check checkTorch(const ProgramFacts &F) {
  bool TorchMissing =
      std::any_of(F.Loaded.Libraries.begin(), F.Loaded.Libraries.end(),
                  [](const LoadedLibrary &L) {
                    return !L.Found && isTorchLibrary(libraryStem(L.Name));
                  });
  if (F.TorchFolder.empty()) {
    if (TorchMissing)
      return Check::skip(TorchCheck,
                         "its libtorch libraries are not found (see "
                         "above)");
    return Check::fail(
        TorchCheck,
        "it loads no libtorch library (libtorch, libtorch_cpu or "
        "libc10) among the " +
            std::to_string(F.Loaded.Libraries.size()) +
            " it needs; libtorch linked statically or opened with "
            "dlopen cannot be checked here",
        "name the program that runs the model, or link libtorch as a "
        "shared library");
  }
  if (F.TorchFolders.size() > 1)
    return Check::fail(
        TorchCheck,
        "it mixes libtorch libraries from " +
            std::to_string(F.TorchFolders.size()) + " installations (" +
            join(F.TorchFolders, ", ") + "); they must come from one build",
        "remove the other installations from LD_LIBRARY_PATH and "
        "the program's RUNPATH, so that every libtorch and c10 "
        "library comes from " +
            F.TorchFolder);
  std::string Through;
  for (const char *Stem : {"libtorch_cpu", "libtorch", "libc10"})
    for (const LoadedLibrary &L : F.Loaded.Libraries)
      if (Through.empty() && L.Found && libraryStem(L.Name) == Stem)
        Through = L.Name + " through " + L.FoundThrough;
  return Check::ok(TorchCheck, "it loads libtorch from " + F.TorchFolder +
                                   " (" + Through + ")");
}

Check checkTorchHasCuda(const ProgramFacts &F) {
  if (F.TorchFolder.empty())
    return Check::skip(TorchCudaCheck, "no libtorch to look at (see above)");
  if (F.TorchHasCuda)
    return Check::ok(TorchCudaCheck, F.TorchFolder + " is a CUDA build (" +
                                         join(F.TorchCudaLibraries, ", ") +
                                         ")");
  if (std::find(F.TorchCudaLibraries.begin(), F.TorchCudaLibraries.end(),
                "libtorch_hip.so") != F.TorchCudaLibraries.end())
    return Check::skip(TorchCudaCheck,
                       F.TorchFolder +
                           " is a ROCm build (libtorch_hip.so); the "
                           "doctor diagnoses CUDA builds only");
  std::string Detail = F.TorchFolder +
                       " holds a CPU-only libtorch (no libtorch_cuda.so "
                       "beside libtorch_cpu.so), so the program can never "
                       "use a GPU";
  // A system libtorch found only because nothing names the one the program
  // was built against is the usual way a CUDA build ends up CPU-only.
  for (const LoadedLibrary &L : F.Loaded.Libraries)
    if (L.Found && isTorchLibrary(libraryStem(L.Name))) {
      if (L.FoundThrough == "ld.so cache" || L.FoundThrough == "default folder")
        Detail += "; it was found through the " + L.FoundThrough +
                  ", so if the program was built against a CUDA libtorch "
                  "elsewhere, nothing tells the loader where that one is";
      break;
    }
  return Check::fail(
      TorchCudaCheck, Detail,
      std::string("build and run it against ") + CudaLibtorchSource,
      {{"CMake", "cmake -DCMAKE_PREFIX_PATH=/path/to/libtorch -S . -B build "
                 "(a fresh build folder, or delete Torch_DIR from "
                 "CMakeCache.txt), then target_link_libraries(app PRIVATE "
                 "\"${TORCH_LIBRARIES}\")"},
       {"Makefile",
        "TORCH = /path/to/libtorch; CXXFLAGS += -I$(TORCH)/include "
        "-I$(TORCH)/include/torch/csrc/api/include; LDFLAGS += "
        "-L$(TORCH)/lib -Wl,-rpath,$(TORCH)/lib; LDLIBS += -Wl,--no-as-needed "
        "-ltorch_cuda -Wl,--as-needed -ltorch -ltorch_cpu -lc10"},
       {"qmake", "TORCH = /path/to/libtorch; INCLUDEPATH += $$TORCH/include "
                 "$$TORCH/include/torch/csrc/api/include; LIBS += "
                 "-L$$TORCH/lib -Wl,-rpath,$$TORCH/lib -Wl,--no-as-needed "
                 "-ltorch_cuda -Wl,--as-needed -ltorch -ltorch_cpu -lc10"}});
}

std::vector<std::pair<std::string, std::string>>
linkTorchCudaFixes(const std::string &Target = "app") {
  return {{"CMake", "target_link_libraries(" + Target +
                        " PRIVATE \"${TORCH_LIBRARIES}\") (or the torch "
                        "target) instead of naming torch_cpu and c10: "
                        "TorchConfig.cmake wraps libtorch_cuda.so in "
                        "-Wl,--no-as-needed"},
          {"Makefile", "LDLIBS += -Wl,--no-as-needed -ltorch_cuda "
                       "-Wl,--as-needed, before -ltorch -ltorch_cpu -lc10"},
          {"qmake", "LIBS += -Wl,--no-as-needed -ltorch_cuda -Wl,--as-needed, "
                    "before -ltorch -ltorch_cpu -lc10"}};
}

Check checkLoadsTorchCuda(const ProgramFacts &F) {
  if (F.TorchFolder.empty() || !F.TorchHasCuda)
    return Check::skip(LoadsCudaCheck, "no CUDA libtorch to load (see above)");
  if (F.LoadsTorchCuda) {
    std::string By;
    for (const LoadedLibrary &L : F.Loaded.Libraries)
      if (By.empty() && L.Found && isTorchCuda(libraryStem(L.Name)))
        By = L.Name + " is loaded, needed by " + L.NeededBy;
    return Check::ok(LoadsCudaCheck, By);
  }
  for (const LoadedLibrary &L : F.Loaded.Libraries)
    if (!L.Found && isTorchCuda(libraryStem(L.Name)))
      return Check::skip(LoadsCudaCheck, L.Name +
                                             " is needed but not found (see "
                                             "above)");
  std::vector<std::string> Direct;
  for (const std::string &Name : F.Elf.Needed)
    if (isTorchLibrary(libraryStem(Name)))
      Direct.push_back(Name);
  return Check::fail(
      LoadsCudaCheck,
      "nothing it loads needs libtorch_cuda.so (it links " +
          (Direct.empty() ? std::string("no libtorch library itself")
                          : join(Direct, ", ")) +
          "), so libtorch's CUDA backend never registers and "
          "torch::cuda::is_available() is false; the linker drops "
          "-ltorch_cuda under --as-needed (the default of Ubuntu's "
          "GCC) because the program references none of its symbols",
      "link libtorch_cuda.so with --no-as-needed, then relink",
      linkTorchCudaFixes());
}

Check checkArchitectures(const ProgramFacts &F, const VisibleGpus &Gpus) {
  if (F.TorchFolder.empty() || !F.TorchHasCuda)
    return Check::skip(ArchitecturesCheck, "no CUDA libtorch (see above)");
  if (!F.Code)
    return Check::skip(
        ArchitecturesCheck,
        "its libtorch_cuda libraries have no .nv_fatbin section to "
        "read");
  std::string Built = "libtorch_cuda has code for " + describe(*F.Code);
  if (!F.Code->Problem.empty())
    Built += " (read partly: " + F.Code->Problem + ")";
  if (!Gpus.Unavailable.empty())
    return Check::skip(ArchitecturesCheck, Built +
                                               "; no GPU to compare it with (" +
                                               Gpus.Unavailable + ")");
  if (Gpus.Devices.empty())
    return Check::skip(ArchitecturesCheck, Built + "; the driver lists no GPU");
  std::vector<std::string> Lacking, Running;
  const GpuInfo *FirstLacking = nullptr;
  for (std::size_t I = 0; I < Gpus.Devices.size(); ++I) {
    const GpuInfo &Gpu = Gpus.Devices[I];
    if (!FirstLacking &&
        !canRun(*F.Code, Gpu.CapabilityMajor, Gpu.CapabilityMinor))
      FirstLacking = &Gpu;
    std::string Name = "GPU " + std::to_string(I) + " (" + Gpu.Name +
                       ", compute capability " +
                       std::to_string(Gpu.CapabilityMajor) + "." +
                       std::to_string(Gpu.CapabilityMinor) + ")";
    (canRun(*F.Code, Gpu.CapabilityMajor, Gpu.CapabilityMinor) ? Running
                                                               : Lacking)
        .push_back(Name);
  }
  if (Lacking.empty())
    return Check::ok(ArchitecturesCheck,
                     Built + "; " + join(Running, ", ") +
                         (Running.size() == 1 ? " runs" : " run") + " it");
  const GpuInfo &First = *FirstLacking;
  return Check::fail(
      ArchitecturesCheck,
      Built + "; " + join(Lacking, ", ") +
          (Lacking.size() == 1 ? " has" : " have") +
          " none it can run, so every kernel fails with \"no kernel "
          "image is available for execution on the device\"",
      "use a libtorch built for this GPU: a newer release whose CUDA "
      "version supports compute capability " +
          std::to_string(First.CapabilityMajor) + "." +
          std::to_string(First.CapabilityMinor) +
          ", or libtorch built from source with "
          "TORCH_CUDA_ARCH_LIST=\"" +
          std::to_string(First.CapabilityMajor) + "." +
          std::to_string(First.CapabilityMinor) + "\"");
}

//===----------------------------------------------------------------------===//
// The build folder's checks
//===----------------------------------------------------------------------===//

bool linksTorch(const LinkLine &Line) {
  return std::any_of(
      Line.Libraries.begin(), Line.Libraries.end(), [](const LinkedLibrary &L) {
        return L.Name == "torch" || L.Name == "torch_cpu" || L.Name == "c10";
      });
}

Check checkLinkLine(const LinkLine &Line,
                    std::optional<bool> CompilerAddsAsNeeded) {
  std::string Name = "link line of " + Line.Target;
  std::string Target = Line.CMakeTarget.empty() ? "app" : Line.CMakeTarget;
  std::string Where = " (" + Line.Source + ")";
  const LinkedLibrary *Cuda = Line.find("torch_cuda");
  if (!Cuda)
    for (const LinkedLibrary &L : Line.Libraries)
      if (startsWith(L.Name, "torch_cuda"))
        Cuda = &L;
  const LinkedLibrary *Torch = Line.find("torch");
  // No flag on the line: the driver's default decides.
  auto DroppedByDefault = [&](const LinkedLibrary &L) {
    return !L.NoAsNeeded && !L.AsNeeded &&
           CompilerAddsAsNeeded == std::optional<bool>(true);
  };
  if (Cuda && DroppedByDefault(*Cuda))
    return Check::fail(
        Name,
        "it links " + Cuda->Spelling + Where +
            " with no --no-as-needed before it, and the compiler "
            "passes --as-needed to the linker by default, so the "
            "linker drops it: the program references none of its "
            "symbols",
        "link libtorch_cuda.so with --no-as-needed",
        linkTorchCudaFixes(Target));
  if (Cuda && Cuda->AsNeeded)
    return Check::fail(
        Name,
        "it links " + Cuda->Spelling + " under --as-needed" + Where +
            ", so the linker drops it: the program references none "
            "of its symbols",
        "link libtorch_cuda.so with --no-as-needed",
        linkTorchCudaFixes(Target));
  if (Cuda)
    return Check::ok(
        Name, "it links " + Cuda->Spelling +
                  (Cuda->NoAsNeeded ? std::string(" under --no-as-needed")
                   : CompilerAddsAsNeeded
                       ? std::string(" and the compiler does not pass "
                                     "--as-needed by default")
                       : std::string(" (the compiler could not be asked "
                                     "whether it passes --as-needed by "
                                     "default)")) +
                  Where);
  if (Torch && !Torch->AsNeeded && !DroppedByDefault(*Torch))
    return Check::ok(
        Name, "it links " + Torch->Spelling +
                  ", which loads libtorch_cuda.so in a CUDA build" + Where);
  std::vector<std::string> Named;
  for (const LinkedLibrary &L : Line.Libraries)
    if (L.Name == "torch" || L.Name == "torch_cpu" || L.Name == "c10")
      Named.push_back(L.Spelling);
  return Check::fail(
      Name,
      "it links " + join(Named, ", ") + Where +
          " but not libtorch_cuda.so, so the program runs CPU-only "
          "although its libtorch has CUDA",
      "link libtorch_cuda.so with --no-as-needed", linkTorchCudaFixes(Target));
}

} // namespace

std::optional<ProgramFacts> inspectProgram(const std::string &Path,
                                           const LoaderSettings &Settings,
                                           std::string &Error) {
  std::string OpenError;
  std::unique_ptr<FileSource> File = FileSource::open(Path, OpenError);
  if (!File) {
    Error = "cannot read it: " + OpenError;
    return std::nullopt;
  }
  switch (sniffFormat(*File)) {
  case FileFormat::WindowsPe:
    Error = "it is a Windows (PE) executable; reading its imports is not "
            "supported yet (on Windows, a program that uses CUDA through "
            "libtorch must link torch_cuda.lib with "
            "/INCLUDE:?warp_size@cuda@at@@YAHXZ, which TorchConfig.cmake "
            "adds)";
    return std::nullopt;
  case FileFormat::Script:
    Error = "it is a script, not a program; name the executable it runs";
    return std::nullopt;
  case FileFormat::Other:
    Error = "it is not an ELF program";
    return std::nullopt;
  case FileFormat::Elf:
    break;
  }
  std::string ReadError;
  std::optional<ElfFile> Elf = readElf(*File, ReadError);
  if (!Elf) {
    Error = ReadError;
    return std::nullopt;
  }
  if (Elf->Machine != hostMachine()) {
    Error = "it is built for " + machineName(Elf->Machine) +
            ", and this machine is " + machineName(hostMachine()) +
            "; run the doctor where the program runs";
    return std::nullopt;
  }
  if (Elf->Type != TypeExecutable && Elf->Type != TypeShared) {
    Error = "it is an ELF object file, not a linked program";
    return std::nullopt;
  }

  ProgramFacts Facts;
  Facts.Path = Path;
  Facts.Elf = *Elf;
  Facts.Loaded = resolveLibraries(Path, *Elf, Settings);
  Facts.LibraryPath = Settings.LibraryPath;

  std::set<std::string> Folders;
  std::string ByStem[3];
  const char *const Preferred[] = {"libtorch_cpu", "libtorch", "libc10"};
  for (const LoadedLibrary &L : Facts.Loaded.Libraries) {
    if (!L.Found)
      continue;
    std::string Stem = libraryStem(L.Name);
    if (isTorchLibrary(Stem) && Stem != "libtorch_global_deps")
      Folders.insert(realFolder(L.Path));
    for (int I = 0; I < 3; ++I)
      if (Stem == Preferred[I] && ByStem[I].empty())
        ByStem[I] = realFolder(L.Path);
    if (isTorchCuda(Stem))
      Facts.LoadsTorchCuda = true;
  }
  for (const std::string &Folder : ByStem)
    if (Facts.TorchFolder.empty())
      Facts.TorchFolder = Folder;
  Facts.TorchFolders.assign(Folders.begin(), Folders.end());
  if (!Facts.TorchFolder.empty()) {
    Facts.TorchCudaLibraries = cudaLibrariesIn(Facts.TorchFolder);
    Facts.TorchHasCuda = std::any_of(
        Facts.TorchCudaLibraries.begin(), Facts.TorchCudaLibraries.end(),
        [](const std::string &Name) { return isTorchCuda(libraryStem(Name)); });
    if (Facts.TorchHasCuda)
      Facts.Code = gpuCodeIn(Facts.TorchFolder, Facts.TorchCudaLibraries);
  }
  return Facts;
}

std::vector<Check> diagnoseProgram(const ProgramFacts &Facts,
                                   const VisibleGpus &Gpus) {
  return {checkLibrariesFound(Facts), checkTorch(Facts),
          checkTorchHasCuda(Facts), checkLoadsTorchCuda(Facts),
          checkArchitectures(Facts, Gpus)};
}

std::vector<Check> diagnoseBuildFolder(const BuildFolder &Build) {
  std::vector<Check> Checks;
  if (Build.TorchDir.empty()) {
    Checks.push_back(Check::fail(
        TorchCheck,
        "CMakeCache.txt has no Torch_DIR (or it is Torch_DIR-NOTFOUND): "
        "find_package(Torch) did not find libtorch",
        "configure with -DCMAKE_PREFIX_PATH=/path/to/libtorch (the folder "
        "holding share/cmake/Torch), in a fresh build folder"));
    return Checks;
  }
  if (Build.TorchLibraryFolder.empty()) {
    Checks.push_back(
        Check::fail(TorchCheck,
                    "Torch_DIR is " + Build.TorchDir +
                        ", but no libtorch_cpu or libtorch library was "
                        "found beside it (TORCH_LIBRARY, ../../../lib)",
                    "point CMAKE_PREFIX_PATH at a complete libtorch and "
                    "configure a fresh build folder"));
    return Checks;
  }
  Checks.push_back(Check::ok(TorchCheck, "Torch_DIR is " + Build.TorchDir +
                                             "; its libraries are in " +
                                             Build.TorchLibraryFolder));
  std::vector<std::string> CudaLibraries =
      cudaLibrariesIn(Build.TorchLibraryFolder);
  bool HasCuda = std::any_of(
      CudaLibraries.begin(), CudaLibraries.end(),
      [](const std::string &N) { return isTorchCuda(libraryStem(N)); });
  if (HasCuda) {
    Checks.push_back(Check::ok(TorchCudaCheck,
                               Build.TorchLibraryFolder + " is a CUDA build (" +
                                   join(CudaLibraries, ", ") + ")"));
  } else {
    std::string Detail =
        Build.TorchLibraryFolder +
        " holds a CPU-only libtorch (no libtorch_cuda.so beside "
        "libtorch_cpu.so)";
    if (Build.ConfigUsesCuda == std::optional<bool>(true))
      Detail += ", although its Caffe2Config.cmake says it was built with "
                "CUDA: the installation is incomplete";
    else if (Build.ConfigUsesCuda)
      Detail += "; its Caffe2Config.cmake agrees (CUDA off)";
    Checks.push_back(
        Check::fail(TorchCudaCheck, Detail,
                    std::string("configure against ") + CudaLibtorchSource,
                    {{"CMake", "cmake -DCMAKE_PREFIX_PATH=/path/to/"
                               "libtorch -S . -B build-cuda"}}));
  }
  std::vector<const LinkLine *> TorchLines;
  for (const LinkLine &Line : Build.LinkLines)
    if (linksTorch(Line))
      TorchLines.push_back(&Line);
  if (!Build.LinkLinesSearched.empty()) {
    Checks.push_back(
        Check::skip("link lines", "no link line found (looked in " +
                                      Build.LinkLinesSearched + ")"));
  } else if (TorchLines.empty()) {
    Checks.push_back(Check::skip(
        "link lines", "none of the " + std::to_string(Build.LinkLines.size()) +
                          " linked targets links libtorch"));
  } else if (!HasCuda) {
    Checks.push_back(Check::skip(
        "link lines", "libtorch has no CUDA library to link (see above)"));
  } else {
    for (const LinkLine *Line : TorchLines)
      Checks.push_back(checkLinkLine(*Line, Build.CompilerAddsAsNeeded));
  }
  return Checks;
}

bool hasProblem(const std::vector<Check> &Checks) {
  return std::any_of(Checks.begin(), Checks.end(),
                     [](const Check &C) { return C.State == Status::Fail; });
}

void writeProgramText(std::ostream &OS, const ProgramReport &Report) {
  if (Report.Program) {
    const ProgramFacts &P = *Report.Program;
    OS << "program: " << P.Path << " (" << programKind(P.Elf);
    if (P.Elf.RunPath)
      OS << ", RUNPATH " << *P.Elf.RunPath;
    if (P.Elf.RPath)
      OS << ", RPATH " << *P.Elf.RPath;
    OS << ")\n";
    if (!P.LibraryPath.empty())
      OS << "LD_LIBRARY_PATH: " << P.LibraryPath
         << " (searched as the program would be; --library-path changes it)\n";
  }
  if (Report.Build) {
    OS << "build folder: " << Report.Build->Folder;
    if (!Report.Build->Generator.empty())
      OS << " (" << Report.Build->Generator << ")";
    OS << "\n";
  }
  const Check *First = nullptr;
  std::size_t Problems = 0;
  for (const Check &C : Report.Checks) {
    std::string Label = statusName(C.State);
    Label.resize(4, ' ');
    OS << Label << " " << C.Name << ": " << C.Detail << "\n";
    if (C.State != Status::Fail)
      continue;
    ++Problems;
    if (!First)
      First = &C;
    OS << "     fix: " << C.Fix << "\n";
    for (const auto &[Build, Fix] : C.BuildFixes)
      OS << "     fix (" << Build << "): " << Fix << "\n";
  }
  if (!First)
    OS << "problems: none\n";
  else
    OS << "problems: " << Problems << "; start with the first (" << First->Name
       << ")\n";
}

void writeProgramJson(std::ostream &OS, const ProgramReport &Report) {
  nlohmann::ordered_json Out;
  std::size_t Problems = 0;
  for (const Check &C : Report.Checks)
    Problems += C.State == Status::Fail;
  Out["problems"] = Problems;
  if (Report.Program) {
    const ProgramFacts &P = *Report.Program;
    nlohmann::ordered_json Program;
    Program["path"] = P.Path;
    Program["kind"] = programKind(P.Elf);
    Program["needed"] = P.Elf.Needed;
    Program["runpath"] = P.Elf.RunPath ? nlohmann::ordered_json(*P.Elf.RunPath)
                                       : nlohmann::ordered_json();
    Program["rpath"] = P.Elf.RPath ? nlohmann::ordered_json(*P.Elf.RPath)
                                   : nlohmann::ordered_json();
    Program["ld_library_path"] = P.LibraryPath;
    nlohmann::ordered_json Libraries = nlohmann::ordered_json::array();
    for (const LoadedLibrary &L : P.Loaded.Libraries)
      Libraries.push_back({{"name", L.Name},
                           {"needed_by", L.NeededBy},
                           {"found", L.Found},
                           {"path", L.Path},
                           {"found_through", L.FoundThrough},
                           {"searched", L.Searched}});
    Program["libraries"] = Libraries;
    Program["libtorch"] = P.TorchFolder;
    Program["libtorch_has_cuda"] = P.TorchHasCuda;
    Program["loads_libtorch_cuda"] = P.LoadsTorchCuda;
    if (P.Code) {
      Program["sass"] = P.Code->Sass;
      Program["ptx"] = P.Code->Ptx;
    }
    Out["program"] = Program;
  }
  if (Report.Build) {
    const BuildFolder &B = *Report.Build;
    nlohmann::ordered_json Build;
    Build["path"] = B.Folder;
    Build["generator"] = B.Generator;
    Build["torch_dir"] = B.TorchDir;
    Build["libtorch"] = B.TorchLibraryFolder;
    nlohmann::ordered_json Lines = nlohmann::ordered_json::array();
    for (const LinkLine &Line : B.LinkLines) {
      nlohmann::ordered_json Names = nlohmann::ordered_json::array();
      for (const LinkedLibrary &L : Line.Libraries)
        Names.push_back(L.Name);
      Lines.push_back({{"target", Line.Target},
                       {"source", Line.Source},
                       {"libraries", Names}});
    }
    Build["link_lines"] = Lines;
    Out["build_folder"] = Build;
  }
  nlohmann::ordered_json Checks = nlohmann::ordered_json::array();
  for (const Check &C : Report.Checks) {
    nlohmann::ordered_json Fixes = nlohmann::ordered_json::object();
    for (const auto &[Build, Fix] : C.BuildFixes)
      Fixes[Build] = Fix;
    Checks.push_back({{"name", C.Name},
                      {"status", statusName(C.State)},
                      {"detail", C.Detail},
                      {"fix", C.Fix},
                      {"fixes", Fixes}});
  }
  Out["checks"] = Checks;
  OS << Out.dump(2) << "\n";
}

} // namespace torchlint::doctor
