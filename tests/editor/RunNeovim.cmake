# Runs the Lua script SCRIPT, beside this file, in a headless Neovim in WORK;
# prints the report the script wrote and fails when Neovim did. The script
# takes its inputs from the environment, and REPORT (where report.lua's
# helpers, at REPORTING, write what was seen) from here.
function(torchlint_run_neovim script)
  get_filename_component(here ${CMAKE_CURRENT_FUNCTION_LIST_FILE} DIRECTORY)
  set(ENV{REPORT} ${WORK}/report.txt)
  set(ENV{REPORTING} ${here}/report.lua)
  execute_process(
    COMMAND ${NVIM} --headless -u NONE -i NONE -n
            -c "luafile ${here}/${script}"
    WORKING_DIRECTORY ${WORK}
    RESULT_VARIABLE status
    TIMEOUT 600)
  if(EXISTS ${WORK}/report.txt)
    file(READ ${WORK}/report.txt seen)
    message("${seen}")
  endif()
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "nvim exited with ${status}")
  endif()
endfunction()
