"""Porting a whole tree: walk SRC, name every output, index the project's symbols, and
plan every file (in forked workers); then ``write/`` puts the plan in place. The entry
point is ``porter.port_tree``; ``docs/architecture.md`` shows how the modules fit."""
