# The analyzer's layers, lowest first: a file may include headers of its own
# layer and of the layers before it, never of one after it; the runtime, which
# builds without LLVM, may include only common/. Run as
#   cmake -DROOT=<source dir> -P tests/LayersTest.cmake
set(layers common core api analysis recipe rules)
set(failures 0)

function(check_file file allowed)
  file(STRINGS ${file} includes REGEX "^#include \"[a-z-]+/")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "^#include \"([a-z-]+)/" _ "${line}")
    set(target ${CMAKE_MATCH_1})
    list(FIND layers ${target} is_layer)
    if(is_layer LESS 0)
      continue() # a folder of the file's own component, or a system header
    endif()
    list(FIND allowed ${target} ok)
    if(ok LESS 0)
      file(RELATIVE_PATH rel ${ROOT} ${file})
      message(SEND_ERROR "${rel}: '${line}' runs upward")
      math(EXPR failures "${failures} + 1")
      set(failures ${failures} PARENT_SCOPE)
    endif()
  endforeach()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

set(below "")
foreach(layer IN LISTS layers)
  list(APPEND below ${layer})
  file(GLOB sources ${ROOT}/${layer}/*.h ${ROOT}/${layer}/*.cpp
       ${ROOT}/${layer}/*.def)
  if(NOT sources)
    message(SEND_ERROR "layer ${layer}/ has no sources")
    math(EXPR failures "${failures} + 1")
  endif()
  foreach(file IN LISTS sources)
    check_file(${file} "${below}")
  endforeach()
endforeach()

file(GLOB_RECURSE runtime_sources ${ROOT}/runtime/*.h ${ROOT}/runtime/*.cpp)
foreach(file IN LISTS runtime_sources)
  check_file(${file} "common")
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} include(s) run upward")
endif()
list(LENGTH runtime_sources runtime_count)
message(STATUS "layers: no include runs upward (${runtime_count} runtime files checked too)")
