"""The default mapping tables' generator.

``python -m musa_porting.tables.generate`` reads CUDA headers (the toolkit's include
folder and NVIDIA's PyPI wheels) and writes ``mapping/*.json`` and
``docs/coverage.md``; see ``generate.py`` and ``docs/tables.md``. ``scan.py`` is the
header tokenizer, ``irregular.py`` the curated names with their sources. Nothing here
is imported when porting: the tables are plain JSON files.
"""
