# cmake -DINPUT=<file> -DOUTPUT=<file> -P EmbedText.cmake
# Writes INPUT as a C++ raw string literal, to be #included as an initializer.
file(READ "${INPUT}" _text)
file(WRITE "${OUTPUT}" "R\"optable(${_text})optable\"\n")
