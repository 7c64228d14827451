"""Build files: CMake (``cmake/``), Makefiles and shell scripts (``shell/``), nvcc's
options, and what they share: the words of a build file and where each stands, the
toolchain's names, paths that follow the port's renames, and the edits of one file
(``file.port_build_bytes``)."""
