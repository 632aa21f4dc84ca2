# What the libtorch at hand offers, decided by compiling against it rather
# than by its version number: CUDA support and the autocast API generation.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_INCLUDES ${TORCH_INCLUDE_DIRS})
set(CMAKE_REQUIRED_FLAGS "${TORCH_CXX_FLAGS} -std=c++17")
set(CMAKE_REQUIRED_QUIET ON)
# Compile only: the probes name libtorch functions but link no libtorch.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
check_cxx_source_compiles([[
#include <ATen/autocast_mode.h>
int main() { at::autocast::set_autocast_enabled(at::kCPU, false); }
]] TORCHLINT_AUTOCAST_BY_DEVICE)
check_cxx_source_compiles([[
#include <c10/core/Event.h>
double f(const c10::Event &A, const c10::Event &B) { return A.elapsedTime(B); }
int main() {}
]] TORCHLINT_EVENT_ELAPSED_TIME)
cmake_pop_check_state()
unset(CMAKE_TRY_COMPILE_TARGET_TYPE)

# A CUDA build of libtorch has the torch_cuda target and c10_cuda among its
# libraries; Debian's CPU build has neither.
set(TORCHLINT_TORCH_HAS_CUDA OFF)
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES OR TORCH_LIBRARIES MATCHES "c10_cuda")
  set(TORCHLINT_TORCH_HAS_CUDA ON)
endif()
foreach(feature AUTOCAST_BY_DEVICE EVENT_ELAPSED_TIME)
  if(TORCHLINT_${feature})
    set(${feature}_SAID yes)
  else()
    set(${feature}_SAID no)
  endif()
endforeach()
message(STATUS "torchlint runtime: libtorch ${Torch_VERSION}, CUDA "
               "${TORCHLINT_TORCH_HAS_CUDA}, autocast by device type "
               "${AUTOCAST_BY_DEVICE_SAID}, CUDA event timing "
               "${EVENT_ELAPSED_TIME_SAID}")

add_library(torchlint_torch INTERFACE)
target_link_libraries(torchlint_torch INTERFACE ${TORCH_LIBRARIES})
separate_arguments(torch_cxx_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(torchlint_torch INTERFACE ${torch_cxx_flags})
target_compile_definitions(torchlint_torch INTERFACE
  $<$<BOOL:${TORCHLINT_AUTOCAST_BY_DEVICE}>:TORCHLINT_AUTOCAST_BY_DEVICE=1>
  $<$<BOOL:${TORCHLINT_EVENT_ELAPSED_TIME}>:TORCHLINT_EVENT_ELAPSED_TIME=1>
  $<$<BOOL:${TORCHLINT_TORCH_HAS_CUDA}>:TORCHLINT_TORCH_HAS_CUDA=1>)
