"""What porting could not do: residual CUDA names and headers (``residuals``), porting
hazards (``hazards``), each a finding with a stable ID (``checks``), found per ported
file by ``findings``."""
