"""MP50xx: does the ported tree hang together? Names and paths one file gives another
by string, checked across the whole output after every port (musa_porting/check/,
docs/hangs-together.md)."""

from __future__ import annotations

from .model import Check

_FAMILY = "consistency"
_WHERE = ("The finding stands at the reference; its message names what the reference "
          "should match and where that is now. ")

CHECKS = (
    Check("MP5001", "build-file-missing", "error", False,
          "A file or folder the ported build names (a `setup.py` source or include folder, a "
          "glob or an existence check over sources, a CMake or Makefile source, include "
          "folder or glob) is not in the ported tree, and the same "
          "reference, read with the port's renames undone, named an input the port wrote "
          "under another name: the reference did not follow the rename.",
          "path = osp.join(extensions_dir, 'musa', f'{name}_cuda.cu')", family=_FAMILY,
          why="A missing source stops the build; behind an `os.path.exists` check or a glob "
              "it is worse: the build goes on without it, and the extension is built without "
              "its GPU code, which nothing reports until the package runs on the CPU.",
          instead=_WHERE + "Make the reference name the ported file (`.mu`, `musa/`, "
                  "`_musa`), in every piece it is computed from.",
          fixed="path = osp.join(extensions_dir, 'musa', f'{name}_musa.mu')"),
    Check("MP5002", "module-init-mismatch", "error", False,
          "A C++ file defines the init function of a Python module (`PyInit_X`, "
          "`PYBIND11_MODULE(X, m)`) under a name the build does not give any extension made "
          "of it, while the same name with the port's renames made or undone is one the build "
          "gives.", "PyMODINIT_FUNC PyInit__version_musa(void)  // setup.py builds _version_cuda",
          family=_FAMILY,
          why="Python imports an extension module by calling `PyInit_` and the module's file "
              "name: when the two disagree, `import` fails with \"dynamic module does not "
              "define module export function\".",
          instead=_WHERE + "Give the module the same name on both sides; "
                  "`PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)` follows the build's name by "
                  "itself."),
    Check("MP5003", "op-not-registered", "error", False,
          "The ported Python calls an op (`torch.ops.ns.name`) of a namespace the ported C++ "
          "registers, but the C++ registers no op of that name, while it registers the name "
          "with the port's renames made or undone (`TORCH_LIBRARY`, `m.def`, "
          "`torch::RegisterOperators().op(\"ns::name\")`).",
          "torch.ops.torch_scatter.cuda_version()  # the C++ registers musa_version",
          family=_FAMILY,
          why="An op is found by its name at run time: the call fails with \"No such "
              "operator\", often at import.",
          instead=_WHERE + "Spell the op the same on both sides: keep the schema's name "
                  "(what the Python calls), or rename both."),
    Check("MP5004", "binding-not-defined", "error", False,
          "The ported Python reads a name off an extension module (`_C.name`, a name of "
          "mmcv's `ext_loader.load_ext('_ext', [...])` list) that the ported C++ binds under "
          "another spelling only (pybind11 `m.def`, `py::class_`).",
          "ext_module = ext_loader.load_ext('_ext', ['nms_cuda'])  # C++: m.def(\"nms_musa\")",
          family=_FAMILY,
          why="The lookup raises AttributeError at run time (or at import, for `load_ext`).",
          instead=_WHERE + "Bind and read the same name: a name Python reads is kept as it "
                  "is unless both sides are renamed."),
    Check("MP5005", "module-not-found", "error", False,
          "The ported Python imports or loads a module by a name (an import, `find_spec`, "
          "`import_module`, `torch.ops.load_library`) that names neither a module of the "
          "ported tree nor an extension its build makes, while it named an input module the "
          "port renamed, or the build makes the name with the port's renames made or undone.",
          "spec = PathFinder().find_spec(f'{library}_cuda', [osp.dirname(__file__)])",
          family=_FAMILY,
          why="An import fails; a loader that tries a GPU module before a CPU one finds none "
              "and falls back to the CPU build without a word.",
          instead=_WHERE + "Name the module as the ported tree and build name it (the "
                  "build's suffix string, the renamed package folder).",
          fixed="spec = PathFinder().find_spec(f'{library}_musa', [osp.dirname(__file__)])"),
    Check("MP5006", "include-not-found", "error", False,
          "An `#include \"...\"` of a project file does not resolve in the ported tree, while "
          "it (or it with the port's renames undone) names an input header the port wrote "
          "under another name.", '#include "cuda/helpers.cuh"  // now musa/helpers.muh',
          family=_FAMILY,
          why="The compiler stops at the first header it cannot find.",
          instead=_WHERE + "Include the ported header's path."),
)
