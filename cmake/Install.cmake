# What `cmake --install` puts beside the programs, and the Debian package of
# it all (`cpack -G DEB` in the build folder). Included last: it reads the
# targets the folders define.

# Man pages, generated from each program's --help and --version so that
# they cannot disagree with it (Debian's help2man; none without it).
find_program(TORCHLINT_HELP2MAN help2man)
set(man_pages)
if(TORCHLINT_HELP2MAN)
  set(man_programs)
  if(TARGET torchlint)
    list(APPEND man_programs
      "torchlint|finds libtorch code that runs on the CPU or starves its GPU")
  endif()
  if(TARGET torchlint-doctor)
    list(APPEND man_programs
      "torchlint-doctor|tells why libtorch cannot use the GPU on this machine")
  endif()
  if(TARGET torchlint-replay)
    list(APPEND man_programs
      "torchlint-replay|measures each finding's fix on a GPU")
  endif()
  foreach(entry IN LISTS man_programs)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 program)
    list(GET entry 1 summary)
    set(page ${PROJECT_BINARY_DIR}/man/${program}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${TORCHLINT_HELP2MAN} --no-info --name=${summary}
              --output=${page} $<TARGET_FILE:${program}>
      DEPENDS ${program}
      COMMENT "Generating the man page of ${program}"
      VERBATIM)
    list(APPEND man_pages ${page})
  endforeach()
  add_custom_target(man_pages ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found (Debian: help2man): no man pages")
endif()
set(TORCHLINT_MAN_PAGES "${man_pages}" CACHE INTERNAL "generated man pages")

# The rule pages (what, why, example, fix, options) and the guides.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
  DESTINATION ${CMAKE_INSTALL_DOCDIR}
  FILES_MATCHING PATTERN "*.md"
  PATTERN examples EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package depends on Debian's packages instead of bundling them:
# the shared libraries the programs link (LLVM 19, libclang-cpp, libtorch,
# jemalloc) through dpkg-shlibdeps, and by name what is loaded or read at
# run time: clang-tidy-19 loads the plugin, and the analyzer parses with
# clang's builtin headers (stddef.h, ...) from libclang-common-19-dev.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME torchlint)
set(CPACK_PACKAGE_VENDOR torchlint)
set(CPACK_PACKAGE_CONTACT "torchlint developers <torchlint@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "finds libtorch code that runs on the CPU or starves its GPU")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "finds libtorch code that runs on the CPU or starves its GPU
 torchlint analyzes a C++ project's compilation database with Clang and
 reports libtorch (PyTorch C++ API) code that leaves the GPU idle: inputs
 left on the CPU, hard-coded devices, copies from pageable memory, a wait
 on the GPU every step, autocast misuse. It writes text, JSON and SARIF,
 serves editors as a language server, and loads into clang-tidy-19 as a
 plugin. torchlint-replay measures each suggested fix on a GPU;
 torchlint-doctor tells why libtorch cannot see one.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${TORCHLINT_HOMEPAGE})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "clang-tidy-19, libclang-common-19-dev")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
