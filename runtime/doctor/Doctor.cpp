//===--- Doctor.cpp - Why libtorch does not use the GPU ---------*- C++ -*-===//
//
// The diagnosis: each check reads the facts SystemProbe.cpp gathered and
// says OK, FAIL with the fix, or SKIP; and the text and JSON reports.
//
//===----------------------------------------------------------------------===//

#include "Doctor.h"
#include "DoctorText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>
#include <set>
#include <sstream>

namespace torchlint::doctor {

namespace {

const char *const BuildCheck = "libtorch build";
const char *const DriverCheck = "NVIDIA driver";
const char *const DevicesCheck = "visible devices";
const char *const VisibleVariableCheck = "CUDA_VISIBLE_DEVICES";
const char *const DeviceFilesCheck = "device files";
const char *const CudnnCheck = "cuDNN";
const char *const DeviceOpCheck = "device operation";

const char *const CudaBuildFix =
    "get a CUDA build of libtorch and rebuild against it: download the CUDA "
    "libtorch (cxx11 ABI) from https://pytorch.org/get-started/locally/ and "
    "configure with -DCMAKE_PREFIX_PATH=/path/to/libtorch, or use pip's "
    "torch: -DCMAKE_PREFIX_PATH=\"$(python3 -c 'import torch; "
    "print(torch.utils.cmake_prefix_path)')\"; Debian's libtorch-dev is "
    "CPU-only";

std::string plural(long Count, const std::string &Noun) {
  return std::to_string(Count) + " " + Noun + (Count == 1 ? "" : "s");
}

std::vector<std::string> split(const std::string &Text, char Separator) {
  std::vector<std::string> Parts;
  std::size_t Begin = 0;
  while (true) {
    std::size_t End = Text.find(Separator, Begin);
    Parts.push_back(Text.substr(Begin, End - Begin));
    if (End == std::string::npos)
      return Parts;
    Begin = End + 1;
  }
}

std::optional<long> parseInteger(const std::string &Text) {
  if (Text.empty())
    return std::nullopt;
  std::size_t Start = Text[0] == '-' || Text[0] == '+' ? 1 : 0;
  if (Start == Text.size() ||
      !std::all_of(Text.begin() + Start, Text.end(), [](char C) {
        return std::isdigit(static_cast<unsigned char>(C));
      }))
    return std::nullopt;
  if (Text.size() > 12)
    return std::nullopt;
  return std::stol(Text);
}

/// "major.minor" right at \p Pos, as in "12.1" or "12.1.105".
std::optional<CudaVersion> versionAt(const std::string &Text, std::size_t Pos) {
  auto ReadNumber = [&](std::size_t &At) -> std::optional<int> {
    std::size_t Begin = At;
    while (At < Text.size() && At - Begin < 4 &&
           std::isdigit(static_cast<unsigned char>(Text[At])))
      ++At;
    if (At == Begin)
      return std::nullopt;
    return std::stoi(Text.substr(Begin, At - Begin));
  };
  std::optional<int> Major = ReadNumber(Pos);
  if (!Major || Pos >= Text.size() || Text[Pos] != '.')
    return std::nullopt;
  ++Pos;
  std::optional<int> Minor = ReadNumber(Pos);
  if (!Minor)
    return std::nullopt;
  return CudaVersion{*Major, *Minor};
}

/// The first "major.minor" that directly follows an occurrence of \p Key.
std::optional<CudaVersion> versionAfter(const std::string &Text,
                                        const std::string &Key) {
  for (std::size_t Pos = Text.find(Key); Pos != std::string::npos;
       Pos = Text.find(Key, Pos + 1))
    if (std::optional<CudaVersion> Version = versionAt(Text, Pos + Key.size()))
      return Version;
  return std::nullopt;
}

/// The Linux driver that first shipped with each CUDA toolkit (the CUDA
/// release notes' table); it makes "upgrade the driver" concrete.
std::string minimumDriverFor(const CudaVersion &Version) {
  struct Entry {
    int Major, Minor;
    const char *Driver;
  };
  static const Entry Table[] = {
      {11, 0, "450.36.06"}, {11, 1, "455.23.05"}, {11, 2, "460.27.03"},
      {11, 3, "465.19.01"}, {11, 4, "470.42.01"}, {11, 5, "495.29.05"},
      {11, 6, "510.39.01"}, {11, 7, "515.43.04"}, {11, 8, "520.61.05"},
      {12, 0, "525.60.13"}, {12, 1, "530.30.02"}, {12, 2, "535.54.03"},
      {12, 3, "545.23.06"}, {12, 4, "550.54.14"}, {12, 5, "555.42.02"},
      {12, 6, "560.28.03"}, {12, 8, "570.26"},    {12, 9, "575.51.03"},
      {13, 0, "580.65.06"}};
  for (const Entry &E : Table)
    if (E.Major == Version.Major && E.Minor == Version.Minor)
      return E.Driver;
  return "";
}

std::string driverNeededFor(const CudaVersion &Version) {
  std::string Text = "a driver that supports CUDA " + Version.str();
  std::string Minimum = minimumDriverFor(Version);
  if (!Minimum.empty())
    Text += " (Linux driver " + Minimum + " or newer)";
  return Text;
}

bool noDriver(const SystemFacts &F) {
  return !F.DriverVersion && !F.LibcudaLoaded;
}

std::string describeDevices(const std::vector<GpuInfo> &Devices) {
  std::string Text;
  for (std::size_t I = 0; I < Devices.size(); ++I) {
    const GpuInfo &Gpu = Devices[I];
    Text += (I ? ", " : "") + std::to_string(I) + ": " + Gpu.Name;
    if (Gpu.CapabilityMajor > 0)
      Text += " (compute capability " + std::to_string(Gpu.CapabilityMajor) +
              "." + std::to_string(Gpu.CapabilityMinor) + ")";
  }
  return Text;
}

//===----------------------------------------------------------------------===//
// The checks
//===----------------------------------------------------------------------===//

Check checkBuild(const SystemFacts &F) {
  std::string Torch = "libtorch " + F.TorchVersion;
  if (F.CudaBackendLoaded) {
    std::string Detail = Torch + " is a CUDA build";
    Detail += F.BuiltForCuda ? " for CUDA " + F.BuiltForCuda->str()
                             : " (CUDA version not reported)";
    if (!F.AtHasCuda)
      Detail += "; at::hasCUDA() is false because it also needs a usable GPU";
    return Check::ok(BuildCheck, Detail);
  }
  if (F.ProgramBuiltWithCuda || F.ConfigUsesCuda)
    return Check::fail(
        BuildCheck,
        Torch + " is a CUDA build, but its CUDA library "
                "(libtorch_cuda.so) is not loaded, so it runs "
                "CPU-only",
        "link libtorch_cuda.so even though no symbol of it is used "
        "(-Wl,--no-as-needed before it, as TorchConfig.cmake's "
        "TORCH_LIBRARIES do) and make sure it is found at run time "
        "(`ldd` the program; LD_LIBRARY_PATH)");
  return Check::fail(BuildCheck,
                     Torch + " is built without CUDA (a CPU-only build), so it "
                             "cannot use any GPU",
                     CudaBuildFix);
}

Check checkDriver(const SystemFacts &F) {
  if (noDriver(F)) {
    std::string Fix =
        "install the NVIDIA driver (Debian: `sudo apt install "
        "nvidia-driver` from non-free; elsewhere the distribution's "
        "package or https://www.nvidia.com/drivers) and reboot";
    if (F.BuiltForCuda)
      Fix += "; pick " + driverNeededFor(*F.BuiltForCuda);
    Fix += "; in a container, start it with `--gpus all` (NVIDIA Container "
           "Toolkit)";
    return Check::fail(
        DriverCheck,
        "no NVIDIA driver: /proc/driver/nvidia/version does not exist "
        "and libcuda.so.1 cannot be loaded (" +
            F.LibcudaError + ")",
        Fix);
  }
  if (!F.LibcudaLoaded)
    return Check::fail(
        DriverCheck,
        "the NVIDIA kernel module " + F.DriverVersion.value_or("") +
            " is loaded, but libcuda.so.1 cannot be loaded (" + F.LibcudaError +
            ")",
        "install the driver's user-space CUDA library of the same "
        "version as the kernel module (Debian: libcuda1, Ubuntu: "
        "libnvidia-compute-<branch>) or add its folder to the "
        "loader path (ldconfig); in a container, use the NVIDIA "
        "Container Toolkit (`--gpus all`)");
  std::string Found = F.DriverVersion
                          ? "driver " + *F.DriverVersion
                          : "libcuda.so.1 without /proc/driver/nvidia "
                            "(as under WSL)";
  if (!F.DriverCuda)
    return Check::fail(
        DriverCheck,
        Found + ", but it does not report its CUDA version (" + F.LibcudaError +
            ")",
        "reinstall the NVIDIA driver: its libcuda.so.1 looks broken "
        "or is not NVIDIA's");
  Found += ", supports CUDA " + F.DriverCuda->str();
  if (F.BuiltForCuda && *F.DriverCuda < *F.BuiltForCuda) {
    std::string Detail = Found + ", older than CUDA " + F.BuiltForCuda->str() +
                         " that libtorch was built for";
    if (F.DriverCuda->Major == F.BuiltForCuda->Major)
      Detail += " (CUDA minor-version compatibility may still let simple "
                "work run; the device operation below tells)";
    return Check::fail(DriverCheck, Detail,
                       "upgrade the NVIDIA driver to " +
                           driverNeededFor(*F.BuiltForCuda) +
                           ", or use a libtorch built for CUDA " +
                           F.DriverCuda->str() + " or older");
  }
  return Check::ok(DriverCheck, Found);
}

std::string initFailureFix(const SystemFacts &F) {
  switch (F.DriverInitCode) {
  case 100: // CUDA_ERROR_NO_DEVICE
    return F.CudaVisibleDevices
               ? "CUDA_VISIBLE_DEVICES may hide the GPUs: see that check"
               : "run `nvidia-smi`: the driver sees no GPU; check that the "
                 "card is seated and powered, and in a container pass it "
                 "with `--gpus all`";
  case 35: // CUDA_ERROR_INSUFFICIENT_DRIVER
    return "libcuda.so.1 is older than the kernel module or too old: "
           "reinstall the NVIDIA driver so that both match";
  case 803: // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
    return "libcuda.so.1 and the kernel module are from different driver "
           "versions: reboot after a driver upgrade, or reinstall the driver";
  case 304: // CUDA_ERROR_OPERATING_SYSTEM
    return "the driver could not open its device files: see the device files "
           "check";
  default:
    return "run `nvidia-smi` and look for Xid errors in `dmesg`; reboot if "
           "the driver was just installed or upgraded";
  }
}

Check checkDevices(const SystemFacts &F) {
  if (!F.LibcudaLoaded)
    return Check::skip(
        DevicesCheck,
        "no NVIDIA driver to ask (libcuda.so.1 is not "
        "loaded); libtorch sees " +
            plural(static_cast<long>(F.TorchDeviceCount), "CUDA device"));
  if (!F.DriverDeviceCount)
    return Check::fail(DevicesCheck,
                       "the driver cannot start: cuInit failed with " +
                           (F.DriverInitError.empty() ? std::string("an error")
                                                      : F.DriverInitError),
                       initFailureFix(F));
  if (*F.DriverDeviceCount == 0)
    return Check::fail(
        DevicesCheck, "the driver reports no GPU",
        F.CudaVisibleDevices
            ? "CUDA_VISIBLE_DEVICES may hide the GPUs: see that check"
            : "run `nvidia-smi`: the driver sees no GPU");
  std::string Found = "the driver sees " + plural(*F.DriverDeviceCount, "GPU") +
                      " (" + describeDevices(F.Devices) + ")";
  if (!F.CudaBackendLoaded)
    return Check::ok(DevicesCheck,
                     Found + "; libtorch sees none, being a CPU-only build");
  if (F.TorchDeviceCount == 0)
    return Check::fail(
        DevicesCheck, Found + ", but libtorch sees none",
        "libtorch's CUDA runtime could not use this driver: see the "
        "driver check (a driver too old for libtorch's CUDA) and any "
        "\"CUDA initialization\" warning printed above");
  return Check::ok(DevicesCheck,
                   Found + "; libtorch sees " +
                       plural(static_cast<long>(F.TorchDeviceCount), "device"));
}

Check checkVisibleVariable(const SystemFacts &F) {
  if (!F.CudaVisibleDevices)
    return Check::ok(VisibleVariableCheck, "not set, so every GPU is visible");
  const std::string &Value = *F.CudaVisibleDevices;
  std::string Shown = "CUDA_VISIBLE_DEVICES=\"" + Value + "\"";
  std::string Fix = "unset CUDA_VISIBLE_DEVICES, or set it to GPU indexes";
  if (F.ProcGpuCount && *F.ProcGpuCount > 0)
    Fix += " (0 to " + std::to_string(*F.ProcGpuCount - 1) + " here)";
  Fix += " or to UUIDs from `nvidia-smi -L`";
  if (trim(Value).empty())
    return Check::fail(
        VisibleVariableCheck,
        Shown + " is set to the empty string, which hides every GPU", Fix);

  int Visible = 0;
  std::string Note;
  for (const std::string &Raw : split(Value, ',')) {
    std::string Entry = trim(Raw);
    if (startsWith(Entry, "GPU-") || startsWith(Entry, "MIG-")) {
      ++Visible;
      continue;
    }
    std::optional<long> Index = parseInteger(Entry);
    if (!Index)
      return Check::fail(
          VisibleVariableCheck,
          Shown + ": \"" + Entry +
              "\" is neither a GPU index nor a GPU-/MIG- UUID; CUDA "
              "ignores it and everything after it" +
              (Visible == 0 ? ", which hides every GPU" : ""),
          Fix);
    if (*Index < 0) {
      if (Visible == 0)
        return Check::fail(
            VisibleVariableCheck,
            Shown + ": " + Entry +
                " ends the list before any GPU, which hides every "
                "GPU (a common way to force the CPU)",
            Fix);
      Note = "; the " + Entry + " ends the list, so what follows is ignored";
      break;
    }
    if (F.ProcGpuCount && *Index >= *F.ProcGpuCount)
      return Check::fail(
          VisibleVariableCheck,
          Shown + " names GPU " + std::to_string(*Index) +
              ", but this machine has " + plural(*F.ProcGpuCount, "GPU") +
              (*F.ProcGpuCount > 0
                   ? " (indexes 0 to " + std::to_string(*F.ProcGpuCount - 1) +
                         ")"
                   : std::string()) +
              "; CUDA ignores it and everything after it",
          Fix);
    ++Visible;
  }
  std::string Detail = Shown + " makes " + plural(Visible, "GPU") + " visible";
  if (F.ProcGpuCount)
    Detail += " of the machine's " + std::to_string(*F.ProcGpuCount);
  else
    Detail += " (indexes not verified: /proc/driver/nvidia/gpus is not "
              "readable)";
  return Check::ok(VisibleVariableCheck, Detail + Note);
}

bool isEssentialDeviceFile(const std::string &Path) {
  std::string Name = Path.substr(Path.rfind('/') + 1);
  if (Name == "nvidiactl" || Name == "nvidia-uvm")
    return true;
  return Name.size() > 6 && startsWith(Name, "nvidia") &&
         std::all_of(Name.begin() + 6, Name.end(), [](char C) {
           return std::isdigit(static_cast<unsigned char>(C));
         });
}

Check checkDeviceFiles(const SystemFacts &F) {
  if (F.DeviceFiles.empty()) {
    if (noDriver(F))
      return Check::skip(DeviceFilesCheck,
                         "no NVIDIA driver, so no /dev/nvidia* files to check");
    if (!F.DriverVersion)
      return Check::skip(
          DeviceFilesCheck,
          "no /dev/nvidia* files and no NVIDIA kernel module, as "
          "where the GPU is reached otherwise (WSL uses /dev/dxg)");
    return Check::fail(
        DeviceFilesCheck,
        "the NVIDIA kernel module is loaded, but there are no "
        "/dev/nvidia* device files",
        "create them with `sudo nvidia-modprobe -c 0 -u`; in a "
        "container, pass them in with `--gpus all` (NVIDIA Container "
        "Toolkit)");
  }

  std::vector<std::string> Names;
  std::vector<std::string> Denied;
  std::vector<std::string> DeniedOptional;
  std::set<std::string> Groups;
  bool HasControl = false;
  bool HasUvm = false;
  for (const DeviceFile &File : F.DeviceFiles) {
    Names.push_back(File.Path);
    HasControl |= File.Path == "/dev/nvidiactl";
    HasUvm |= File.Path == "/dev/nvidia-uvm";
    if (File.Accessible)
      continue;
    std::string Entry = File.Path + " (group " + File.Group + ")";
    if (isEssentialDeviceFile(File.Path)) {
      Denied.push_back(Entry);
      Groups.insert(File.Group);
    } else {
      DeniedOptional.push_back(Entry);
    }
  }
  auto Join = [](const std::vector<std::string> &Items) {
    std::string Text;
    for (const std::string &Item : Items)
      Text += (Text.empty() ? "" : ", ") + Item;
    return Text;
  };

  if (!Denied.empty()) {
    std::string Fix;
    for (const std::string &Group : Groups) {
      if (!Fix.empty())
        Fix += "; ";
      if (Group == "root" || Group == "0")
        Fix += "files of group root: ask the administrator to open them up "
               "(the driver's default is mode 0666; see the NVreg_"
               "DeviceFileMode and NVreg_DeviceFileGID module options)";
      else
        Fix += "add yourself to the group " + Group + ": `sudo usermod -aG " +
               Group + " $USER`, then log in again (check with `id`)";
    }
    return Check::fail(
        DeviceFilesCheck,
        "cannot read and write " + Join(Denied) + " as this user", Fix);
  }
  if (!HasControl)
    return Check::fail(
        DeviceFilesCheck,
        "/dev/nvidiactl is missing (found " + Join(Names) + ")",
        "create the device files with `sudo nvidia-modprobe -c 0 "
        "-u`; in a container, pass them in with `--gpus all`");
  std::string Detail = Join(Names) + ": readable and writable";
  if (!HasUvm)
    Detail += "; /dev/nvidia-uvm does not exist yet (CUDA creates it "
              "through nvidia-modprobe on first use)";
  if (!DeniedOptional.empty())
    Detail +=
        "; not accessible, but not needed by CUDA: " + Join(DeniedOptional);
  return Check::ok(DeviceFilesCheck, Detail);
}

Check checkCudnn(const SystemFacts &F) {
  if (!F.CudaBackendLoaded)
    return Check::skip(CudnnCheck, "libtorch has no CUDA backend");
  if (!F.HasCudnn)
    return Check::fail(
        CudnnCheck,
        "this CUDA libtorch is built without cuDNN, so convolutions "
        "and RNNs run on slower kernels",
        "use a libtorch build with cuDNN (those from pytorch.org and "
        "pip's torch have it)");
  if (!F.CudnnVersion)
    return Check::ok(
        CudnnCheck,
        "available, version not reported" +
            (F.CudnnError.empty() ? std::string() : " (" + F.CudnnError + ")"));
  return Check::ok(CudnnCheck, "cuDNN " + formatCudnnVersion(*F.CudnnVersion));
}

std::string deviceOpFix(const SystemFacts &F, const std::string &Error) {
  if (contains(Error, "no kernel image")) {
    std::string Gpu = F.Devices.empty() ? std::string("this GPU")
                                        : describeDevices({F.Devices[0]});
    return "this libtorch has no kernels for " + Gpu +
           ": get a libtorch whose CUDA architecture list (the NVCC "
           "architecture flags in at::show_config()) includes it, usually a "
           "newer one from pytorch.org";
  }
  if (contains(Error, "out of memory"))
    return "free GPU memory: `nvidia-smi` lists the processes holding it";
  if (contains(Error, "busy or unavailable"))
    return "the GPU is in exclusive-process mode and used by another "
           "process: see `nvidia-smi -q -d COMPUTE`";
  if (contains(Error, "driver version is insufficient") ||
      contains(Error, "no NVIDIA driver") ||
      contains(Error, "Found no NVIDIA driver"))
    return F.BuiltForCuda ? "upgrade the NVIDIA driver to " +
                                driverNeededFor(*F.BuiltForCuda)
                          : "install or upgrade the NVIDIA driver";
  return "run again with CUDA_LAUNCH_BLOCKING=1 for the exact failing call, "
         "and check `nvidia-smi` and `dmesg` (Xid errors)";
}

Check checkDeviceOp(const SystemFacts &F) {
  switch (F.DeviceOp.State) {
  case DeviceOpState::Passed:
    return Check::ok(DeviceOpCheck, F.DeviceOp.Message);
  case DeviceOpState::Failed: {
    std::string Error = firstLine(F.DeviceOp.Message);
    return Check::fail(DeviceOpCheck, "a matmul on cuda:0 failed: " + Error,
                       deviceOpFix(F, Error));
  }
  case DeviceOpState::NotAttempted:
    break;
  }
  if (!F.CudaBackendLoaded)
    return Check::skip(
        DeviceOpCheck,
        "not attempted: libtorch has no CUDA backend (see above)");
  if (F.TorchDeviceCount == 0)
    return Check::skip(
        DeviceOpCheck,
        "not attempted: libtorch sees no CUDA device (see above)");
  return Check::skip(DeviceOpCheck, "not attempted");
}

//===----------------------------------------------------------------------===//
// Probing the machine
//===----------------------------------------------------------------------===//

} // namespace

//===----------------------------------------------------------------------===//
// Public interface
//===----------------------------------------------------------------------===//

std::optional<CudaVersion> CudaVersion::fromInteger(long Value) {
  if (Value < 1000 || Value > 1000000)
    return std::nullopt;
  return CudaVersion{static_cast<int>(Value / 1000),
                     static_cast<int>(Value % 1000 / 10)};
}

std::string CudaVersion::str() const {
  return std::to_string(Major) + "." + std::to_string(Minor);
}

const char *statusName(Status S) {
  switch (S) {
  case Status::Ok:
    return "OK";
  case Status::Fail:
    return "FAIL";
  case Status::Skip:
    return "SKIP";
  }
  return "?";
}

std::optional<CudaVersion> parseCudaVersionFromConfig(const std::string &Text) {
  for (const char *Key :
       {"Built with CUDA Runtime ", "CUDA_VERSION=", "CUDA Runtime ", "CUDA "})
    if (std::optional<CudaVersion> Version = versionAfter(Text, Key))
      return Version;
  return std::nullopt;
}

std::optional<std::string>
parseTorchVersionFromConfig(const std::string &Text) {
  const std::string Key = "TORCH_VERSION=";
  std::size_t Pos = Text.find(Key);
  if (Pos == std::string::npos)
    return std::nullopt;
  Pos += Key.size();
  std::size_t End = Text.find_first_of(", \n", Pos);
  std::string Version = Text.substr(Pos, End - Pos);
  if (Version.empty())
    return std::nullopt;
  return Version;
}

std::optional<std::string> parseDriverVersion(const std::string &ProcText) {
  std::string Line = ProcText.substr(0, ProcText.find('\n'));
  // Skip past "Kernel Module" so that nothing before it is mistaken for the
  // version; the open-source module says "Kernel Module for x86_64".
  std::size_t Module = Line.find("Module");
  std::istringstream Words(Module == std::string::npos ? Line
                                                       : Line.substr(Module));
  std::string Word;
  while (Words >> Word) {
    bool Digits =
        std::isdigit(static_cast<unsigned char>(Word[0])) &&
        Word.find('.') != std::string::npos &&
        std::all_of(Word.begin(), Word.end(), [](char C) {
          return std::isdigit(static_cast<unsigned char>(C)) || C == '.';
        });
    if (Digits)
      return Word;
  }
  return std::nullopt;
}

std::string formatCudnnVersion(long Version) {
  // cuDNN 9 widened the minor field: 8902 is 8.9.2, 90100 is 9.1.0.
  long Major = Version >= 10000 ? Version / 10000 : Version / 1000;
  long Minor = Version >= 10000 ? Version % 10000 / 100 : Version % 1000 / 100;
  long Patch = Version % 100;
  return std::to_string(Major) + "." + std::to_string(Minor) + "." +
         std::to_string(Patch);
}

std::vector<Check> diagnose(const SystemFacts &Facts) {
  return {checkBuild(Facts),       checkDriver(Facts),
          checkDevices(Facts),     checkVisibleVariable(Facts),
          checkDeviceFiles(Facts), checkCudnn(Facts),
          checkDeviceOp(Facts)};
}

bool gpuUsable(const std::vector<Check> &Checks) {
  return std::any_of(Checks.begin(), Checks.end(), [](const Check &C) {
    return C.Name == DeviceOpCheck && C.State == Status::Ok;
  });
}

void writeText(std::ostream &OS, const SystemFacts &Facts,
               const std::vector<Check> &Checks) {
  OS << "libtorch " << Facts.TorchVersion << "; this program was built against "
     << (Facts.ProgramBuiltWithCuda ? "a CUDA" : "a CPU-only") << " libtorch\n";
  const Check *FirstFailure = nullptr;
  for (const Check &C : Checks) {
    std::string Label = statusName(C.State);
    Label.resize(4, ' ');
    OS << Label << " " << C.Name << ": " << C.Detail;
    if (C.State == Status::Fail) {
      OS << " -- fix: " << C.Fix;
      if (!FirstFailure)
        FirstFailure = &C;
    }
    OS << "\n";
  }
  if (gpuUsable(Checks))
    OS << "GPU usable: yes\n";
  else
    OS << "GPU usable: no"
       << (FirstFailure
               ? "; start with the first failure (" + FirstFailure->Name + ")"
               : std::string())
       << "\n";
}

void writeJson(std::ostream &OS, const SystemFacts &Facts,
               const std::vector<Check> &Checks) {
  // Ordered, so that a reader sees the verdict before the details.
  nlohmann::ordered_json Out;
  Out["usable"] = gpuUsable(Checks);
  Out["libtorch"] = Facts.TorchVersion;
  Out["built_with"] = Facts.ProgramBuiltWithCuda ? "CUDA" : "CPU";
  nlohmann::ordered_json List = nlohmann::ordered_json::array();
  for (const Check &C : Checks)
    List.push_back({{"name", C.Name},
                    {"status", statusName(C.State)},
                    {"detail", C.Detail},
                    {"fix", C.Fix}});
  Out["checks"] = List;
  OS << Out.dump(2) << "\n";
}

} // namespace torchlint::doctor
