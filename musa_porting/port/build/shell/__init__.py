"""Makefiles and shell scripts: the lexer (statements of words, and comments) and the
porter."""
