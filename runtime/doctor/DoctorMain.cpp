//===--- DoctorMain.cpp - The torchlint-doctor program ----------*- C++ -*-===//
//
// Two modes. Without arguments it diagnoses this machine: exit 0 when a GPU
// is usable, 1 when not (or when the doctor itself failed), 2 for bad usage.
// With --binary or --build-dir it diagnoses the user's program or CMake
// build folder: exit 0 when nothing is wrong, 1 when a problem is found, 2
// for bad usage or bad input (one line on standard error naming the file).
// Arguments are parsed before libtorch is touched, so that a usage error
// prints nothing but its one line.
//
//===----------------------------------------------------------------------===//

#include "Doctor.h"
#include "ProgramDoctor.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#if __has_include(<torch/version.h>)
#include <torch/version.h>
#endif

#ifndef TORCHLINT_DOCTOR_VERSION
#define TORCHLINT_DOCTOR_VERSION "unknown"
#endif

namespace {

const char *const Usage =
    "usage: torchlint-doctor [--json] [--help] [--version]\n"
    "       torchlint-doctor [--json] [--binary PROGRAM] [--build-dir DIR]\n"
    "\n"
    "Explains why libtorch does not use the GPU on this machine. Checks, in\n"
    "order: the libtorch build (CPU-only or CUDA), the NVIDIA driver and the\n"
    "CUDA version it supports, the visible devices, CUDA_VISIBLE_DEVICES,\n"
    "the /dev/nvidia* permissions, cuDNN, and a small matmul on cuda:0.\n"
    "Each check prints OK, FAIL (with the fix) or SKIP.\n"
    "\n"
    "With --binary, it tells why PROGRAM's libtorch cannot see the GPU: it\n"
    "resolves the program's libraries as the dynamic loader would (RPATH,\n"
    "LD_LIBRARY_PATH, RUNPATH, /etc/ld.so.cache, the default folders) and\n"
    "checks that they are found, which libtorch they are, that it is a CUDA\n"
    "build, that the program loads libtorch_cuda, and that it has code for\n"
    "this machine's GPUs. With --build-dir, it reads a configured CMake\n"
    "build folder (without writing to it): the libtorch Torch_DIR points at\n"
    "and each target's link line. Each problem comes with its fix for CMake,\n"
    "a Makefile and qmake.\n"
    "\n"
    "options:\n"
    "  --binary PROGRAM  diagnose this program (an ELF executable or library)\n"
    "  --build-dir DIR   diagnose this configured CMake build folder\n"
    "  --library-path P  with --binary: the LD_LIBRARY_PATH the program runs\n"
    "                    with (default: the doctor's own)\n"
    "  --json     print the result as JSON: {\"usable\", \"libtorch\",\n"
    "             \"built_with\", \"checks\": [{\"name\", \"status\", "
    "\"detail\", \"fix\"}]}\n"
    "  --help     print this help\n"
    "  --version  print the version and the libtorch it was built against\n"
    "\n"
    "exit status: 0 when a GPU is usable, 1 when not, 2 for bad usage;\n"
    "with --binary or --build-dir: 0 when nothing is wrong, 1 when a problem\n"
    "is found, 2 for bad usage or bad input\n";

const char *builtWith() {
#ifdef TORCHLINT_TORCH_HAS_CUDA
  return "CUDA";
#else
  return "CPU-only";
#endif
}

/// The user's program and build folder, without libtorch: only the driver
/// is asked which GPUs there are.
int diagnoseUserProgram(const std::string &Binary, const std::string &BuildDir,
                        const std::optional<std::string> &LibraryPath,
                        bool Json) {
  using namespace torchlint::doctor;
  ProgramReport Report;
  if (!BuildDir.empty()) {
    std::string Error;
    Report.Build = readBuildFolder(BuildDir, Error);
    if (!Report.Build) {
      std::cerr << "torchlint-doctor: error: " << BuildDir << ": " << Error
                << "\n";
      return 2;
    }
    std::vector<Check> Checks = diagnoseBuildFolder(*Report.Build);
    Report.Checks.insert(Report.Checks.end(), Checks.begin(), Checks.end());
  }
  if (!Binary.empty()) {
    LoaderSettings Settings;
    if (LibraryPath)
      Settings.LibraryPath = *LibraryPath;
    else if (const char *Path = std::getenv("LD_LIBRARY_PATH"))
      Settings.LibraryPath = Path;
    std::string Error;
    Report.Program = inspectProgram(Binary, Settings, Error);
    if (!Report.Program) {
      std::cerr << "torchlint-doctor: error: " << Binary << ": " << Error
                << "\n";
      return 2;
    }
    VisibleGpus Gpus;
    if (Report.Program->TorchHasCuda) {
      SystemFacts Driver;
      probeDriver(Driver);
      Gpus.Devices = Driver.Devices;
      if (!Driver.LibcudaLoaded)
        Gpus.Unavailable = "no NVIDIA driver: " + Driver.LibcudaError;
      else if (!Driver.DriverInitError.empty())
        Gpus.Unavailable =
            "the driver's cuInit failed: " + Driver.DriverInitError;
    }
    std::vector<Check> Checks = diagnoseProgram(*Report.Program, Gpus);
    Report.Checks.insert(Report.Checks.begin(), Checks.begin(), Checks.end());
  }
  if (Json)
    writeProgramJson(std::cout, Report);
  else
    writeProgramText(std::cout, Report);
  return hasProblem(Report.Checks) ? 1 : 0;
}

} // namespace

int main(int Argc, char **Argv) {
  bool Json = false;
  std::string Binary, BuildDir;
  std::optional<std::string> LibraryPath;
  for (int I = 1; I < Argc; ++I) {
    std::string Argument = Argv[I];
    std::string Value;
    std::string Option = Argument.substr(0, Argument.find('='));
    if (Option == "--binary" || Option == "--build-dir" ||
        Option == "--library-path") {
      if (Option != Argument)
        Value = Argument.substr(Option.size() + 1);
      else if (I + 1 < Argc)
        Value = Argv[++I];
      // An empty LD_LIBRARY_PATH is a value; an empty program is not.
      if (Value.empty() && Option != "--library-path") {
        std::cerr << "torchlint-doctor: error: " << Option
                  << " needs a value (see --help)\n";
        return 2;
      }
      if (Option == "--binary")
        Binary = Value;
      else if (Option == "--build-dir")
        BuildDir = Value;
      else
        LibraryPath = Value;
      continue;
    }
    if (Argument == "--help" || Argument == "-h") {
      std::cout << Usage;
      return 0;
    }
    if (Argument == "--version") {
      std::cout << "torchlint-doctor " << TORCHLINT_DOCTOR_VERSION
                << " (built against a " << builtWith() << " libtorch"
#ifdef TORCH_VERSION
                << " " << TORCH_VERSION
#endif
                << ")\n";
      return 0;
    }
    if (Argument == "--json") {
      Json = true;
      continue;
    }
    std::cerr << "torchlint-doctor: error: "
              << (Argument.size() > 1 && Argument[0] == '-'
                      ? "unknown option '" + Argument + "'"
                      : "unexpected argument '" + Argument + "'")
              << " (see --help)\n";
    return 2;
  }

  using namespace torchlint::doctor;
  try {
    if (!Binary.empty() || !BuildDir.empty())
      return diagnoseUserProgram(Binary, BuildDir, LibraryPath, Json);
    SystemFacts Facts = gatherFacts();
    std::vector<Check> Checks = diagnose(Facts);
    if (Json)
      writeJson(std::cout, Facts, Checks);
    else
      writeText(std::cout, Facts, Checks);
    return gpuUsable(Checks) ? 0 : 1;
  } catch (const std::exception &E) {
    std::cerr << "torchlint-doctor: internal error: " << E.what() << "\n";
  } catch (...) {
    std::cerr << "torchlint-doctor: internal error\n";
  }
  return 1;
}
