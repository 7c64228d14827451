"""What ``simple_porting.py`` (torch_musa's ``SimplePorting`` surface) calls: its
arguments read as torch_musa accepts them, and the per-file loop for a caller's own
``modify_file``. The surface itself stays in that one module, because callers patch
its names (``LOGGER``, ``EXT_REPLACED_MAPPING``, ``_MAPPING_RULE``, ``read_json``)."""
