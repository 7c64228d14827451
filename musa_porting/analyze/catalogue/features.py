"""MP21xx: CUDA features MUSA lacks or treats differently.

Found from the tables (``analyze/features.py``): a renamed API of one of these families
whose MUSA name the vendor's tables do not give, plus a few names no table holds
(``ptxVersion``, ``this_grid()``, texture references). An API the tables mark
unsupported stays unported and is MP1001, whose message names its family.
"""

from __future__ import annotations

from .model import Check

_MAY = ("The name was made by the naming rules, not taken from the vendor's tables: MUSA "
        "may not have it, or it may behave differently.")

CHECKS = (
    Check("MP2101", "cuda-graph", "warning", False,
          "A CUDA graph or stream-capture API whose MUSA name the vendor does not give.",
          "cudaGraphInstantiateWithParams(&exec, graph, &params);", family="missing-features",
          why=_MAY + " torch_musa itself uses only the basic graph calls (capture, instantiate, "
                     "launch, destroy).",
          instead="Check that your MUSA SDK declares it; else build the graph by stream capture "
                  "and `musaGraphInstantiate`, or run the work on a stream without a graph.",
          fixed="musaGraphInstantiate(&exec, graph, 0);"),
    Check("MP2102", "texture-surface", "warning", False,
          "Texture and surface APIs whose MUSA name the vendor does not give, and texture "
          "references (`texture<T, dim, mode>`, `cudaBindTexture*`), which CUDA 12 removed.",
          "texture<float, 1, cudaReadModeElementType> tex;", family="missing-features",
          why=_MAY + " Texture references are gone from CUDA itself.",
          instead="Use texture objects where the vendor names them (`musaCreateTextureObject`, "
                  "`musaTextureObject_t`), or plain global-memory loads with the interpolation "
                  "written out."),
    Check("MP2103", "cooperative-launch", "warning", False,
          "Cooperative launch and grid-wide synchronization: `cooperative_groups::this_grid()`, "
          "`grid_group`, and cooperative launch APIs the vendor does not name.",
          "cg::this_grid().sync();", family="missing-features",
          why="A grid-wide barrier needs every block of the grid resident at once; the vendor's "
              "tables do not document it for MUSA, and on 128-lane warps fewer blocks fit.",
          instead="Split the kernel at the grid barrier into two launches on the same stream.",
          fixed="phase1<<<g, b, 0, s>>>(x); phase2<<<g, b, 0, s>>>(x);"),
    Check("MP2104", "ipc", "warning", False,
          "CUDA IPC (`cudaIpc*`, `cuIpc*`) that the vendor does not name.",
          "cudaDeviceGetAttribute(&v, cudaDevAttrIpcEventSupport, dev);",
          family="missing-features",
          why=_MAY,
          instead="Share memory with the calls torch_musa uses (`musaIpcGetMemHandle`, "
                  "`musaIpcOpenMemHandle`, `musaIpcGetEventHandle`), or through "
                  "torch.multiprocessing."),
    Check("MP2105", "peer-access", "warning", False,
          "Peer-to-peer access (`*PeerAccess`, `cudaMemcpyPeer*`, P2P attributes) that the "
          "vendor does not name.",
          "cuDeviceGetP2PAtomicCapabilities(caps, ops, n, src, dst);",
          family="missing-features",
          why=_MAY,
          instead="Use the calls torch_musa uses (`musaDeviceCanAccessPeer`, "
                  "`musaDeviceEnablePeerAccess`, `musaMemcpyPeerAsync`), or copy through the "
                  "host."),
    Check("MP2106", "unified-memory-hint", "warning", False,
          "Unified memory hints and managed memory (`cudaMemAdvise*`, `cudaMemPrefetchAsync`, "
          "`cudaMemRangeGetAttribute*`, memory locations) that the vendor does not name.",
          "cudaMemPrefetchAsync_v2(p, n, loc, 0, s);", family="missing-features",
          why=_MAY + " Hints change speed, not results.",
          instead="Drop the hint, or use the calls the vendor names (`musaMallocManaged`, "
                  "`musaMemAdvise`, `musaMemPrefetchAsync`)."),
    Check("MP2107", "ptx-version-query", "warning", False,
          "A query of a kernel's PTX version (`cudaFuncAttributes::ptxVersion`, "
          "`CU_FUNC_ATTRIBUTE_PTX_VERSION`).",
          "cudaFuncGetAttributes(&a, k); int ptx = a.ptxVersion * 10;",
          family="missing-features",
          why="MUSA kernels are not PTX: the field is missing or means something else, and code "
              "that picks a path by it (an sm number made from `ptxVersion`) picks wrong.",
          instead="Decide by `__MUSA_ARCH__` at compile time, or by the device's properties "
                  "(`musaGetDeviceProperties`) at run time."),
    Check("MP2108", "runtime-compilation", "warning", False,
          "Run-time compilation and loading of NVIDIA code: the JIT linker (`cuLink*`, "
          "`CU_JIT_*`) and modules loaded from memory images (`cuModuleLoadData*`). NVRTC's "
          "own names have no MUSA form and are MP1001.",
          "cuModuleLoadDataEx(&mod, ptx, n, opts, vals);", family="missing-features",
          why="A PTX or cubin image, or source compiled by NVRTC, targets NVIDIA GPUs; MUSA has "
              "no documented run-time compiler.",
          instead="Compile the kernels ahead of time with mcc and load the MUSA binary, or move "
                  "them into the extension's sources."),
)
