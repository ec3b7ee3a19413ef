# Finds LLVM and Clang of release ${TORCHALIAS_LLVM_VERSION} and the clang-tidy
# executable of the same release. See Note [Choosing the LLVM] in the top-level
# CMakeLists.txt.

set(_llvm_prefix /usr/lib/llvm-${TORCHALIAS_LLVM_VERSION})
find_package(LLVM REQUIRED CONFIG NO_DEFAULT_PATH
  PATHS ${_llvm_prefix}/lib/cmake/llvm ${LLVM_DIR})
# LLVM 22's exported clangd targets name gRPC's imported targets (Debian builds
# clangd with its remote index), so gRPC's package must be loaded first.
find_package(gRPC CONFIG QUIET)
find_package(Clang REQUIRED CONFIG NO_DEFAULT_PATH
  PATHS ${_llvm_prefix}/lib/cmake/clang ${LLVM_DIR}/../clang)
if(NOT LLVM_VERSION_MAJOR EQUAL TORCHALIAS_LLVM_VERSION)
  message(FATAL_ERROR
    "TORCHALIAS_LLVM_VERSION is ${TORCHALIAS_LLVM_VERSION} but the LLVM found at "
    "${LLVM_DIR} is ${LLVM_PACKAGE_VERSION}. Install llvm-${TORCHALIAS_LLVM_VERSION}-dev "
    "and libclang-${TORCHALIAS_LLVM_VERSION}-dev, or set LLVM_DIR.")
endif()
message(STATUS "torchalias: building against LLVM ${LLVM_PACKAGE_VERSION} (${LLVM_DIR})")

find_program(TORCHALIAS_CLANG_TIDY
  NAMES clang-tidy-${LLVM_VERSION_MAJOR} clang-tidy
  HINTS ${LLVM_TOOLS_BINARY_DIR} ${_llvm_prefix}/bin
  DOC "The clang-tidy that loads the plugin; it must be of the same LLVM release")
if(NOT TORCHALIAS_CLANG_TIDY)
  message(FATAL_ERROR
    "No clang-tidy found for LLVM ${LLVM_VERSION_MAJOR}. Install "
    "clang-tidy-${LLVM_VERSION_MAJOR} or set TORCHALIAS_CLANG_TIDY.")
endif()
execute_process(COMMAND ${TORCHALIAS_CLANG_TIDY} --version
  OUTPUT_VARIABLE _tidy_version_text ERROR_QUIET)
string(REGEX MATCH "LLVM version ([0-9]+)\\.([0-9]+)" _tidy_version "${_tidy_version_text}")
set(_tidy_major ${CMAKE_MATCH_1})
if(NOT _tidy_major STREQUAL LLVM_VERSION_MAJOR)
  message(FATAL_ERROR
    "LLVM mismatch: the plugin would be built against LLVM ${LLVM_PACKAGE_VERSION}, "
    "but ${TORCHALIAS_CLANG_TIDY} is LLVM '${_tidy_major}'. A clang-tidy plugin only "
    "loads into a clang-tidy of the release it was built against. Point "
    "TORCHALIAS_CLANG_TIDY at clang-tidy-${LLVM_VERSION_MAJOR}, or set "
    "TORCHALIAS_LLVM_VERSION to ${_tidy_major}.")
endif()
message(STATUS "torchalias: plugin host ${TORCHALIAS_CLANG_TIDY} (LLVM ${_tidy_major})")

find_program(TORCHALIAS_FILECHECK NAMES FileCheck
  HINTS ${LLVM_TOOLS_BINARY_DIR} ${_llvm_prefix}/bin)
find_program(TORCHALIAS_CLANGXX NAMES clang++-${LLVM_VERSION_MAJOR} clang++
  HINTS ${LLVM_TOOLS_BINARY_DIR} ${_llvm_prefix}/bin)
# lit.py in the build tree of LLVM 14-19; LLVM 22 installs only the script
# bin/lit (both are run with Python).
find_file(TORCHALIAS_LIT NAMES lit.py lit
  HINTS ${_llvm_prefix}/build/utils/lit ${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit
        ${_llvm_prefix}/bin NO_DEFAULT_PATH)

# Checks are compiled against Clang's headers with the same RTTI setting as LLVM.
add_library(torchalias_llvm_flags INTERFACE)
target_include_directories(torchalias_llvm_flags SYSTEM INTERFACE
  ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
target_compile_definitions(torchalias_llvm_flags INTERFACE ${LLVM_DEFINITIONS}
  TORCHALIAS_LLVM_MAJOR=${LLVM_VERSION_MAJOR})
# Compat.h bridges the LLVM releases for the analyses, the checks and the
# driver alike (checks/support/).
target_include_directories(torchalias_llvm_flags INTERFACE
  ${PROJECT_SOURCE_DIR}/checks/support)
if(NOT LLVM_ENABLE_RTTI)
  target_compile_options(torchalias_llvm_flags INTERFACE -fno-rtti)
endif()
