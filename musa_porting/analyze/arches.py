"""What the hazard checks know of each MUSA arch: its warp width, the static shared
memory one kernel may use, its ``__MUSA_ARCH__`` value, and where each fact comes from.

Only mp_21's shared-memory limit is public (mcc's error in the torch_musa manual:
``shared memory (42984) exceeds limit (28672)`` on an MTT S3000); for the other arches
no figure is published, so mp_21's is assumed and every message says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Arch:
    name: str
    cards: str
    warp: int | None  # lanes per warp (None: not published)
    shared_limit: int  # bytes of static shared memory per kernel
    shared_known: bool  # the limit is published (else assumed)
    value: int | None  # __MUSA_ARCH__


MANUAL_LIMIT = 28672  # mcc on MTT S3000 (mp_21), the torch_musa manual's mmcv port

ARCHES = {a.name: a for a in (
    Arch("mp_10", "", None, MANUAL_LIMIT, False, None),
    Arch("mp_21", "MTT S80/S3000", 128, MANUAL_LIMIT, True, 210),
    Arch("mp_22", "MTT S4000", 128, MANUAL_LIMIT, False, 220),
    Arch("mp_31", "MTT S5000", 32, MANUAL_LIMIT, False, 310),
    Arch("mp_32", "", None, MANUAL_LIMIT, False, None),
)}


@dataclass(frozen=True)
class Target:
    """The arches of one run (``--arch``), as the hazard checks see them."""

    arches: tuple[str, ...] = ("mp_22",)

    @property
    def wide_warps(self) -> bool:
        """Whether some arch of the run may have warps wider than 32 lanes (every arch
        but mp_31, whose warps are 32 lanes; an unpublished width counts as wide)."""
        return any(ARCHES[a].warp != 32 for a in self.arches if a in ARCHES) or not self.arches

    def shared_limit(self) -> tuple[int, str]:
        """The smallest per-kernel shared memory of the run's arches, and a phrase that
        names it and says whether the figure is published or assumed."""
        known = [ARCHES[a] for a in self.arches if a in ARCHES] or [ARCHES["mp_22"]]
        low = min(a.shared_limit for a in known)
        at = [a for a in known if a.shared_limit == low]
        names = "/".join(a.name for a in at)
        if all(a.shared_known for a in at):
            return low, f"the limit of {names}" + (f" ({at[0].cards})" if at[0].cards else "")
        return low, (f"the limit assumed for {names} (no published figure: mp_21's, which "
                     "the torch_musa manual shows)")


def wide_names(arches: Sequence[str]) -> str:
    """``mp_21/mp_22``: the run's arches with 128-lane warps (for messages)."""
    wide = [a for a in arches if a in ARCHES and ARCHES[a].warp != 32]
    return "/".join(wide) or "mp_21/mp_22"
