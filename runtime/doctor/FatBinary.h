//===--- FatBinary.h - Which GPUs a CUDA library has code for ---*- C++ -*-===//
//
// A CUDA library keeps its kernels in the .nv_fatbin section: a sequence of
// fat binaries (magic 0xBA55ED50, a 16-byte header and the size of what
// follows), each a sequence of entries, one per compiled architecture: SASS
// for one GPU generation (an ELF "cubin", kind 2) or PTX that the driver can
// compile for any newer GPU (kind 1). Only the headers are read, never the
// payloads, so libtorch_cuda.so is not loaded, decompressed or read whole.
// The layout is what nvcc writes (checked against CUDA 13's nvcc); NVIDIA
// does not document it, so an unknown header is reported, not guessed at.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_FATBINARY_H
#define TORCHLINT_RUNTIME_FATBINARY_H

#include "ElfFile.h"

#include <set>
#include <string>

namespace torchlint::doctor {

struct GpuCode {
  /// The SASS architectures, as 10 * major + minor (80 is sm_80).
  std::set<int> Sass;
  /// The PTX virtual architectures (90 is compute_90).
  std::set<int> Ptx;
  std::size_t Entries = 0;
  /// Empty when every header read; else what stopped the read.
  std::string Problem;

  bool empty() const { return Sass.empty() && Ptx.empty(); }
};

/// The entries of the fat binaries in [Offset, Offset + Size) of \p Bytes.
/// \p MostEntries bounds the work on a hostile file.
GpuCode readFatBinaries(const ByteSource &Bytes, std::uint64_t Offset,
                        std::uint64_t Size, std::size_t MostEntries = 1 << 20);

/// The .nv_fatbin section of \p Elf read from \p Bytes; empty when it has
/// none.
GpuCode readGpuCode(const ByteSource &Bytes, const ElfFile &Elf);

/// Whether a GPU of compute capability \p Major.\p Minor can run \p Code: SASS
/// of the same major version and a minor version not above its own, or PTX
/// of a version not above its capability (the driver compiles it).
bool canRun(const GpuCode &Code, int Major, int Minor);

/// "sm_80, sm_90, compute_90 (PTX)".
std::string describe(const GpuCode &Code);

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_FATBINARY_H
