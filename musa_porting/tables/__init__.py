"""The default mapping tables' generator.

``python -m musa_porting.tables.generate`` reads CUDA headers (the toolkit's include
folder and NVIDIA's PyPI wheels) and writes ``mapping/*.json`` and
``docs/coverage.md``; see ``docs/tables.md``. ``headers.py`` reads the headers,
``scan.py`` is their tokenizer, ``families.py`` the API families, ``irregular.py`` the
curated names with their sources, ``build.py`` builds the tables and ``output.py``
checks and renders them. Nothing here is imported when porting: the tables are plain
JSON files.
"""
