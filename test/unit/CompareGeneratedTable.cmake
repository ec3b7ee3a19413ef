# Regenerates the operator table and compares it with the checked-in one.
execute_process(COMMAND ${GENERATOR} -o ${ACTUAL} RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "the generator failed: ${_status}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL}
  RESULT_VARIABLE _differs)
if(_differs)
  message(FATAL_ERROR "${EXPECTED} is not what the generator writes for this "
    "libtorch (see ${ACTUAL}); regenerate it with scripts/regenerate-operator-table.sh")
endif()
