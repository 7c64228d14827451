"""Where a name of the tree that is exactly a vendor word names the tree's definition.

A tree may define ``struct Cuda`` (a backend's singleton), ``namespace cuda`` (its own
helpers) or an enumerator ``Cuda``; porters rename those with every use. But the same
word names other code's namespaces in the same files: ``thrust::cuda::par``, libcu++'s
``cuda::std::atomic`` and ``cuda::ptx``, ``at::cuda`` (which the tables port). So such a
rename applies to a token only when it is not qualified by another library's
namespace and does not qualify one of libcu++'s members.
"""

from __future__ import annotations

from ..engine import IDENT_BYTES

# Namespaces of other code that hold a ``cuda`` of their own (the tables port at:: and
# c10::; MUSA keeps Thrust's, CUB's and libcu++'s names).
FOREIGN_QUALIFIERS = frozenset((
    b"thrust", b"cub", b"at", b"c10", b"torch", b"std", b"cutlass", b"cute", b"nvcuda",
    b"cooperative_groups", b"cg", b"caffe2", b"nvtx3", b"triton", b"jax", b"xla", b"tensorflow",
    b"tvm", b"mutlass", b"mute", b"musa", b"c10d",
))
# libcu++'s (CCCL's) members of ``namespace cuda`` (cuda::std, cuda::ptx, ...): a
# ``cuda::`` before one of them is the library's.
LIBCUDACXX_MEMBERS = frozenset((
    b"std", b"ptx", b"experimental", b"mr", b"device", b"atomic", b"atomic_ref",
    b"atomic_flag", b"barrier", b"pipeline", b"make_pipeline", b"pipeline_shared_state",
    b"memcpy_async", b"aligned_size_t", b"thread_scope", b"thread_scope_system",
    b"thread_scope_device", b"thread_scope_block", b"thread_scope_thread", b"annotated_ptr",
    b"access_property", b"apply_access_property", b"discard_memory", b"associate_access_property",
    b"proclaim_return_type", b"stream_ref", b"launch", b"get_stream", b"memory_order",
    b"memory_order_relaxed", b"memory_order_acquire", b"memory_order_release",
    b"memory_order_acq_rel", b"memory_order_seq_cst", b"ceil_div", b"round_up", b"round_down",
    b"is_aligned", b"align_up", b"align_down", b"cmath", b"minimum", b"maximum", b"std_",
    b"arch", b"latch", b"semaphore", b"counting_semaphore", b"binary_semaphore", b"fence_proxy_async",
    b"elect_one_sync", b"device_memory_resource", b"memory_resource", b"event", b"event_ref",
    b"buffer", b"uninitialized_buffer", b"span", b"mdspan", b"zip_iterator", b"counting_iterator",
    b"transform_iterator", b"tabulate_output_iterator", b"constant_iterator", b"discard_iterator",
))
_SPACE = b" \t\r\n\f\v"
_PATH_EDGES = (b"/", b"\\")


def token_before(data: bytes, pos: int) -> tuple[bytes, int]:
    i = pos - 1
    while i >= 0 and data[i] in _SPACE:
        i -= 1
    if i < 0:
        return b"", 0
    if data[i] in IDENT_BYTES:
        j = i
        while j > 0 and data[j - 1] in IDENT_BYTES:
            j -= 1
        return data[j:i + 1], j
    if i > 0 and data[i - 1:i + 1] == b"::":
        return b"::", i - 1
    return data[i:i + 1], i


def token_after(data: bytes, pos: int) -> tuple[bytes, int]:
    n = len(data)
    i = pos
    while i < n and data[i] in _SPACE:
        i += 1
    if i >= n:
        return b"", n
    if data[i] in IDENT_BYTES:
        j = i
        while j < n and data[j] in IDENT_BYTES:
            j += 1
        return data[i:j], j
    if data[i:i + 2] == b"::":
        return b"::", i + 2
    return data[i:i + 1], i + 1


def names_the_tree(data: bytes, start: int, end: int) -> bool:
    """The word at ``data[start:end]`` (in code) is the tree's: not ``X::cuda`` for a
    library namespace X, nor ``cuda::M`` for a libcu++ member M."""
    prev, at = token_before(data, start)
    if prev in _PATH_EDGES:
        return False  # a part of an include target or a path: <cuda/std/atomic>
    if prev == b"::":
        qualifier, _ = token_before(data, at)
        if qualifier in FOREIGN_QUALIFIERS:
            return False
    nxt, after = token_after(data, end)
    if nxt in _PATH_EDGES or nxt == b".":
        return False  # a type or namespace is never followed by "." or "/"
    if nxt == b"::":
        member, _ = token_after(data, after)
        if member in LIBCUDACXX_MEMBERS or member.startswith(b"__"):
            return False
    return True
