# The editor test: Neovim 0.7 (Debian 12's) runs `torchlint lsp` on a copy of
# a test-inputs program that has exactly one fix-it, applies the code action
# the server offers, and the result must equal the program's golden.
#   cmake -DTORCHLINT=... -DNVIM=... -DDATABASE=<test-inputs database>
#         -DPROGRAM=<test-inputs/X.cpp> -DWORK=<fresh folder> -P NeovimTest.cmake
# The copy is written by the Lua script (see there why it is marked).

foreach(var TORCHLINT NVIM DATABASE PROGRAM WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "NeovimTest.cmake needs -D${var}=...")
  endif()
endforeach()

get_filename_component(name ${PROGRAM} NAME)
string(REGEX REPLACE "\\.cpp$" ".fixed.cpp" golden ${PROGRAM})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Its entry of the test-inputs database, pointed at the copy.
include(${CMAKE_CURRENT_LIST_DIR}/EditorTest.cmake)
torchlint_write_copied_entries(${DATABASE} ${PROGRAM} ${WORK}/${name} count)
if(count EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} is not in ${DATABASE}")
endif()

set(ENV{TORCHLINT} ${TORCHLINT})
set(ENV{ORIGINAL} ${PROGRAM})
set(ENV{GOLDEN} ${golden})
set(ENV{PROGRAM} ${WORK}/${name})
set(ENV{EXPECTED} ${WORK}/expected.cpp)
torchlint_run_neovim(neovim_lsp.lua)
message("the fixed buffer equals ${golden}")
