# Configures SOURCE in a scratch directory with ARGS and passes when configure
# fails with a message matching EXPECT.
#   cmake -DSOURCE=... -DBINARY=... -DARGS="a;b" -DEXPECT=regex -P ExpectConfigureFailure.cmake
file(REMOVE_RECURSE ${BINARY})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} ${ARGS}
  RESULT_VARIABLE _status OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(_status EQUAL 0)
  message(FATAL_ERROR "configure succeeded, expected it to fail with '${EXPECT}'")
endif()
if(NOT "${_out}${_err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "configure failed without '${EXPECT}':\n${_err}")
endif()
message(STATUS "configure failed as expected: ${EXPECT}")
