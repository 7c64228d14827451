"""Hand edits in the output survive re-ports: the bytes each run wrote are kept as
the base (``bases``), an output the user changed is merged three ways with the new
port (``three_way``, ``hand_edits``), the file as it was before is kept (``kept``),
renamed inputs are followed where git says so (``renames``), and a port musa-port did
not make is adopted from the upstream it was made from (``base_from``, ``learn``)."""
