# What the editor tests share. They run in script mode with NVIM and WORK
# set.

# Writes WORK/compile_commands.json: the entries of DATABASE whose source is
# FROM, or under the folder FROM, pointed at its copy TO and run in WORK.
# COUNT_VAR: how many there are.
function(torchlint_write_copied_entries database from to count_var)
  file(READ ${database} text)
  string(JSON entries LENGTH "${text}")
  math(EXPR last_entry "${entries} - 1")
  set(copied "")
  foreach(i RANGE ${last_entry})
    string(JSON file GET "${text}" ${i} file)
    string(FIND "${file}" "${from}/" at)
    if(NOT file STREQUAL from AND NOT at EQUAL 0)
      continue()
    endif()
    string(JSON entry GET "${text}" ${i})
    string(REPLACE "${from}" "${to}" file "${file}")
    string(JSON command GET "${entry}" command)
    string(REPLACE "${from}" "${to}" command "${command}")
    string(REPLACE "\\" "\\\\" command "${command}")
    string(REPLACE "\"" "\\\"" command "${command}")
    string(JSON entry SET "${entry}" command "\"${command}\"")
    string(JSON entry SET "${entry}" file "\"${file}\"")
    string(JSON entry SET "${entry}" directory "\"${WORK}\"")
    list(APPEND copied "${entry}")
  endforeach()
  list(JOIN copied "," joined)
  file(WRITE ${WORK}/compile_commands.json "[${joined}]")
  list(LENGTH copied count)
  set(${count_var} ${count} PARENT_SCOPE)
endfunction()

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
