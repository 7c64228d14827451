"""MP21xx: CUDA features MUSA lacks or treats differently.

Found from the tables (``analyze/features.py``): a renamed API of one of these families
whose MUSA name the vendor's tables do not give, plus a few names no table holds
(``ptxVersion``, ``this_grid()``, texture references). Some families are reported
wherever they are used, named by the vendor or not (managed memory, the virtual-memory
and context APIs, CUPTI's activity attributes and callbacks), and the families no table
and no torch_musa name has a counterpart for are errors (MP2109). An API the tables
mark unsupported stays unported and is MP1001, whose message names its family.
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
          "Managed (unified) memory, wherever it is used (`cudaMallocManaged`, "
          "`cuMemAllocManaged`, `__managed__`, `cudaMemAttach*`), and its hints "
          "(`cudaMemAdvise*`, `cudaMemPrefetchAsync`, `cudaMemRangeGetAttribute*`, memory "
          "locations).",
          "cudaMallocManaged(&p, bytes);", family="missing-features",
          why="MUSA names managed memory (torch_musa allocates with `musaMallocManaged`), but "
              "whether pages migrate on demand, and the hints, depend on the device and the "
              "driver: code that lets host and device touch one allocation at once may fault "
              "or crawl. Human porters replace it or guard it. A hint the vendor does not "
              "name: " + _MAY,
          instead="Allocate device memory (`musaMalloc`) and copy explicitly where host and "
                  "device share data; keep managed memory only where "
                  "`musaDevAttrConcurrentManagedAccess` says it works; drop hints the SDK "
                  "lacks (they change speed, not results)."),
    Check("MP2109", "no-musa-counterpart", "error", True,
          "An API of a family MUSA has no counterpart for, where it is called or included: "
          "NVSHMEM (`nvshmem_*`, `nvshmemx_*`, `NVSHMEM_*`, `<nvshmem.h>`) and its IBGDA "
          "transport (`*ibgda*`), GPUDirect Storage (`cuFile*`, `<cufile.h>`), GPUDirect "
          "RDMA's kernel interface (`nvidia_p2p_*`).",
          "nvshmemx_float_put_nbi_warp(dst, src, n, peer);", family="missing-features",
          why="No table of the vendor's and no name of torch_musa's names any of them: the "
              "header is not in the MUSA SDK and the call does not compile.",
          instead="Take the feature out of the MUSA build (`#ifndef __MUSACC__`), or replace it: "
                  "MCCL collectives or point-to-point calls (`mcclSend`, `mcclRecv`, "
                  "`mcclAllGather`) for NVSHMEM's puts and gets, plain file reads and "
                  "`musaMemcpy` for cuFile."),
    Check("MP2110", "virtual-memory", "warning", False,
          "The driver's virtual-memory API (`cuMemCreate`, `cuMemMap`, `cuMemAddressReserve`, "
          "`cuMemSetAccess`, `CUmemAllocationProp`, allocation handles, multicast objects).",
          "cuMemCreate(&handle, size, &prop, 0);", family="missing-features",
          why="MUSA has the basic calls (torch_musa's allocator uses `muMemCreate`, `muMemMap`, "
              "`muMemSetAccess`, `muMemAddressReserve`), but not every handle type, location, "
              "granularity or multicast object NVIDIA's has; human porters rewrite these "
              "allocators or guard them.",
          instead="Keep to the calls torch_musa uses and check each property of the allocation "
                  "(handle type, location, flags) against your MUSA SDK's `musa.h`; or allocate "
                  "with `musaMalloc` and give up the remapping."),
    Check("MP2111", "context-api", "warning", False,
          "The driver's context API (`cuCtxGetCurrent`, `cuCtxSetCurrent`, `cuCtxCreate`, "
          "`cuCtxPushCurrent`, `cuDevicePrimaryCtx*`, green contexts, `CUcontext`).",
          "cuCtxGetCurrent(&ctx);", family="missing-features",
          why="The vendor's tables name the `muCtx*` calls, but torch_musa's code never manages "
              "a context (it uses only `muDevicePrimaryCtxGetState`): a MUSA process works "
              "through the runtime's current device. Human porters replace context juggling "
              "by the runtime's calls.",
          instead="Use the runtime: `musaSetDevice`/`musaGetDevice` for the current device, the "
                  "primary context the runtime makes; keep a `muCtx*` call only where your "
                  "MUSA SDK documents it."),
    Check("MP2113", "cooperative-groups-partition", "warning", False,
          "Cooperative-groups partitions and collectives beyond tiles: `labeled_partition`, "
          "`binary_partition`, `coalesced_threads()`, a `tiled_partition` of a run-time size, "
          "`cg::reduce` and `cg::inclusive_scan`/`exclusive_scan`.",
          "auto same = cg::labeled_partition(warp, label);", family="missing-features",
          device=True,
          why="The vendor's tables name no cooperative-groups API; these groups are built from "
              "32-bit lane masks (sm_70), which a 128-lane warp does not fit.",
          instead="Write the grouping out with ballots kept in 64 bits or shared memory, and the "
                  "reduction as a shuffle butterfly within a tile of a fixed size."),
    Check("MP2114", "cupti-activity", "warning", False,
          "CUPTI's activity attributes and its callback API (`cuptiActivitySetAttribute`, "
          "`CUPTI_ACTIVITY_ATTR_*`, `cuptiSubscribe`, `cuptiEnableCallback`, "
          "`cuptiEnableDomain`, `CUpti_Callback*`, callback ids).",
          "cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &sz);",
          family="missing-features",
          why="The vendor's tables spell MUPTI's names, but torch_musa's own profiling does not "
              "use MUPTI, and which attributes, domains and callback ids MUPTI has is not "
              "documented: human porters drop or guard this code.",
          instead="Guard the tracing code with `#ifndef __MUSACC__` (or a build option), or "
                  "profile with torch_musa's profiler instead."),
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
