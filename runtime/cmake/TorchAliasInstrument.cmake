# TorchAliasInstrument.cmake: builds the copy of a project that
# `torchalias instrument` wrote, without editing its CMakeLists.txt.
#
#   cmake -S COPY -B COPY/build \
#     -DCMAKE_PROJECT_INCLUDE=<prefix>/lib/cmake/TorchAlias/TorchAliasInstrument.cmake
#
# CMake includes this file after every project() call, so every target the
# project defines afterwards links TorchAlias::runtime, whose headers and
# library the inserted validators need. See docs/runtime.md.
find_package(TorchAlias REQUIRED CONFIG HINTS "${CMAKE_CURRENT_LIST_DIR}")
link_libraries(TorchAlias::runtime)
