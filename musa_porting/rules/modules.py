"""Extension module names: one decision per module, for every side that names it.

Python finds an extension module by its name (``import pkg._ext_cuda``,
``find_spec(f'{library}_cuda')``), the build gives it that name (setup.py's
``CUDAExtension('pkg._ext_cuda', ...)``, CMake's ``pybind11_add_module(_ext_cuda ...)``),
and the C++ answers to it (``PyInit__ext_cuda``, ``PYBIND11_MODULE(_ext_cuda, m)``). A
rename on one side only breaks the import, or makes the package fall back to its CPU
build in silence. So the rule the README states for names resolved by string holds:

- a module a build file of this run names is renamed on every side, the same way (the
  vocabulary's rename of its name: ``_ext_cuda`` -> ``_ext_musa``), when the build's
  name can follow: what the build computes (a hole of its pattern) must be the same
  text in the old name and the new, so that only the literal runs it writes change;
- any other module keeps its name on every side: its build is not in the run (a port
  of ``csrc`` alone), or it cannot follow.

A module only the build names (the C++ gets its name from the build, ``PYBIND11_MODULE
(TORCH_EXTENSION_NAME, m)``) is renamed by the build's pattern, with its loaders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .name_patterns import captures, follows, parse, renamed, tail, to_glob
from .project import ModuleLink, Site


def _where(site: Site) -> str:
    return f"{site.kind} at {site.file}:{site.line}"


def plan_modules(cxx: Mapping[str, Site], builds: Sequence[tuple[str, Site]],
                 rename: Callable[[str], str | None]) -> list[ModuleLink]:
    """The decisions for the modules the C++ names (``cxx``: module name -> where it is
    bound) and the build files name (``builds``: the glob of each extension name, with
    its site), for the modules whose name holds a word ``rename`` changes."""
    tails = [(tail(parse(g)), site) for g, site in builds]
    links: list[ModuleLink] = []
    for name, site in sorted(cxx.items()):
        new = rename(name)
        if new is None or new == name:
            continue
        named = [(t, s) for t, s in tails if captures(t, name) is not None]
        if not named:
            links.append(ModuleLink(name, None, site, f"no build file of this run names the "
                                                      f"module {name}"))
            continue
        stuck = [s for t, s in named if not follows(t, name, renamed(t, rename), new)]
        if stuck:
            links.append(ModuleLink(name, None, site, f"the build computes the part of its name "
                                                      f"that holds the word ({_where(stuck[0])})"))
        else:
            links.append(ModuleLink(name, new, site, f"named by the build ({_where(named[0][1])}), "
                                                     "ported in this run"))
    for t, site in tails:
        if any(captures(t, name) is not None for name in cxx):
            continue  # decided with the C++ name, above
        new_t = renamed(t, rename)
        if new_t != t:
            links.append(ModuleLink(to_glob(t), to_glob(new_t), site,
                                    f"named by the build ({_where(site)}), ported in this run"))
    return links
