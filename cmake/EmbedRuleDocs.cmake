# Writes OUTPUT: one C++ initializer `{"<rule-id>", R"(...)"},` per page of
# DOCS_DIR/<rule-id>.md, so that SARIF's rule help is the docs page itself,
# never a second copy kept by hand.
file(GLOB pages "${DOCS_DIR}/torch-*.md")
list(SORT pages)
set(content "// Generated from docs/rules/*.md by cmake/EmbedRuleDocs.cmake.\n")
foreach(page ${pages})
  get_filename_component(id "${page}" NAME_WE)
  file(READ "${page}" text)
  string(FIND "${text}" ")torchlint_doc\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${page} contains the raw string delimiter")
  endif()
  string(APPEND content "{\"${id}\", R\"torchlint_doc(${text})torchlint_doc\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
