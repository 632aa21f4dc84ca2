//===--- DoctorMain.cpp - The torchlint-doctor program ----------*- C++ -*-===//
//
// Exit codes: 0 when a GPU is usable, 1 when not (or when the doctor itself
// failed), 2 for bad usage. Arguments are parsed before libtorch is touched,
// so that a usage error prints nothing but its one line.
//
//===----------------------------------------------------------------------===//

#include "Doctor.h"

#include <cstring>
#include <exception>
#include <iostream>
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
    "\n"
    "Explains why libtorch does not use the GPU on this machine. Checks, in\n"
    "order: the libtorch build (CPU-only or CUDA), the NVIDIA driver and the\n"
    "CUDA version it supports, the visible devices, CUDA_VISIBLE_DEVICES,\n"
    "the /dev/nvidia* permissions, cuDNN, and a small matmul on cuda:0.\n"
    "Each check prints OK, FAIL (with the fix) or SKIP.\n"
    "\n"
    "options:\n"
    "  --json     print the result as JSON: {\"usable\", \"libtorch\",\n"
    "             \"built_with\", \"checks\": [{\"name\", \"status\", "
    "\"detail\", \"fix\"}]}\n"
    "  --help     print this help\n"
    "  --version  print the version and the libtorch it was built against\n"
    "\n"
    "exit status: 0 when a GPU is usable, 1 when not, 2 for bad usage\n";

const char *builtWith() {
#ifdef TORCHLINT_TORCH_HAS_CUDA
  return "CUDA";
#else
  return "CPU-only";
#endif
}

} // namespace

int main(int Argc, char **Argv) {
  bool Json = false;
  for (int I = 1; I < Argc; ++I) {
    std::string Argument = Argv[I];
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
