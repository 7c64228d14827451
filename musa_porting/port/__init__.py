"""Rewriting one file's text, by language: ``cxx/`` (C, C++ and CUDA), ``build/``
(CMake, Makefiles, shell scripts, nvcc options) and ``python/``. What all three share
stays here: the matching engine, text edits (``port_text`` for text in memory), file
names after porting, the line around an offset, and CUDA-named strings."""
