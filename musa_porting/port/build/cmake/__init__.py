"""CMake files (``CMakeLists.txt``, ``*.cmake``) to FindMUSA and MUSAToolkit: the lexer,
the facts of a whole file, toolkit, flag and target commands, and the porter."""
