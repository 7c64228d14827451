"""nvcc's options and what each becomes for mcc.

The list is every option of ``nvcc --help`` for CUDA 13.0 (V13.0.88), the CUDA Compiler
Driver documentation; ``tests/port/build/test_nvcc_flags.py`` checks it against the nvcc on the
machine, and ``docs/build-files.md`` prints it (``flag_table_markdown``). mcc is a clang
driver, so an option maps to clang's spelling of the same thing where clang has one
(``--use_fast_math`` -> ``-ffast-math``, ``-rdc=true`` -> ``-fgpu-rdc``); options that only
steer nvcc's own pipeline (PTX assembly, ``-Xptxas``, the EDG front end) are dropped, and
options that ask for an output MUSA does not have (``-ptx``, ``-cubin``) are left in
place, so that the build fails where a human must decide.

What each action does to the flag:

- ``same``: mcc takes it as it is (clang has the same option).
- ``map``: rewritten to ``mcc`` (``{}`` stands for the value; a dict maps each value).
- ``host``: ``-Xcompiler``: its comma-separated value is passed to mcc directly.
- ``lang``: ``-x cu`` becomes ``-x musa``.
- ``arch``: replaced by one ``--offload-arch=mp_XX`` per ``--arch``.
- ``drop``: removed, with a finding that says why.
- ``left``: kept, with a finding: there is no MUSA equivalent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

NVCC_VERSION = "CUDA 13.0 (nvcc V13.0.88), `nvcc --help`"

SAME, MAP, HOST, LANG, ARCH, DROP, LEFT = "same", "map", "host", "lang", "arch", "drop", "left"


@dataclass(frozen=True)
class NvccOption:
    """One nvcc option, its short form, whether it takes a value, and its mcc form."""

    long: str
    short: str
    value: bool
    action: str
    mcc: str | Mapping[str, str] = ""
    note: str = ""  # why (drop, left) or what to check (an approximate map)


def _o(long: str, short: str, value: bool, action: str, mcc: str | Mapping[str, str] = "",
       note: str = "") -> NvccOption:
    return NvccOption(long, short, value, action, mcc, note)


_CLANG = "clang's option; check that your mcc accepts it"

OPTIONS: tuple[NvccOption, ...] = (
    # Compilation phase
    _o("--cuda", "-cuda", False, LEFT, note="nvcc's .cu.cpp.ii output has no MUSA equivalent; "
       "use -E for preprocessed source"),
    _o("--cubin", "-cubin", False, LEFT, note="MUSA has no cubin output; build objects (-c)"),
    _o("--fatbin", "-fatbin", False, LEFT, note="MUSA has no fatbin output; build objects (-c)"),
    _o("--ptx", "-ptx", False, LEFT, note="MUSA does not use PTX; build objects (-c)"),
    _o("--optix-ir", "-optix-ir", False, LEFT, note="OptiX IR is NVIDIA's; no MUSA equivalent"),
    _o("--ltoir", "-ltoir", False, LEFT, note="NVIDIA's LTO IR; no MUSA equivalent"),
    _o("--preprocess", "-E", False, MAP, "-E"),
    _o("--generate-dependencies", "-M", False, MAP, "-M"),
    _o("--generate-nonsystem-dependencies", "-MM", False, MAP, "-MM"),
    _o("--generate-dependencies-with-compile", "-MD", False, MAP, "-MD"),
    _o("--generate-nonsystem-dependencies-with-compile", "-MMD", False, MAP, "-MMD"),
    _o("--dependency-output", "-MF", True, MAP, "-MF {}"),
    _o("--generate-dependency-targets", "-MP", False, MAP, "-MP"),
    _o("--compile", "-c", False, MAP, "-c"),
    _o("--device-c", "-dc", False, MAP, "-c -fgpu-rdc",
       note="relocatable device code: " + _CLANG),
    _o("--device-w", "-dw", False, MAP, "-c", note="-dw compiles non-relocatable device code, "
       "which is what -c does"),
    _o("--device-link", "-dlink", False, LEFT, note="mcc links device code when it links "
       "(-fgpu-rdc objects need no separate device-link step): remove this step"),
    _o("--link", "-link", False, DROP, note="linking is mcc's default"),
    _o("--lib", "-lib", False, LEFT, note="make the static library with ar (or "
       "musa_add_library(name STATIC ...))"),
    _o("--run", "-run", False, LEFT, note="run the program yourself after building it"),
    # File and path specifications
    _o("--output-file", "-o", True, MAP, "-o {}"),
    _o("--pre-include", "-include", True, MAP, "-include {}"),
    _o("--objdir-as-tempdir", "-objtemp", False, DROP, note="nvcc's temporary files only"),
    _o("--library", "-l", True, MAP, "-l{}"),
    _o("--define-macro", "-D", True, MAP, "-D{}"),
    _o("--undefine-macro", "-U", True, MAP, "-U{}"),
    _o("--include-path", "-I", True, MAP, "-I{}"),
    _o("--system-include", "-isystem", True, MAP, "-isystem {}"),
    _o("--library-path", "-L", True, MAP, "-L{}"),
    _o("--output-directory", "-odir", True, LEFT, note="name each output with -o"),
    _o("--compiler-bindir", "-ccbin", True, DROP, note="mcc is its own host compiler"),
    _o("--allow-unsupported-compiler", "-allow-unsupported-compiler", False, DROP,
       note="mcc is its own host compiler"),
    _o("--archiver-binary", "-arbin", True, DROP, note="used only by nvcc -lib"),
    _o("--cudart", "-cudart", True, DROP, note="link the MUSA runtime with -lmusart "
       "(or ${MUSA_LIBRARIES} in CMake)"),
    _o("--cudadevrt", "-cudadevrt", True, DROP, note="NVIDIA's device runtime library; "
       "MUSA has no separate one"),
    _o("--libdevice-directory", "-ldir", True, DROP, note="NVIDIA's libdevice"),
    _o("--target-directory", "-target-dir", True, DROP, note="NVIDIA's cross-compilation "
       "layout"),
    _o("--use-local-env", "-use-local-env", False, DROP, note="Windows MSVC set-up only"),
    _o("--force-cl-env-setup", "-force-cl-env-setup", False, DROP,
       note="Windows MSVC set-up only"),
    # Options for specifying behavior of compiler/linker
    _o("--profile", "-pg", False, SAME, "-pg"),
    _o("--debug", "-g", False, MAP, "-g"),
    _o("--device-debug", "-G", False, MAP, "-g",
       note="device debug information: -g (clang emits it for device code too); check mcc"),
    _o("--generate-line-info", "-lineinfo", False, MAP, "-gline-tables-only",
       note="line tables for the profiler: " + _CLANG),
    _o("--optimization-info", "-opt-info", True, DROP, note="nvcc's inlining report"),
    _o("--optimize", "-O", True, MAP, "-O{}"),
    _o("--Ofast-compile", "-Ofc", True, DROP, note="nvcc's fast-compile levels"),
    _o("--dopt", "-dopt", True, DROP, note="nvcc's device optimisation switch; -O covers it"),
    _o("--dlink-time-opt", "-dlto", False, LEFT, note="NVIDIA's device LTO; MUSA has no "
       "equivalent: remove it"),
    _o("--lto", "-lto", False, LEFT, note="NVIDIA's device LTO; MUSA has no equivalent: "
       "remove it"),
    _o("--gen-opt-lto", "-gen-opt-lto", False, DROP, note="NVIDIA's device LTO"),
    _o("--ftemplate-backtrace-limit", "-ftemplate-backtrace-limit", True, MAP,
       "-ftemplate-backtrace-limit={}"),
    _o("--ftemplate-depth", "-ftemplate-depth", True, MAP, "-ftemplate-depth={}"),
    _o("--no-exceptions", "-noeh", False, MAP, "-fno-exceptions"),
    _o("--shared", "-shared", False, MAP, "-shared"),
    _o("--x", "-x", True, LANG, "-x {}"),
    _o("--std", "-std", True, MAP, "-std={}"),
    _o("--no-host-device-initializer-list", "-nohdinitlist", False, DROP,
       note="an nvcc front-end switch"),
    _o("--no-host-device-move-forward", "-nohdmoveforward", False, DROP,
       note="an nvcc front-end switch"),
    _o("--expt-relaxed-constexpr", "-expt-relaxed-constexpr", False, DROP,
       note="clang-based mcc lets device code call constexpr functions without it"),
    _o("--extended-lambda", "-extended-lambda", False, DROP,
       note="clang-based mcc accepts __device__ lambdas without it"),
    _o("--expt-extended-lambda", "-expt-extended-lambda", False, DROP,
       note="clang-based mcc accepts __device__ lambdas without it"),
    _o("--machine", "-m", True, MAP, "-m{}"),
    _o("--m64", "-m64", False, SAME, "-m64"),
    # Options for passing specific phase options
    _o("--compiler-options", "-Xcompiler", True, HOST, "{}"),
    _o("--linker-options", "-Xlinker", True, MAP, "-Xlinker {}"),
    _o("--archive-options", "-Xarchive", True, DROP, note="used only by nvcc -lib"),
    _o("--ptxas-options", "-Xptxas", True, DROP, note="MUSA has no PTX assembler"),
    _o("--nvlink-options", "-Xnvlink", True, DROP, note="MUSA has no nvlink"),
    _o("--static-global-template-stub", "-static-global-template-stub", True, DROP,
       note="an nvcc host-stub switch"),
    _o("--device-entity-has-hidden-visibility", "-device-entity-has-hidden-visibility", True,
       DROP, note="an nvcc host-stub switch"),
    # Miscellaneous options for guiding the compiler driver
    _o("--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler", False, DROP,
       note="mcc takes host options itself"),
    _o("--forward-unknown-to-host-linker", "-forward-unknown-to-host-linker", False, DROP,
       note="mcc takes linker options itself"),
    _o("--forward-unknown-opts", "-forward-unknown-opts", False, DROP,
       note="mcc takes host options itself"),
    _o("--dont-use-profile", "-noprof", False, DROP, note="nvcc's nvcc.profile"),
    _o("--dryrun", "-dryrun", False, MAP, "-###"),
    _o("--verbose", "-v", False, SAME, "-v"),
    _o("--threads", "-t", True, DROP, note="nvcc's parallel compilation of several arches"),
    _o("--split-compile", "-split-compile", True, DROP, note="nvcc's parallel optimisation"),
    _o("--split-compile-extended", "-split-compile-extended", True, DROP,
       note="nvcc's parallel optimisation"),
    _o("--fdevice-syntax-only", "-fdevice-syntax-only", False, MAP, "-fsyntax-only",
       note=_CLANG),
    _o("--fdevice-time-trace", "-fdevice-time-trace", True, MAP, "-ftime-trace",
       note=_CLANG + " (it writes the trace next to the object)"),
    _o("--keep", "-keep", False, MAP, "-save-temps"),
    _o("--keep-dir", "-keep-dir", True, DROP, note="-save-temps writes next to the output"),
    _o("--save-temps", "-save-temps", False, SAME, "-save-temps"),
    _o("--clean-targets", "-clean", False, LEFT, note="remove the outputs yourself"),
    _o("--time", "-time", True, LEFT, note="nvcc's timing CSV; clang's -ftime-report is "
       "closest"),
    _o("--run-args", "-run-args", True, LEFT, note="run the program yourself"),
    _o("--input-drive-prefix", "-idp", True, DROP, note="Windows paths only"),
    _o("--dependency-drive-prefix", "-ddp", True, DROP, note="Windows paths only"),
    _o("--drive-prefix", "-dp", True, DROP, note="Windows paths only"),
    _o("--dependency-target-name", "-MT", True, MAP, "-MT {}"),
    _o("--no-align-double", "--no-align-double", False, DROP, note="32-bit hosts only"),
    _o("--no-device-link", "-nodlink", False, DROP, note="mcc has no separate device link"),
    # Options for steering GPU code generation
    _o("--gpu-architecture", "-arch", True, ARCH),
    _o("--gpu-code", "-code", True, ARCH),
    _o("--generate-code", "-gencode", True, ARCH),
    _o("--relocatable-device-code", "-rdc", True, MAP,
       {"true": "-fgpu-rdc", "false": "-fno-gpu-rdc"}, note="relocatable device code: "
       + _CLANG),
    _o("--entries", "-e", True, LEFT, note="NVIDIA's kernel entry list; no MUSA equivalent"),
    _o("--maxrregcount", "-maxrregcount", True, DROP,
       note="a register cap for NVIDIA's allocator; use __launch_bounds__ in the kernel"),
    _o("--use_fast_math", "-use_fast_math", False, MAP, "-ffast-math",
       note="fast math: " + _CLANG + " (nvcc's also implies -ftz=true, -prec-div=false, "
       "-prec-sqrt=false, -fmad=true)"),
    _o("--ftz", "-ftz", True, MAP, {"true": "-fgpu-flush-denormals-to-zero",
                                    "false": "-fno-gpu-flush-denormals-to-zero"},
       note="denormals: " + _CLANG),
    _o("--prec-div", "-prec-div", True, DROP, note="NVIDIA's division precision switch; "
       "-ffast-math relaxes precision on mcc"),
    _o("--prec-sqrt", "-prec-sqrt", True, DROP, note="NVIDIA's square-root precision switch; "
       "-ffast-math relaxes precision on mcc"),
    _o("--fmad", "-fmad", True, MAP, {"true": "-ffp-contract=fast", "false": "-ffp-contract=off"},
       note="fused multiply-add: " + _CLANG),
    _o("--extra-device-vectorization", "-extra-device-vectorization", False, DROP,
       note="an NVIDIA optimiser switch"),
    _o("--default-stream", "-default-stream", True, MAP, "-fgpu-default-stream={}",
       note="the default stream: " + _CLANG),
    _o("--disable-warnings", "-w", False, SAME, "-w"),
    _o("--keep-device-functions", "-keep-device-functions", False, DROP,
       note="an NVIDIA code-generation switch"),
    _o("--source-in-ptx", "-src-in-ptx", False, DROP, note="MUSA does not use PTX"),
    _o("--restrict", "-restrict", False, DROP, note="an nvcc assumption about kernel pointers; "
       "write __restrict__ where it holds"),
    _o("--Wreorder", "-Wreorder", False, SAME, "-Wreorder"),
    _o("--Wdefault-stream-launch", "-Wdefault-stream-launch", False, DROP,
       note="an nvcc warning"),
    _o("--Wmissing-launch-bounds", "-Wmissing-launch-bounds", False, DROP,
       note="an nvcc warning"),
    _o("--Wext-lambda-captures-this", "-Wext-lambda-captures-this", False, DROP,
       note="an nvcc warning"),
    _o("--Wno-deprecated-declarations", "-Wno-deprecated-declarations", False, SAME,
       "-Wno-deprecated-declarations"),
    _o("--Wno-deprecated-gpu-targets", "-Wno-deprecated-gpu-targets", False, DROP,
       note="NVIDIA's arch deprecation warning"),
    _o("--Werror", "-Werror", True, MAP,
       {"all-warnings": "-Werror", "reorder": "-Werror=reorder",
        "deprecated-declarations": "-Werror=deprecated-declarations",
        "cross-execution-space-call": "", "default-stream-launch": "",
        "missing-launch-bounds": "", "ext-lambda-captures-this": ""},
       note="nvcc's warning kinds: clang's -Werror for all, -Werror=<warning> for the ones "
       "clang has, dropped for nvcc's own"),
    _o("--resource-usage", "-res-usage", False, DROP, note="ptxas's register report"),
    _o("--extensible-whole-program", "-ewp", False, DROP, note="an NVIDIA linking mode"),
    _o("--no-compress", "-no-compress", False, DROP, note="NVIDIA's fatbin compression"),
    _o("--qpp-config", "-qpp-config", True, DROP, note="QNX only"),
    _o("--compile-as-tools-patch", "-astoolspatch", False, LEFT,
       note="NVIDIA's tools patches; no MUSA equivalent"),
    _o("--list-gpu-code", "-code-ls", False, LEFT, note="the MUSA arches are mp_21, mp_22, "
       "mp_31 (see --offload-arch)"),
    _o("--list-gpu-arch", "-arch-ls", False, LEFT, note="the MUSA arches are mp_21, mp_22, "
       "mp_31 (see --offload-arch)"),
    _o("--display-error-number", "-err-no", False, DROP, note="EDG error numbers"),
    _o("--no-display-error-number", "-no-err-no", False, DROP, note="EDG error numbers"),
    _o("--diag-error", "-diag-error", True, DROP, note="EDG error numbers; use clang's "
       "-Werror=<warning>"),
    _o("--diag-suppress", "-diag-suppress", True, DROP, note="EDG error numbers; use clang's "
       "-Wno-<warning>"),
    _o("--diag-warn", "-diag-warn", True, DROP, note="EDG error numbers"),
    _o("--host-linker-script", "-hls", True, DROP, note="nvcc's host linker script"),
    _o("--augment-host-linker-script", "-aug-hls", False, DROP,
       note="nvcc's host linker script"),
    _o("--relocatable-link", "-r", False, SAME, "-r"),
    _o("--brief-diagnostics", "-brief-diag", True, DROP, note="an nvcc output switch"),
    _o("--jump-table-density", "-jtd", True, DROP, note="an NVIDIA code-generation switch"),
    _o("--relocatable-ptx", "-reloc-ptx", False, LEFT, note="MUSA does not use PTX"),
    _o("--device-stack-protector", "-device-stack-protector", True, DROP,
       note="an NVIDIA code-generation switch"),
    _o("--compress-mode", "-compress-mode", True, DROP, note="NVIDIA's fatbin compression"),
    _o("--frandom-seed", "-frandom-seed", True, MAP, "-frandom-seed={}"),
    _o("--sanitize", "-sanitize", True, LEFT, note="NVIDIA's compute-sanitizer modes; "
       "no MUSA equivalent"),
    _o("--jobserver", "-jobserver", False, DROP, note="nvcc's parallel jobs"),
    _o("--help", "-h", False, MAP, "--help"),
    _o("--version", "-V", False, MAP, "--version"),
    _o("--options-file", "-optf", True, LEFT, note="port the options file's flags and pass "
       "them to mcc (clang reads @file)"),
)

BY_NAME: dict[str, NvccOption] = {}
for _opt in OPTIONS:
    BY_NAME[_opt.long] = _opt
    BY_NAME[_opt.short] = _opt
    if not _opt.long.startswith("--"):
        continue
    BY_NAME.setdefault("-" + _opt.long[2:], _opt)  # nvcc takes -long-name too

# Short options whose value may be joined without '=' (-I/x, -DNAME, -lfoo, -O3).
JOINED = ("-I", "-D", "-U", "-L", "-l", "-O")


@dataclass(frozen=True)
class FlagMatch:
    """A word that is an nvcc option: which, its value (or None), and whether the value
    was joined to the word (``-arch=sm_80``, ``-O3``) or is the next word."""

    option: NvccOption
    value: str | None
    joined: bool


def match_flag(word: str) -> FlagMatch | None:
    """The nvcc option ``word`` spells, or None. The value, if any, is in the word or
    (``joined=False``) the next word's."""
    if not word.startswith("-") or word in ("-", "--"):
        return None
    name, eq, val = word.partition("=")
    opt = BY_NAME.get(name)
    if opt is not None:
        if not opt.value:
            return None if eq else FlagMatch(opt, None, True)
        return FlagMatch(opt, val, True) if eq else FlagMatch(opt, None, False)
    for prefix in JOINED:
        if word.startswith(prefix) and len(word) > len(prefix):
            return FlagMatch(BY_NAME[prefix], word[len(prefix):], True)
    return None


def mcc_spelling(opt: NvccOption, value: str | None) -> str | None:
    """What a ``same``/``map``/``lang`` option becomes: None when the value is not one
    the map knows (``-rdc=maybe``, gcc's ``-Werror=unused``: left alone), "" to drop it."""
    if opt.action == SAME:
        return opt.mcc if value is None else f"{opt.mcc}={value}"
    if opt.action == LANG:
        return f"-x {'musa' if value == 'cu' else value}"
    if isinstance(opt.mcc, Mapping):
        return opt.mcc.get((value or "").strip().lower())
    if "{}" in opt.mcc:
        return opt.mcc.replace("{}", value or "")
    return opt.mcc


def host_flags(value: str) -> str:
    """``-Xcompiler -fPIC,-Wall`` -> ``-fPIC -Wall``: nvcc splits the list at commas."""
    return " ".join(part for part in value.split(",") if part)


def describe(opt: NvccOption) -> str:
    """The mcc side of one option, for the docs table."""
    if opt.action == ARCH:
        return "`--offload-arch=mp_XX`, one per `--arch` (finding MP3104)"
    if opt.action == HOST:
        return "its value, passed to mcc directly (`-Xcompiler -fPIC,-Wall` -> `-fPIC -Wall`)"
    if opt.action == LANG:
        return "`-x musa` for `cu`; other languages as they are"
    if opt.action == DROP:
        return f"dropped (MP3105): {opt.note}"
    if opt.action == LEFT:
        return f"left, with finding MP3102: {opt.note}"
    if isinstance(opt.mcc, Mapping):
        spelled = ", ".join(f"`{k}`: `{v}`" for k, v in opt.mcc.items())
    else:
        spelled = f"`{opt.mcc.replace('{}', 'X')}`"
    same = isinstance(opt.mcc, str) and opt.mcc.replace("{}", "").strip() == opt.short
    if opt.action == SAME or same:
        return f"{spelled} (the same)"
    return spelled + (f" (MP3105: {opt.note})" if opt.note else "")


def flag_table_markdown() -> str:
    """The docs table: every nvcc option and its mcc form."""
    rows = ["| nvcc option | short | mcc |", "|---|---|---|"]
    for opt in OPTIONS:
        value = " X" if opt.value else ""
        rows.append(f"| `{opt.long}{value}` | `{opt.short}` | {describe(opt)} |")
    return "\n".join(rows) + "\n"
