# Installs BINARY into a scratch prefix and checks the conventional layout.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY} --prefix ${PREFIX}
  RESULT_VARIABLE _status OUTPUT_QUIET)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
foreach(_path IN LISTS EXPECTED)
  if(NOT EXISTS ${PREFIX}/${_path})
    message(FATAL_ERROR "cmake --install did not install ${_path}")
  endif()
endforeach()
