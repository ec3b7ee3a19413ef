# cmake -DDOCS=<docs/checks> -DOUTPUT=<file> -P EmbedCheckDocs.cmake
# Writes one initializer per check page: the check's name, the page's first
# paragraph (its summary) and the whole page, as C++ raw string literals. The
# SARIF writer uses them for each rule's descriptions and help text.
file(GLOB _pages "${DOCS}/libtorch-*.md")
list(SORT _pages)
set(_out "")
foreach(_page IN LISTS _pages)
  get_filename_component(_name "${_page}" NAME_WE)
  file(READ "${_page}" _text)
  # The summary is the first paragraph after the title.
  string(REGEX REPLACE "^#[^\n]*\n\n" "" _body "${_text}")
  string(FIND "${_body}" "\n\n" _end)
  string(SUBSTRING "${_body}" 0 ${_end} _summary)
  string(REPLACE "\n" " " _summary "${_summary}")
  string(APPEND _out "{\"${_name}\", R\"torchaliasdoc(${_summary})torchaliasdoc\",\n"
                     " R\"torchaliasdoc(${_text})torchaliasdoc\"},\n")
endforeach()
file(WRITE "${OUTPUT}" "${_out}")
