# ctest driver: install the runtime to a scratch prefix, then configure,
# build and run the consumer project against it.
#   cmake -DRUNTIME_BINARY_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=...
#         -DGENERATOR=... -DCXX_COMPILER=... -DCONFIG=... -P this-file
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
# A single-config build without CMAKE_BUILD_TYPE has an empty $<CONFIG>,
# which --config refuses.
set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer test: ${step} failed (${status})")
  endif()
endfunction()

run(install "${CMAKE_COMMAND}" --install "${RUNTIME_BINARY_DIR}"
    --prefix "${prefix}" ${config_args})
run(configure "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}"
    -B "${WORK_DIR}/build" -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_BUILD_TYPE=${CONFIG}"
    "-DCMAKE_PREFIX_PATH=${prefix}")
run(build "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" ${config_args})

set(report "${WORK_DIR}/report.jsonl")
find_program(consumer consumer PATHS "${WORK_DIR}/build"
             "${WORK_DIR}/build/${CONFIG}" NO_DEFAULT_PATH REQUIRED)
run(run "${CMAKE_COMMAND}" -E env TORCHALIAS_MODE=log
    "TORCHALIAS_REPORT=${report}" "${consumer}")
file(STRINGS "${report}" lines)
list(LENGTH lines count)
list(GET lines 0 validated)
list(GET lines -1 instrumented)
if(NOT count EQUAL 2 OR NOT validated MATCHES "\"verdict\":\"confirmed\""
   OR validated MATCHES "\"finding\""
   OR NOT instrumented MATCHES "\"finding\":\"0123456789abcdef\""
   OR NOT instrumented MATCHES "\"verdict\":\"confirmed\"")
  message(FATAL_ERROR "consumer test: expected two confirmed records, the "
                      "second with its finding, got ${count}: ${lines}")
endif()
message(STATUS "consumer test: installed package works")
