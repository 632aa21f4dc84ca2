# One layer of the analyzer (core, api, analysis, recipe, rules) as a static
# library of position-independent objects: the CLI links them against
# libclang-cpp, while the clang-tidy plugin links the same archives and leaves
# the Clang symbols to clang-tidy itself, so no layer links a Clang library.
# A layer names the layers below it; tests/LayersTest.cmake checks that no
# include runs upward.
function(torchlint_analyzer_layer name)
  cmake_parse_arguments(LAYER "" "" "SOURCES;BELOW" ${ARGN})
  add_library(${name} STATIC ${LAYER_SOURCES})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_include_directories(${name} SYSTEM PUBLIC
    ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  target_compile_definitions(${name} PUBLIC ${LLVM_DEFINITIONS})
  target_link_libraries(${name} PUBLIC nlohmann_json::nlohmann_json
    ${LAYER_BELOW})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${name} PUBLIC -fno-rtti)
  endif()
  torchlint_precompiled_clang_headers(${name})
endfunction()

# The Clang headers every layer parses (the AST, its matchers and visitor)
# take about half of each unit's compile time: they are precompiled once, in
# the first layer, and the other layers, the CLI and the plugin reuse it.
option(TORCHLINT_PRECOMPILE_CLANG_HEADERS
       "Precompile the Clang headers the analyzer's units share" ON)
set(TORCHLINT_CLANG_PCH_OWNER torchlint_core)
function(torchlint_precompiled_clang_headers target)
  if(NOT TORCHLINT_PRECOMPILE_CLANG_HEADERS)
    return()
  endif()
  if(target STREQUAL TORCHLINT_CLANG_PCH_OWNER)
    target_precompile_headers(${target} PRIVATE
      <clang/AST/ASTContext.h>
      <clang/AST/ExprCXX.h>
      <clang/AST/ParentMapContext.h>
      <clang/AST/RecursiveASTVisitor.h>
      <clang/ASTMatchers/ASTMatchFinder.h>
      <clang/ASTMatchers/ASTMatchers.h>
      <clang/Basic/SourceManager.h>
      <llvm/ADT/DenseMap.h>
      <llvm/ADT/StringRef.h>)
  else()
    target_precompile_headers(${target} REUSE_FROM ${TORCHLINT_CLANG_PCH_OWNER})
  endif()
endfunction()
