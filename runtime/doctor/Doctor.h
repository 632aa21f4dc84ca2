//===--- Doctor.h - Why libtorch does not use the GPU -----------*- C++ -*-===//
//
// The doctor answers one question: why does libtorch not use the GPU here?
// Probing the machine (gatherFacts) is kept apart from judging what was found
// (diagnose), so that every diagnosis can be tested on invented machines: a
// CPU-only build, a missing driver, a driver too old, a hidden GPU.
//
// Nothing here includes CUDA headers: the driver is reached through
// dlopen("libcuda.so.1"), so the same source builds against a CPU-only and a
// CUDA libtorch and still reports on the driver when libtorch cannot.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_DOCTOR_H
#define TORCHLINT_RUNTIME_DOCTOR_H

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torchlint::doctor {

/// A CUDA version as major.minor; the patch level never decides
/// compatibility.
struct CudaVersion {
  int Major = 0;
  int Minor = 0;

  /// Decodes the integer form used by cuDriverGetVersion and CUDART_VERSION
  /// (12040 is 12.4); nullopt for values that cannot be a version.
  static std::optional<CudaVersion> fromInteger(long Value);
  std::string str() const;

  friend bool operator<(const CudaVersion &A, const CudaVersion &B) {
    return A.Major != B.Major ? A.Major < B.Major : A.Minor < B.Minor;
  }
  friend bool operator==(const CudaVersion &A, const CudaVersion &B) {
    return A.Major == B.Major && A.Minor == B.Minor;
  }
};

/// One GPU as the driver reports it.
struct GpuInfo {
  std::string Name;
  /// Compute capability, 0.0 when the driver did not say.
  int CapabilityMajor = 0;
  int CapabilityMinor = 0;
};

/// One /dev/nvidia* character device.
struct DeviceFile {
  std::string Path;
  /// access(R_OK | W_OK) succeeded for this user.
  bool Accessible = false;
  /// The owning group's name, or its number when it has no name.
  std::string Group;
};

enum class DeviceOpState { NotAttempted, Passed, Failed };

/// The outcome of the small computation on cuda:0.
struct DeviceOpResult {
  DeviceOpState State = DeviceOpState::NotAttempted;
  /// What was computed (Passed) or the error's first line (Failed).
  std::string Message;
};

/// Everything the diagnosis needs, and nothing it has to probe itself.
struct SystemFacts {
  // libtorch.
  std::string TorchVersion;
  /// The program was compiled against a CUDA libtorch
  /// (TORCHLINT_TORCH_HAS_CUDA).
  bool ProgramBuiltWithCuda = false;
  /// libtorch's CUDA backend (libtorch_cuda) is loaded: its hooks answer.
  bool CudaBackendLoaded = false;
  /// at::show_config() says USE_CUDA=ON: the libtorch was configured for
  /// CUDA, whether or not its CUDA library got loaded.
  bool ConfigUsesCuda = false;
  /// at::hasCUDA(): a CUDA build that also found a device.
  bool AtHasCuda = false;
  std::optional<CudaVersion> BuiltForCuda;
  std::size_t TorchDeviceCount = 0;

  // The NVIDIA driver.
  /// From /proc/driver/nvidia/version; nullopt when that file is absent.
  std::optional<std::string> DriverVersion;
  bool LibcudaLoaded = false;
  /// dlerror() text, or the missing symbol, when libcuda is unusable.
  std::string LibcudaError;
  std::optional<CudaVersion> DriverCuda;
  /// nullopt when libcuda is missing or cuInit failed.
  std::optional<int> DriverDeviceCount;
  /// cuInit's failure as "CUDA_ERROR_NO_DEVICE (100)"; empty on success.
  std::string DriverInitError;
  int DriverInitCode = 0;
  std::vector<GpuInfo> Devices;

  // Environment and device files.
  std::optional<std::string> CudaVisibleDevices;
  /// Subfolders of /proc/driver/nvidia/gpus: every GPU of the machine,
  /// whatever CUDA_VISIBLE_DEVICES says.
  std::optional<int> ProcGpuCount;
  std::vector<DeviceFile> DeviceFiles;

  // cuDNN.
  bool HasCudnn = false;
  std::optional<long> CudnnVersion;
  std::string CudnnError;

  DeviceOpResult DeviceOp;
};

enum class Status { Ok, Fail, Skip };

const char *statusName(Status S);

struct Check {
  std::string Name;
  Status State = Status::Skip;
  std::string Detail;
  /// What to do about it; empty unless State is Fail.
  std::string Fix;
  /// The same fix for each way of building a program ("CMake", "Makefile",
  /// "qmake"), where the way matters; Fix then says what they have in common.
  std::vector<std::pair<std::string, std::string>> BuildFixes;

  static Check ok(std::string Name, std::string Detail) {
    return {std::move(Name), Status::Ok, std::move(Detail), "", {}};
  }
  static Check skip(std::string Name, std::string Detail) {
    return {std::move(Name), Status::Skip, std::move(Detail), "", {}};
  }
  static Check
  fail(std::string Name, std::string Detail, std::string Fix,
       std::vector<std::pair<std::string, std::string>> BuildFixes = {}) {
    return {std::move(Name), Status::Fail, std::move(Detail), std::move(Fix),
            std::move(BuildFixes)};
  }
};

/// The computation run on the device; returns its outcome and never throws.
using DeviceOperation = std::function<DeviceOpResult()>;

/// A matmul on cuda:0 compared with the same matmul on the CPU.
DeviceOpResult runDeviceOperation();

/// The driver's view alone: libcuda.so.1 through dlopen, libtorch not asked.
/// Fills the Libcuda*, Driver* and Devices facts.
void probeDriver(SystemFacts &Facts);

/// Probes this machine. \p Operation runs only when libtorch has a CUDA
/// backend and sees a device, since otherwise its failure says nothing new.
SystemFacts gatherFacts(const DeviceOperation &Operation = runDeviceOperation);

/// The seven checks, always in the same order, from \p Facts alone.
std::vector<Check> diagnose(const SystemFacts &Facts);

/// A GPU is usable when the device operation passed.
bool gpuUsable(const std::vector<Check> &Checks);

void writeText(std::ostream &OS, const SystemFacts &Facts,
               const std::vector<Check> &Checks);
/// {"usable", "libtorch", "built_with", "checks": [{"name", "status",
/// "detail", "fix"}]}.
void writeJson(std::ostream &OS, const SystemFacts &Facts,
               const std::vector<Check> &Checks);

// Parsers, exposed for the tests.

/// The CUDA version libtorch was built for, from at::show_config() or the CUDA
/// hooks' showConfig(): "Built with CUDA Runtime 12.1", "CUDA_VERSION=12.1",
/// "CUDA Runtime 12.1", "CUDA 12.1", in that order of trust.
std::optional<CudaVersion> parseCudaVersionFromConfig(const std::string &Text);
/// "TORCH_VERSION=2.1.0" from at::show_config().
std::optional<std::string> parseTorchVersionFromConfig(const std::string &Text);
/// The version number in /proc/driver/nvidia/version ("535.104.05").
std::optional<std::string> parseDriverVersion(const std::string &ProcText);
/// cuDNN's integer version as text: 8902 is 8.9.2, 90100 is 9.1.0.
std::string formatCudnnVersion(long Version);

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_DOCTOR_H
