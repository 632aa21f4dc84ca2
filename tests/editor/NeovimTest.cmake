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
file(READ ${DATABASE} database)
string(JSON entries LENGTH "${database}")
math(EXPR last_entry "${entries} - 1")
set(entry "")
foreach(i RANGE ${last_entry})
  string(JSON file GET "${database}" ${i} file)
  if(file STREQUAL PROGRAM)
    string(JSON entry GET "${database}" ${i})
  endif()
endforeach()
if(entry STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} is not in ${DATABASE}")
endif()
string(JSON command GET "${entry}" command)
string(REPLACE "${PROGRAM}" "${WORK}/${name}" command "${command}")
string(REPLACE "\\" "\\\\" command "${command}")
string(REPLACE "\"" "\\\"" command "${command}")
string(JSON entry SET "${entry}" command "\"${command}\"")
string(JSON entry SET "${entry}" file "\"${WORK}/${name}\"")
string(JSON entry SET "${entry}" directory "\"${WORK}\"")
file(WRITE ${WORK}/compile_commands.json "[${entry}]")

set(ENV{TORCHLINT} ${TORCHLINT})
set(ENV{ORIGINAL} ${PROGRAM})
set(ENV{GOLDEN} ${golden})
set(ENV{PROGRAM} ${WORK}/${name})
set(ENV{EXPECTED} ${WORK}/expected.cpp)
include(${CMAKE_CURRENT_LIST_DIR}/RunNeovim.cmake)
torchlint_run_neovim(neovim_lsp.lua)
message("the fixed buffer equals ${golden}")
