"""Rewriting one file's text: the matching engine, the C/C++ lexer, include renames,
file names after porting, and ``port_text`` for text in memory."""
