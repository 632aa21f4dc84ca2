//===--- SystemProbe.cpp - What this machine has for libtorch and CUDA ----===//
//
// Gathering the facts the diagnosis reads. It stays narrow on purpose: a
// handful of ATen headers instead of <torch/torch.h>, and the driver through
// dlopen/dlsym with declared function-pointer types instead of CUDA headers,
// so that the doctor builds (quickly) on a machine with only a CPU-only
// libtorch, which is exactly where it is needed most.
//
//===----------------------------------------------------------------------===//

#include "Doctor.h"
#include "DoctorText.h"

#include <ATen/Context.h>
#include <ATen/Version.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/ops/randn.h>
#include <c10/core/Device.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>
#if __has_include(<torch/version.h>)
#include <torch/version.h>
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include <dirent.h>
#include <dlfcn.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint::doctor {

namespace {

std::optional<std::string> readFile(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    return std::nullopt;
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

template <typename Fn> Fn lookUp(void *Library, const char *Name) {
  // POSIX guarantees that a dlsym result converts to a function pointer.
  return reinterpret_cast<Fn>(dlsym(Library, Name));
}

// The CUDA driver API, declared by hand: CUresult is an int and CUdevice
// an int on every platform the driver supports.
using CuInitFn = int (*)(unsigned int);
using CuDriverGetVersionFn = int (*)(int *);
using CuDeviceGetCountFn = int (*)(int *);
using CuDeviceGetFn = int (*)(int *, int);
using CuDeviceGetNameFn = int (*)(char *, int, int);
using CuDeviceGetAttributeFn = int (*)(int *, int, int);
using CuGetErrorNameFn = int (*)(int, const char **);

constexpr int ComputeCapabilityMajorAttribute = 75;
constexpr int ComputeCapabilityMinorAttribute = 76;

void probeLibcuda(SystemFacts &F) {
  dlerror();
  // Never closed: libtorch's CUDA runtime later loads the same library, and
  // unloading a driver library mid-process is asking for trouble.
  void *Library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Library) {
    const char *Error = dlerror();
    F.LibcudaError = Error ? Error : "dlopen failed";
    return;
  }
  F.LibcudaLoaded = true;
  std::vector<std::string> Missing;
  auto Need = [&](auto Function, const char *Name) {
    if (!Function)
      Missing.push_back(Name);
    return Function != nullptr;
  };

  auto DriverGetVersion =
      lookUp<CuDriverGetVersionFn>(Library, "cuDriverGetVersion");
  if (Need(DriverGetVersion, "cuDriverGetVersion")) {
    int Version = 0;
    int Result = DriverGetVersion(&Version);
    if (Result == 0)
      F.DriverCuda = CudaVersion::fromInteger(Version);
    else
      F.LibcudaError =
          "cuDriverGetVersion failed with error " + std::to_string(Result);
  }

  auto GetErrorName = lookUp<CuGetErrorNameFn>(Library, "cuGetErrorName");
  auto Init = lookUp<CuInitFn>(Library, "cuInit");
  auto GetCount = lookUp<CuDeviceGetCountFn>(Library, "cuDeviceGetCount");
  auto Get = lookUp<CuDeviceGetFn>(Library, "cuDeviceGet");
  auto GetName = lookUp<CuDeviceGetNameFn>(Library, "cuDeviceGetName");
  auto GetAttribute =
      lookUp<CuDeviceGetAttributeFn>(Library, "cuDeviceGetAttribute");
  bool HaveAll = Need(Init, "cuInit") & Need(GetCount, "cuDeviceGetCount") &
                 Need(Get, "cuDeviceGet") & Need(GetName, "cuDeviceGetName");
  if (!Missing.empty()) {
    std::string List;
    for (const std::string &Name : Missing)
      List += (List.empty() ? "" : ", ") + Name;
    F.LibcudaError = "libcuda.so.1 lacks " + List;
  }
  if (!HaveAll) {
    F.DriverInitError = F.LibcudaError;
    return;
  }

  int Result = Init(0);
  if (Result != 0) {
    const char *Name = nullptr;
    if (GetErrorName)
      GetErrorName(Result, &Name);
    F.DriverInitCode = Result;
    F.DriverInitError = std::string(Name ? Name : "CUDA error") + " (" +
                        std::to_string(Result) + ")";
    return;
  }
  int Count = 0;
  if (GetCount(&Count) != 0) {
    F.DriverInitError = "cuDeviceGetCount failed";
    return;
  }
  F.DriverDeviceCount = Count;
  for (int Ordinal = 0; Ordinal < Count; ++Ordinal) {
    GpuInfo Gpu;
    int Device = Ordinal;
    if (Get(&Device, Ordinal) != 0)
      Device = Ordinal;
    char Name[256] = {};
    Gpu.Name = GetName(Name, sizeof(Name) - 1, Device) == 0 ? Name : "unknown";
    if (GetAttribute) {
      GetAttribute(&Gpu.CapabilityMajor, ComputeCapabilityMajorAttribute,
                   Device);
      GetAttribute(&Gpu.CapabilityMinor, ComputeCapabilityMinorAttribute,
                   Device);
    }
    F.Devices.push_back(Gpu);
  }
}

std::optional<int> countProcGpus() {
  DIR *Folder = opendir("/proc/driver/nvidia/gpus");
  if (!Folder)
    return std::nullopt;
  int Count = 0;
  while (dirent *Entry = readdir(Folder)) {
    std::string Name = Entry->d_name;
    if (Name == "." || Name == "..")
      continue;
    struct stat Info;
    std::string Path = "/proc/driver/nvidia/gpus/" + Name;
    if (stat(Path.c_str(), &Info) == 0 && S_ISDIR(Info.st_mode))
      ++Count;
  }
  closedir(Folder);
  return Count;
}

std::vector<DeviceFile> listDeviceFiles() {
  std::vector<DeviceFile> Files;
  DIR *Folder = opendir("/dev");
  if (!Folder)
    return Files;
  while (dirent *Entry = readdir(Folder)) {
    std::string Name = Entry->d_name;
    if (!startsWith(Name, "nvidia"))
      continue;
    std::string Path = "/dev/" + Name;
    struct stat Info;
    // Only character devices: /dev/nvidia-caps is a folder of MIG
    // capabilities that CUDA does not need for plain use.
    if (stat(Path.c_str(), &Info) != 0 || !S_ISCHR(Info.st_mode))
      continue;
    DeviceFile File;
    File.Path = Path;
    File.Accessible = access(Path.c_str(), R_OK | W_OK) == 0;
    const group *Group = getgrgid(Info.st_gid);
    File.Group =
        Group && Group->gr_name ? Group->gr_name : std::to_string(Info.st_gid);
    Files.push_back(File);
  }
  closedir(Folder);
  std::sort(
      Files.begin(), Files.end(),
      [](const DeviceFile &A, const DeviceFile &B) { return A.Path < B.Path; });
  return Files;
}

std::string errorText(const c10::Error &E) {
  return firstLine(E.what_without_backtrace());
}

void probeTorch(SystemFacts &F) {
#ifdef TORCHLINT_TORCH_HAS_CUDA
  F.ProgramBuiltWithCuda = true;
#endif
  std::string Config;
  try {
    Config = at::show_config();
  } catch (const std::exception &) {
  }
#ifdef TORCH_VERSION
  F.TorchVersion = TORCH_VERSION;
#else
  F.TorchVersion = parseTorchVersionFromConfig(Config).value_or("(unknown)");
#endif
  F.ConfigUsesCuda = contains(Config, "USE_CUDA=ON") ||
                     contains(Config, "USE_CUDA=1,") ||
                     contains(Config, "USE_CUDA=TRUE");

  const at::CUDAHooksInterface &Hooks = at::detail::getCUDAHooks();
  // The CPU-only stand-in for the hooks throws here; the real ones return
  // CUDART_VERSION, fixed at build time, without touching the driver.
  try {
    F.BuiltForCuda = CudaVersion::fromInteger(Hooks.versionCUDART());
    F.CudaBackendLoaded = true;
  } catch (const std::exception &) {
  }
  if (F.CudaBackendLoaded && !F.BuiltForCuda) {
    try {
      F.BuiltForCuda = parseCudaVersionFromConfig(Hooks.showConfig());
    } catch (const std::exception &) {
    }
  }
  if (!F.BuiltForCuda && (F.CudaBackendLoaded || F.ConfigUsesCuda))
    F.BuiltForCuda = parseCudaVersionFromConfig(Config);

  try {
    F.AtHasCuda = at::hasCUDA();
  } catch (const std::exception &) {
  }
  try {
    F.TorchDeviceCount = torch::cuda::device_count();
  } catch (const std::exception &) {
  }
  if (F.CudaBackendLoaded) {
    try {
      F.HasCudnn = Hooks.hasCuDNN();
      if (F.HasCudnn)
        F.CudnnVersion = Hooks.versionCuDNN();
    } catch (const c10::Error &E) {
      F.CudnnError = errorText(E);
    } catch (const std::exception &E) {
      F.CudnnError = firstLine(E.what());
    }
  }
}

} // namespace

DeviceOpResult runDeviceOperation() {
  DeviceOpResult Result;
  try {
    at::TensorOptions Options = at::TensorOptions().dtype(at::kFloat);
    at::Tensor A = at::randn({64, 64}, Options);
    at::Tensor B = at::randn({64, 64}, Options);
    at::Tensor Expected = A.matmul(B);
    at::Device Gpu(at::kCUDA, 0);
    at::Tensor Got = A.to(Gpu).matmul(B.to(Gpu)).cpu();
    double Difference = Got.sub(Expected).abs().max().item<double>();
    std::ostringstream Message;
    Message << "a 64x64 matmul on cuda:0 ";
    // Loose tolerances: TF32 or a different summation order is fine, garbage
    // is not.
    if (Got.allclose(Expected, 1e-2, 1e-2)) {
      Message << "matches the CPU result (largest difference " << Difference
              << ")";
      Result.State = DeviceOpState::Passed;
    } else {
      Message << "differs from the CPU result by up to " << Difference;
      Result.State = DeviceOpState::Failed;
    }
    Result.Message = Message.str();
  } catch (const c10::Error &E) {
    Result.State = DeviceOpState::Failed;
    Result.Message = errorText(E);
  } catch (const std::exception &E) {
    Result.State = DeviceOpState::Failed;
    Result.Message = firstLine(E.what());
  } catch (...) {
    Result.State = DeviceOpState::Failed;
    Result.Message = "unknown exception";
  }
  return Result;
}

void probeDriver(SystemFacts &Facts) { probeLibcuda(Facts); }

SystemFacts gatherFacts(const DeviceOperation &Operation) {
  SystemFacts F;
  if (std::optional<std::string> Proc = readFile("/proc/driver/nvidia/version"))
    F.DriverVersion = parseDriverVersion(*Proc).value_or(firstLine(*Proc));
  // The driver first: libtorch's CUDA runtime would initialise it anyway,
  // and its own answer is clearer than libtorch's warning.
  probeLibcuda(F);
  F.ProcGpuCount = countProcGpus();
  F.DeviceFiles = listDeviceFiles();
  if (const char *Value = std::getenv("CUDA_VISIBLE_DEVICES"))
    F.CudaVisibleDevices = std::string(Value);
  probeTorch(F);
  if (Operation && F.CudaBackendLoaded && F.TorchDeviceCount > 0) {
    try {
      F.DeviceOp = Operation();
    } catch (...) {
      F.DeviceOp = {DeviceOpState::Failed, "unknown exception"};
    }
  }
  return F;
}

} // namespace torchlint::doctor
