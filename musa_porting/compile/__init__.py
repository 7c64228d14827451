"""Compiling a ported tree: ``build`` (mcc), ``verify`` (nvcc through the MUSA-to-CUDA
``shim``), both on the ninja runner, with the compilers' ``diagnostics`` mapped back to
the CUDA sources."""
