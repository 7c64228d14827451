"""MP00xx: one input the run could not port as the rest (tree/input_findings.py). The run
never stops for one input: it ports the others, resolves this one on its own and says
so here, naming the paths involved."""

from __future__ import annotations

from .model import Check

_FAMILY = "inputs"

CHECKS = (
    Check("MP0001", "output-path-taken", "warning", False,
          "Two inputs want the same output path (after the `.cu` -> `.mu` and `--rename-paths` "
          "renames, or a folder renamed onto one the tree has, or a caller's extension map), "
          "and neither is the other's MUSA version: the first, in walk order among those "
          "whose own name changed least, keeps the path; the other keeps a name of its own "
          "(its path without the vocabulary renames, else its own file name) and is ported "
          "there. The finding is on the one that moved and names both. Only when no name of "
          "its own is free either is the input not ported (an error).",
          "a.cu and a.cuh, both a.mu by a caller's extension map "
          "(PortOptions(renames={'.cu': '.mu', '.cuh': '.mu'}))", family=_FAMILY,
          why="Two files cannot be written to one path; stopping the run for it would lose "
              "the whole tree. Files that include or build the moved one follow its new "
              "name, but a build file outside the tree, or a name computed at run time, "
              "still asks for the name it wanted.",
          instead="Rename one of the two in the source tree (or `--ignore` the one that is "
                  "not needed), so that each has a name of its own in the port.",
          fixed="a.cu -> a.mu, a_header.cuh -> a_header.mu"),
    Check("MP0002", "musa-twin-kept", "warning", False,
          "A CUDA file is not ported: the name the port would give it is the name of a MUSA "
          "version the tree already has (`x.muh` beside `x.cuh`, `foo_musa.cu` beside "
          "`foo_cuda.cu`, `x-cuda/vendors/musa.h` beside `x-cuda/vendors/cuda.h` when "
          "`x-cuda/` becomes `x-musa/`), or a file of yours in the output. The MUSA version "
          "is kept as it is, and every include of the CUDA file names it.",
          "x-cuda/vendors/cuda.h beside x-cuda/vendors/musa.h", family=_FAMILY,
          why="The MUSA version is the porter's work and wins; but a change made to the "
              "CUDA file after it was written does not reach the port, and what the CUDA "
              "file defines that the MUSA version lacks is missing.",
          instead="Compare the two files, and bring what the CUDA file has since gained "
                  "into its MUSA version by hand; or rename the MUSA file (or `--ignore` "
                  "it) to have the CUDA file ported instead."),
    Check("MP0003", "output-name-unusable", "warning", False,
          "The name the port would give an input cannot be used: over the file system's "
          "255 bytes, or one of musa-port's own names in the output (`.musa-port/`, "
          "`.musa-port-build/`, `.musa-port-manifest.json`). The input keeps its own name "
          "(an error only when that cannot be written either).",
          "a folder .cuda-port-build/ renamed by --rename-paths", family=_FAMILY,
          why="A name the file system refuses would stop the run at its commit; a file in "
              "musa-port's own folders would be taken for its state and lost.",
          instead="Nothing, if the input's own name suits; else rename it in the source "
                  "tree, or `--keep-paths`."),
    Check("MP0004", "input-unreadable", "error", False,
          "An input could not be read: permission denied, a folder that cannot be listed, "
          "a file deleted or replaced (by a link, a FIFO) after the run listed it. Nothing "
          "of it is ported; an output the last run made of it is kept as it was (then the "
          "finding is a warning), and the next run ports it once it can be read.",
          "chmod 000 csrc/k.cu", family=_FAMILY,
          why="Its output is missing or out of date, and files that include or build it "
              "may not compile.",
          instead="Make it readable (or `--ignore` it) and run again: the rest of the port "
                  "is unchanged, only this file is written."),
    Check("MP0005", "port-failed", "error", False,
          "musa-port failed on this file (an internal error in its porter or its symbol "
          "index): the file is copied unchanged under its output name, so that includes "
          "of it still resolve, and the rest of the tree is ported. When only the symbol "
          "index failed, the file is ported but the names it defines are not renamed (a "
          "warning).",
          "a file that makes the porter raise an exception", family=_FAMILY,
          why="The output holds the CUDA text: it does not build for MUSA as it is.",
          instead="Port the file by hand, or report it (the message has the error; "
                  "`MUSA_PORT_DEBUG=1` raises it with its traceback) and run again with a "
                  "fixed musa-port: the file is ported then."),
)
