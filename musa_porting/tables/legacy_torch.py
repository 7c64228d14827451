"""The ``legacy_torch`` family: the PyTorch C++ API of extensions written before 1.11.

Extensions written for older PyTorch use THC (``THCudaCheck``, ``THCCeilDiv``,
``<THC/THC.h>``, ``THCAtomics.cuh``) and the deprecated ATen spellings
(``AT_ASSERTM``, ``Tensor::data<T>()``, ``x.type().is_cuda()``). PyTorch 1.11 removed
THC (its C++ API moved to ``c10/cuda`` and ``ATen/cuda``: ``C10_CUDA_CHECK``,
``at::ceil_div`` in ``ATen/ceil_div.h``, ``ATen/cuda/Atomic.cuh``), and torch_musa,
built on current PyTorch, has no THC at all: porters modernise these names while
porting. Each entry says where its modern form is documented: PyTorch's own headers
(``c10/util/Exception.h`` on ``AT_ASSERTM``: "Use TORCH_INTERNAL_ASSERT or TORCH_CHECK
instead"; ``ATen/core/TensorBody.h`` on ``data<T>()``: "Please use
Tensor.data_ptr<T>() instead") and torch_musa's sources for the MUSA name
(``C10_MUSA_CHECK``, ``MUSAAtomic.muh``). THC calls that take the removed ``THCState``
are not 1:1 renames: they are entries without a MUSA name, with what to write instead.
"""

from __future__ import annotations

from .irregular import Name
from .model import Item, Table

FAMILY = "legacy_torch"
THC_GONE = ("PyTorch 1.11 removed THC (pytorch/pytorch, the THC folder's removal); its "
            "checks and helpers live in c10/cuda and ATen/cuda")
EXCEPTION_H = "torch header c10/util/Exception.h (deprecated alias: use TORCH_CHECK)"
TENSOR_BODY = ('torch header ATen/core/TensorBody.h: "Tensor.data<T>() is deprecated. Please '
               'use Tensor.data_ptr<T>() instead."')
TORCH_MUSA = "torch_musa's sources (attested_names.tsv, headers.txt of its repository)"
# The element types data<T>() is called with in extensions (each a literal key: data<
# alone would also match a comparison such as x.data<n).
DATA_TYPES = ("scalar_t", "float", "double", "int", "int8_t", "int16_t", "int32_t", "int64_t",
              "uint8_t", "uint16_t", "uint32_t", "uint64_t", "long", "bool", "char", "short",
              "unsigned char", "at::Half", "c10::Half", "at::BFloat16", "c10::BFloat16", "half",
              "__half", "index_t", "accscalar_t", "T", "DType", "scalar_t_")

NAMES = (
    Name("THCudaCheck", "C10_MUSA_CHECK", f"{THC_GONE} (C10_CUDA_CHECK); {TORCH_MUSA}",
         kind="macro"),
    Name("THCudaCheckWarn", "C10_MUSA_CHECK_WARN", f"{THC_GONE} (C10_CUDA_CHECK_WARN); {TORCH_MUSA}",
         kind="macro"),
    Name("THCCeilDiv", "at::ceil_div", f"{THC_GONE}; torch header ATen/ceil_div.h",
         note="include <ATen/ceil_div.h> where the file does not have it", kind="function"),
    Name("AT_ASSERTM", "TORCH_CHECK", EXCEPTION_H, kind="macro"),
    Name("AT_CHECK", "TORCH_CHECK", "torch header c10/util/Exception.h (AT_CHECK was removed "
         "in PyTorch 1.5: TORCH_CHECK)", kind="macro"),
    Name("THAssertMsg", "TORCH_CHECK", f"{THC_GONE} (TH's asserts: TORCH_CHECK)", kind="macro"),
    Name(".type().is_cuda()", ".is_musa()", "torch header ATen/core/TensorBody.h "
         "(Tensor::type() is deprecated; Tensor::is_cuda()); torch_musa's Tensor::is_musa()",
         kind="name"),
    *(Name(f"{arrow}data<{t}>()", f"{arrow}data_ptr<{t}>()", TENSOR_BODY, kind="name")
      for t in DATA_TYPES for arrow in (".", "->")),
    *(Name(f"{o}THC/THC.h{c}", f"{o}torch_musa/csrc/aten/musa/MUSAContext.h{c}",
           f"{THC_GONE} (ATen/cuda/CUDAContext.h); {TORCH_MUSA}", kind="header")
      for o, c in ("<>", '""')),
    *(Name(f"{o}THC/THCGeneral.h{c}", f"{o}torch_musa/csrc/aten/musa/MUSAContext.h{c}",
           f"{THC_GONE} (ATen/cuda/CUDAContext.h); {TORCH_MUSA}", kind="header")
      for o, c in ("<>", '""')),
    *(Name(f"{o}THC/THCAtomics.cuh{c}", f"{o}torch_musa/csrc/aten/musa/MUSAAtomic.muh{c}",
           f"{THC_GONE} (ATen/cuda/Atomic.cuh); {TORCH_MUSA}", kind="header")
      for o, c in ("<>", '""')),
    *(Name(f"{o}THC/THCDeviceUtils.cuh{c}", f"{o}torch_musa/csrc/aten/musa/MUSADeviceUtils.muh{c}",
           f"{THC_GONE} (ATen/cuda/DeviceUtils.cuh); {TORCH_MUSA}", kind="header")
      for o, c in ("<>", '""')),
    # THCState-taking calls: no 1:1 name (the state argument is gone).
    Name("THCState", None, THC_GONE, "unsupported",
         "the THC state is gone: drop the variable and the argument it is passed as", kind="type"),
    Name("THCudaMalloc", None, THC_GONE, "unsupported",
         "c10::musa::MUSACachingAllocator::raw_alloc(size), without the state argument",
         kind="function"),
    Name("THCudaFree", None, THC_GONE, "unsupported",
         "c10::musa::MUSACachingAllocator::raw_delete(ptr), without the state argument",
         kind="function"),
    Name("THCState_getCurrentStream", None, THC_GONE, "unsupported",
         "at::musa::getCurrentMUSAStream()", kind="function"),
    Name("THCNumerics", None, THC_GONE, "unsupported",
         "the std:: functions or at::_isnan; THCNumerics<T>::min() is "
         "std::numeric_limits<T>::lowest()", kind="type"),
    Name("THArgCheck", None, THC_GONE, "unsupported",
         "TORCH_CHECK(cond, message): the argument number is gone", kind="macro"),
    Name("THCAssertSameGPU", None, THC_GONE, "unsupported",
         "TORCH_CHECK that the tensors share a device (at::check_same_device)", kind="macro"),
    *(Name(f"{o}THC/THCNumerics.cuh{c}", None, THC_GONE, "unsupported",
           "no such header: use <cmath> or ATen/NumericUtils.h", kind="header")
      for o, c in ("<>", '""')),
)


def build_legacy_torch() -> Table:
    """``mapping/legacy_torch.json``: the curated names above (no headers are read)."""
    entries = {n.cuda: Item(n.musa, n.status, f"curated: {n.source}", None, n.note, n.primary,
                            n.kind) for n in NAMES}
    return Table(FAMILY, "Legacy PyTorch C++ API (THC, deprecated ATen spellings)", "supported",
                 "PyTorch's headers and the THC removal (PyTorch 1.11); torch_musa's sources",
                 dict(sorted(entries.items())))
