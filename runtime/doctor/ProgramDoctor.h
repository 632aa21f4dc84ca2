//===--- ProgramDoctor.h - Why a user's program runs CPU-only ---*- C++ -*-===//
//
// The doctor's second question: why does *this program's* libtorch not see
// the GPU, when the machine's does? The causes users hit are in how the
// program was linked and deployed, not in its code: a CPU-only libtorch, a
// link line whose --as-needed dropped libtorch_cuda.so, libraries that do not
// resolve beside the executable, two libtorch installations mixed, a
// libtorch built without the GPU's architecture.
//
// As in Doctor.h, gathering (inspectProgram, readBuildFolder) is kept apart
// from judging (diagnoseProgram, diagnoseBuildFolder), so that every
// diagnosis is tested on programs and build folders the tests make.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_PROGRAMDOCTOR_H
#define TORCHLINT_RUNTIME_PROGRAMDOCTOR_H

#include "BuildDirectory.h"
#include "Doctor.h"
#include "ElfFile.h"
#include "FatBinary.h"
#include "LibraryResolver.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace torchlint::doctor {

/// What a program's file and the loader's search say about its libtorch.
struct ProgramFacts {
  std::string Path;
  ElfFile Elf;
  LoadedProgram Loaded;
  /// The LD_LIBRARY_PATH the search used.
  std::string LibraryPath;
  /// The folder of the libtorch it loads (libtorch_cpu's, else libtorch's,
  /// else libc10's), links resolved; empty when it loads none.
  std::string TorchFolder;
  /// Every folder a libtorch or c10 library of it was found in, links
  /// resolved; more than one means two installations are mixed.
  std::vector<std::string> TorchFolders;
  /// TorchFolder holds libtorch_cuda (a CUDA build).
  bool TorchHasCuda = false;
  /// The names of TorchFolder's CUDA libraries, for the report.
  std::vector<std::string> TorchCudaLibraries;
  /// Something the program loads needs libtorch_cuda, and it was found.
  bool LoadsTorchCuda = false;
  /// The GPU code of TorchFolder's libtorch_cuda libraries, when it has any.
  std::optional<GpuCode> Code;
};

/// Reads the program at \p Path and resolves what it loads; nullopt with
/// \p Error (one sentence naming the problem) for a file that is missing,
/// not a program, or not for this machine.
std::optional<ProgramFacts> inspectProgram(const std::string &Path,
                                           const LoaderSettings &Settings,
                                           std::string &Error);

/// The GPUs to compare the GPU code with: the driver's list, or why there
/// is none ("no NVIDIA driver", the cuInit error).
struct VisibleGpus {
  std::vector<GpuInfo> Devices;
  /// Empty when the driver answered.
  std::string Unavailable;
};

/// libraries found, libtorch, libtorch has CUDA, libtorch_cuda loaded, GPU
/// architectures: always in this order.
std::vector<Check> diagnoseProgram(const ProgramFacts &Facts,
                                   const VisibleGpus &Gpus);

/// libtorch (Torch_DIR), libtorch has CUDA, then one check per linked
/// target that links libtorch.
std::vector<Check> diagnoseBuildFolder(const BuildFolder &Build);

/// One report for whatever was inspected: a title line per subject, each
/// check with its fixes, and the number of problems.
struct ProgramReport {
  std::optional<ProgramFacts> Program;
  std::optional<BuildFolder> Build;
  std::vector<Check> Checks;
};

bool hasProblem(const std::vector<Check> &Checks);
void writeProgramText(std::ostream &OS, const ProgramReport &Report);
/// {"problems", "program": {...}, "build_folder": {...}, "checks": [...]}.
void writeProgramJson(std::ostream &OS, const ProgramReport &Report);

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_PROGRAMDOCTOR_H
