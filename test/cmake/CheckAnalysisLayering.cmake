# Fails when a file of the analysis layer includes a check (Note [The
# analyses never include a check]): a header named *Check.h (ours, or
# clang-tidy's ClangTidyCheck.h) or any other header of the check layer, the
# headers directly in CHECKS.
#   cmake -DCHECKS=<the checks/ directory> -P CheckAnalysisLayering.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT IS_DIRECTORY "${CHECKS}/analysis")
  message(FATAL_ERROR "usage: cmake -DCHECKS=<checks directory> -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
file(GLOB _check_headers RELATIVE ${CHECKS} ${CHECKS}/*.h)
file(GLOB_RECURSE _files RELATIVE ${CHECKS}
  ${CHECKS}/analysis/*.h ${CHECKS}/analysis/*.cpp ${CHECKS}/analysis/*.inc
  ${CHECKS}/support/*.h)
set(_violations "")
foreach(_file IN LISTS _files)
  file(STRINGS ${CHECKS}/${_file} _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(_line IN LISTS _includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"].*" "\\1" _header "${_line}")
    get_filename_component(_name "${_header}" NAME)
    if(_name MATCHES "Check\\.h$" OR _name IN_LIST _check_headers)
      string(APPEND _violations "\n  checks/${_file} includes \"${_header}\", a header of the check layer")
    endif()
  endforeach()
endforeach()
list(LENGTH _files _count)
if(_violations)
  message(FATAL_ERROR "the analysis layer includes checks:${_violations}")
endif()
message(STATUS "${_count} files of checks/analysis and checks/support include no check")
