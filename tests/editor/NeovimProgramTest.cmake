# The editor after a CLI run: torchlint analyzes a copy of a multi-unit
# test-inputs program over its compilation database, then Neovim opens one of
# its units with `torchlint lsp`. The server reads what the CLI's summary pass
# left in the cache, so the unit's diagnostics are the CLI's findings there,
# one of them made only with what another unit tells.
#   cmake -DTORCHLINT=... -DNVIM=... -DDATABASE=<test-inputs database>
#         -DPROJECT=<test-inputs/folder> -DUNIT=<file in it>
#         -DNEEDS_OTHERS=<rule of a finding another unit's summary makes>
#         -DWORK=<fresh folder> -P NeovimProgramTest.cmake

foreach(var TORCHLINT NVIM DATABASE PROJECT UNIT NEEDS_OTHERS WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "NeovimProgramTest.cmake needs -D${var}=...")
  endif()
endforeach()

get_filename_component(name ${PROJECT} NAME)
set(copy ${WORK}/${name})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY ${PROJECT} DESTINATION ${WORK})

# The project's entries of the test-inputs database, pointed at the copy.
include(${CMAKE_CURRENT_LIST_DIR}/EditorTest.cmake)
torchlint_write_copied_entries(${DATABASE} ${PROJECT} ${copy} count)
if(count LESS 2)
  message(FATAL_ERROR "${PROJECT} has ${count} units in ${DATABASE}")
endif()

execute_process(
  COMMAND ${TORCHLINT} --format=json -o ${WORK}/cli.json
          ${WORK}/compile_commands.json
  RESULT_VARIABLE cli_status
  ERROR_VARIABLE cli_stderr)
if(NOT EXISTS ${WORK}/cli.json)
  message(FATAL_ERROR "torchlint exited with ${cli_status}:\n${cli_stderr}")
endif()

set(ENV{TORCHLINT} ${TORCHLINT})
set(ENV{PROGRAM} ${copy}/${UNIT})
set(ENV{CLI_JSON} ${WORK}/cli.json)
set(ENV{NEEDS_OTHERS} ${NEEDS_OTHERS})
torchlint_run_neovim(neovim_program.lua)
