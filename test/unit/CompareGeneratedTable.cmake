# Regenerates a checked-in table of libtorch facts and compares it with the
# checked-in one: the regeneration test of each generator (the operator
# table, and the measured saved-tensor and overlap tables).
#   cmake -DGENERATOR=... -DEXPECTED=... -DACTUAL=... -DREGENERATE=script
#         -P CompareGeneratedTable.cmake
execute_process(COMMAND ${GENERATOR} -o ${ACTUAL} RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "${GENERATOR} failed: ${_status}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL}
  RESULT_VARIABLE _differs)
if(_differs)
  find_program(_diff diff)
  if(_diff)
    execute_process(COMMAND ${_diff} -u ${EXPECTED} ${ACTUAL}
      OUTPUT_VARIABLE _changes)
    string(SUBSTRING "${_changes}" 0 4000 _changes)
    message("${_changes}")
  endif()
  message(FATAL_ERROR "${EXPECTED} is not what the generator writes for this "
    "libtorch (see ${ACTUAL}); regenerate it with ${REGENERATE}")
endif()
