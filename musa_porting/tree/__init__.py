"""Porting a whole tree: walk SRC, plan every file, stage, write, remove stale
outputs, and keep the manifest that makes re-runs incremental. The entry point is
``porter.port_tree``; ``docs/architecture.md`` shows how the modules fit."""
