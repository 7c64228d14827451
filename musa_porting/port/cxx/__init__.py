"""C, C++ and CUDA sources: the lexer (code, comments, strings, ``#include``, markers),
the porter of one file (``porter.port_bytes``), includes that name files of the tree,
messages in comments and strings, and ``__CUDA_ARCH__`` values."""
