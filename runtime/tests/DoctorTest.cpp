//===--- DoctorTest.cpp - Tests of torchlint-doctor -------------*- C++ -*-===//
//
// The diagnosis is tested on invented machines, since the machine running the
// tests shows only one of them; the program itself is run once for real, and
// on a CPU-only libtorch it must say so.
//
//===----------------------------------------------------------------------===//

#include "Doctor.h"
#include "RunCommand.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <sys/wait.h>

using namespace torchlint::doctor;

namespace {

using test::find;
using test::has;
using test::runDoctor;
using test::RunResult;

/// A machine where everything works: libtorch for CUDA 12.1 on a driver for
/// CUDA 12.4 with one GPU.
SystemFacts healthyFacts() {
  SystemFacts F;
  F.TorchVersion = "2.3.0";
  F.ProgramBuiltWithCuda = true;
  F.CudaBackendLoaded = true;
  F.ConfigUsesCuda = true;
  F.AtHasCuda = true;
  F.BuiltForCuda = CudaVersion{12, 1};
  F.TorchDeviceCount = 1;
  F.DriverVersion = "550.54.14";
  F.LibcudaLoaded = true;
  F.DriverCuda = CudaVersion{12, 4};
  F.DriverDeviceCount = 1;
  F.Devices = {{"NVIDIA A100-SXM4-80GB", 8, 0}};
  F.ProcGpuCount = 1;
  F.DeviceFiles = {{"/dev/nvidia-uvm", true, "root"},
                   {"/dev/nvidia0", true, "root"},
                   {"/dev/nvidiactl", true, "root"}};
  F.HasCudnn = true;
  F.CudnnVersion = 8902;
  F.DeviceOp = {DeviceOpState::Passed,
                "a 64x64 matmul on cuda:0 matches the CPU result"};
  return F;
}

/// Debian's libtorch on a machine without any NVIDIA driver.
SystemFacts cpuOnlyFacts() {
  SystemFacts F;
  F.TorchVersion = "1.13.0";
  F.LibcudaError = "libcuda.so.1: cannot open shared object file: No such "
                   "file or directory";
  return F;
}

bool builtAgainstCudaLibtorch() {
#ifdef TORCHLINT_TORCH_HAS_CUDA
  return true;
#else
  return at::hasCUDA();
#endif
}

} // namespace

TEST(Doctor, CpuOnlyBuild) {
  std::vector<Check> Checks = diagnose(cpuOnlyFacts());
  ASSERT_EQ(Checks.size(), 7u);
  EXPECT_EQ(Checks[0].Name, "libtorch build");
  EXPECT_EQ(Checks[0].State, Status::Fail);
  EXPECT_TRUE(has(Checks[0].Detail, "built without CUDA")) << Checks[0].Detail;
  EXPECT_TRUE(has(Checks[0].Fix, "pytorch.org"));
  EXPECT_TRUE(has(Checks[0].Fix, "torch.utils.cmake_prefix_path"));
  EXPECT_TRUE(has(Checks[0].Fix, "libtorch-dev is CPU-only"));

  Check Driver = find(Checks, "NVIDIA driver");
  EXPECT_EQ(Driver.State, Status::Fail);
  EXPECT_TRUE(has(Driver.Detail, "no NVIDIA driver")) << Driver.Detail;
  EXPECT_FALSE(Driver.Fix.empty());

  EXPECT_EQ(find(Checks, "visible devices").State, Status::Skip);
  EXPECT_EQ(find(Checks, "CUDA_VISIBLE_DEVICES").State, Status::Ok);
  EXPECT_EQ(find(Checks, "device files").State, Status::Skip);
  EXPECT_EQ(find(Checks, "cuDNN").State, Status::Skip);
  EXPECT_EQ(find(Checks, "device operation").State, Status::Skip);
  EXPECT_FALSE(gpuUsable(Checks));
}

TEST(Doctor, CudaBuildWithoutDriver) {
  SystemFacts F = healthyFacts();
  F.AtHasCuda = false;
  F.TorchDeviceCount = 0;
  F.DriverVersion.reset();
  F.LibcudaLoaded = false;
  F.LibcudaError = "libcuda.so.1: cannot open shared object file";
  F.DriverCuda.reset();
  F.DriverDeviceCount.reset();
  F.Devices.clear();
  F.ProcGpuCount.reset();
  F.DeviceFiles.clear();
  F.DeviceOp = {};
  std::vector<Check> Checks = diagnose(F);

  EXPECT_EQ(find(Checks, "libtorch build").State, Status::Ok);
  EXPECT_TRUE(has(find(Checks, "libtorch build").Detail, "CUDA 12.1"));
  Check Driver = find(Checks, "NVIDIA driver");
  EXPECT_EQ(Driver.State, Status::Fail);
  EXPECT_TRUE(has(Driver.Detail, "no NVIDIA driver"));
  // The fix names a driver new enough for the build's CUDA.
  EXPECT_TRUE(has(Driver.Fix, "12.1")) << Driver.Fix;
  EXPECT_EQ(find(Checks, "visible devices").State, Status::Skip);
  EXPECT_EQ(find(Checks, "device files").State, Status::Skip);
  EXPECT_EQ(find(Checks, "device operation").State, Status::Skip);
  EXPECT_FALSE(gpuUsable(Checks));
}

TEST(Doctor, DriverTooOldForTheBuild) {
  SystemFacts F = healthyFacts();
  F.DriverVersion = "520.61.05";
  F.DriverCuda = CudaVersion{11, 8};
  F.TorchDeviceCount = 0;
  F.DeviceOp = {};
  std::vector<Check> Checks = diagnose(F);

  Check Driver = find(Checks, "NVIDIA driver");
  EXPECT_EQ(Driver.State, Status::Fail);
  EXPECT_TRUE(has(Driver.Detail, "11.8")) << Driver.Detail;
  EXPECT_TRUE(has(Driver.Detail, "12.1")) << Driver.Detail;
  EXPECT_TRUE(has(Driver.Fix, "upgrade the NVIDIA driver")) << Driver.Fix;
  EXPECT_TRUE(has(Driver.Fix, "530.30.02")) << Driver.Fix;
  // The driver still sees its GPU; libtorch does not, and says why.
  EXPECT_EQ(find(Checks, "visible devices").State, Status::Fail);
  EXPECT_FALSE(gpuUsable(Checks));
}

TEST(Doctor, NewerDriverThanTheBuildIsFine) {
  SystemFacts F = healthyFacts();
  F.BuiltForCuda = CudaVersion{11, 8};
  EXPECT_EQ(find(diagnose(F), "NVIDIA driver").State, Status::Ok);
}

TEST(Doctor, CudaVisibleDevicesEmpty) {
  SystemFacts F = healthyFacts();
  F.CudaVisibleDevices = "";
  Check C = find(diagnose(F), "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(C.State, Status::Fail);
  EXPECT_TRUE(has(C.Detail, "hides every GPU")) << C.Detail;
  EXPECT_TRUE(has(C.Fix, "unset CUDA_VISIBLE_DEVICES")) << C.Fix;
}

TEST(Doctor, CudaVisibleDevicesNamesAMissingGpu) {
  SystemFacts F = healthyFacts();
  F.CudaVisibleDevices = "3";
  Check C = find(diagnose(F), "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(C.State, Status::Fail);
  EXPECT_TRUE(has(C.Detail, "GPU 3")) << C.Detail;
  EXPECT_TRUE(has(C.Detail, "1 GPU")) << C.Detail;
}

TEST(Doctor, CudaVisibleDevicesAcceptsUuidsAndIndexes) {
  SystemFacts F = healthyFacts();
  F.CudaVisibleDevices = "GPU-8f6e1c2a-1d3b-4c5e-9f00-123456789abc";
  EXPECT_EQ(find(diagnose(F), "CUDA_VISIBLE_DEVICES").State, Status::Ok);
  F.CudaVisibleDevices = "MIG-5c2d1e4f-aaaa-bbbb-cccc-0123456789ab";
  EXPECT_EQ(find(diagnose(F), "CUDA_VISIBLE_DEVICES").State, Status::Ok);
  F.CudaVisibleDevices = "0";
  EXPECT_EQ(find(diagnose(F), "CUDA_VISIBLE_DEVICES").State, Status::Ok);
}

TEST(Doctor, CudaVisibleDevicesMinusOne) {
  SystemFacts F = healthyFacts();
  F.CudaVisibleDevices = "-1";
  Check Hidden = find(diagnose(F), "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(Hidden.State, Status::Fail);
  EXPECT_TRUE(has(Hidden.Detail, "hides every GPU")) << Hidden.Detail;

  F.CudaVisibleDevices = "0,-1,1";
  Check Cut = find(diagnose(F), "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(Cut.State, Status::Ok);
  EXPECT_TRUE(has(Cut.Detail, "ends the list")) << Cut.Detail;

  F.CudaVisibleDevices = "gpu0";
  EXPECT_EQ(find(diagnose(F), "CUDA_VISIBLE_DEVICES").State, Status::Fail);
}

TEST(Doctor, DeviceFileNotAccessible) {
  SystemFacts F = healthyFacts();
  F.DeviceFiles = {{"/dev/nvidia-uvm", true, "root"},
                   {"/dev/nvidia0", false, "video"},
                   {"/dev/nvidiactl", true, "video"}};
  Check C = find(diagnose(F), "device files");
  EXPECT_EQ(C.State, Status::Fail);
  EXPECT_TRUE(has(C.Detail, "/dev/nvidia0")) << C.Detail;
  EXPECT_TRUE(has(C.Fix, "video")) << C.Fix;
  EXPECT_TRUE(has(C.Fix, "usermod -aG video")) << C.Fix;
}

TEST(Doctor, EverythingFineIsUsable) {
  std::vector<Check> Checks = diagnose(healthyFacts());
  for (const Check &C : Checks) {
    EXPECT_EQ(C.State, Status::Ok) << C.Name << ": " << C.Detail;
    EXPECT_TRUE(C.Fix.empty()) << C.Name;
  }
  EXPECT_TRUE(has(find(Checks, "visible devices").Detail, "A100"));
  EXPECT_TRUE(has(find(Checks, "cuDNN").Detail, "8.9.2"));
  EXPECT_TRUE(gpuUsable(Checks));
}

TEST(Doctor, FailingDeviceOperationIsNotUsable) {
  SystemFacts F = healthyFacts();
  F.DeviceOp = {DeviceOpState::Failed,
                "CUDA error: no kernel image is available for execution on "
                "the device\nCUDA kernel errors might be asynchronously "
                "reported"};
  std::vector<Check> Checks = diagnose(F);
  Check C = find(Checks, "device operation");
  EXPECT_EQ(C.State, Status::Fail);
  EXPECT_TRUE(has(C.Detail, "no kernel image")) << C.Detail;
  EXPECT_FALSE(has(C.Detail, "asynchronously")) << "only the first line";
  EXPECT_TRUE(has(C.Fix, "compute capability 8.0")) << C.Fix;
  EXPECT_FALSE(gpuUsable(Checks));
}

TEST(Doctor, Parsers) {
  ASSERT_TRUE(CudaVersion::fromInteger(12040));
  EXPECT_EQ(CudaVersion::fromInteger(12040)->str(), "12.4");
  EXPECT_EQ(CudaVersion::fromInteger(11080)->str(), "11.8");
  EXPECT_FALSE(CudaVersion::fromInteger(0));

  EXPECT_EQ(parseCudaVersionFromConfig("  - CUDA Runtime 12.1\n")->str(),
            "12.1");
  EXPECT_EQ(parseCudaVersionFromConfig(
                "  - CUDA Runtime 12.4\n  - Built with CUDA Runtime 12.1\n")
                ->str(),
            "12.1");
  EXPECT_EQ(parseCudaVersionFromConfig(
                "Build settings: BLAS_INFO=mkl, CUDA_VERSION=11.8, "
                "CUDNN_VERSION=8.7.0")
                ->str(),
            "11.8");
  EXPECT_FALSE(parseCudaVersionFromConfig("USE_CUDA=OFF, USE_CUDNN=OFF"));

  EXPECT_EQ(parseTorchVersionFromConfig("TORCH_VERSION=1.13.0, USE_CUDA=OFF"),
            "1.13.0");
  EXPECT_EQ(parseDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel "
                               "Module  535.104.05  Sat Aug 19 01:15:15 UTC "
                               "2023\nGCC version: gcc 12\n"),
            "535.104.05");
  EXPECT_EQ(parseDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module "
                               "for x86_64  550.54.14  Release Build\n"),
            "550.54.14");
  EXPECT_EQ(formatCudnnVersion(8902), "8.9.2");
  EXPECT_EQ(formatCudnnVersion(90100), "9.1.0");
}

TEST(Doctor, JsonWriter) {
  SystemFacts F = cpuOnlyFacts();
  std::vector<Check> Checks = diagnose(F);
  std::ostringstream Out;
  writeJson(Out, F, Checks);
  nlohmann::json Json = nlohmann::json::parse(Out.str());
  EXPECT_EQ(Json["usable"], false);
  EXPECT_EQ(Json["libtorch"], "1.13.0");
  ASSERT_EQ(Json["checks"].size(), 7u);
  EXPECT_EQ(Json["checks"][0]["name"], "libtorch build");
  EXPECT_EQ(Json["checks"][0]["status"], "FAIL");
  EXPECT_FALSE(Json["checks"][0]["fix"].get<std::string>().empty());
}

TEST(Doctor, GatherFactsOnThisMachine) {
  if (builtAgainstCudaLibtorch())
    GTEST_SKIP() << "this libtorch has CUDA";
  bool Ran = false;
  SystemFacts F = gatherFacts([&Ran] {
    Ran = true;
    return DeviceOpResult{};
  });
  EXPECT_FALSE(F.CudaBackendLoaded);
  EXPECT_FALSE(F.ProgramBuiltWithCuda);
  EXPECT_FALSE(F.TorchVersion.empty());
  EXPECT_EQ(F.TorchDeviceCount, 0u);
  EXPECT_FALSE(Ran) << "no device operation without a CUDA backend";
  EXPECT_EQ(diagnose(F)[0].State, Status::Fail);
}

TEST(Doctor, RunsOnThisMachine) {
  RunResult Text = runDoctor("");
  RunResult Json = runDoctor("--json", "2>/dev/null");
  nlohmann::json Parsed = nlohmann::json::parse(Json.Output, nullptr, false);
  ASSERT_FALSE(Parsed.is_discarded()) << Json.Output;
  ASSERT_TRUE(Parsed.contains("usable"));
  ASSERT_TRUE(Parsed.contains("checks"));
  EXPECT_EQ(Parsed["checks"].size(), 7u);
  if (builtAgainstCudaLibtorch()) {
    // The GPU machine: whatever it finds, the exit code must agree.
    bool Usable = Parsed["usable"].get<bool>();
    EXPECT_EQ(Text.ExitCode, Usable ? 0 : 1) << Text.Output;
    EXPECT_EQ(Json.ExitCode, Usable ? 0 : 1);
    return;
  }
  EXPECT_EQ(Text.ExitCode, 1) << Text.Output;
  EXPECT_TRUE(has(Text.Output, "FAIL libtorch build")) << Text.Output;
  EXPECT_TRUE(has(Text.Output, "built without CUDA")) << Text.Output;
  EXPECT_EQ(Json.ExitCode, 1);
  EXPECT_EQ(Parsed["usable"], false);
  EXPECT_EQ(Parsed["checks"][0]["status"], "FAIL");
}

TEST(Doctor, RejectsUnknownOptions) {
  RunResult Bogus = runDoctor("--bogus");
  EXPECT_EQ(Bogus.ExitCode, 2);
  EXPECT_TRUE(has(Bogus.Output, "--bogus")) << Bogus.Output;
  // One line, newline-terminated, and nothing else.
  EXPECT_EQ(Bogus.Output.find('\n'), Bogus.Output.size() - 1) << Bogus.Output;

  RunResult Help = runDoctor("--help");
  EXPECT_EQ(Help.ExitCode, 0);
  EXPECT_TRUE(has(Help.Output, "--json"));
  RunResult Version = runDoctor("--version");
  EXPECT_EQ(Version.ExitCode, 0);
  EXPECT_TRUE(has(Version.Output, "torchlint-doctor"));
}
