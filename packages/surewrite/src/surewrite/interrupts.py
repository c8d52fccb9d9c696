"""Makes Ctrl-C end a run wherever it lands.

Python raises KeyboardInterrupt in whatever code runs when SIGINT arrives. When that code is a
finalizer or a weak-reference callback (the cycle collector runs them at any allocation),
the exception cannot propagate: Python reports it as "Exception ignored" and the run goes on
to finish, publish its output and exit 0. The hook here takes such an interrupt and delivers
it again to the main thread from another thread once the callback and the hook have returned
(delivered while the hook runs, it would be raised there and ignored in turn), to end
the run as any other Ctrl-C does; should it land in a callback again, it is passed on again.
"""

from __future__ import annotations

import _thread
import sys
import threading
import time
from typing import Any

_default = sys.unraisablehook
_inside = 0  # how many calls of the hook are running: an interrupt raised in one is lost too


def _deliver() -> None:
    """Interrupt the main thread once no hook runs: on a loaded machine the main thread can
    still be in the hook when a fixed delay has passed."""
    time.sleep(0.05)
    while _inside:
        time.sleep(0.01)
    _thread.interrupt_main()


def _hook(unraisable: Any) -> None:
    global _inside
    _inside += 1
    try:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # from another thread, once the hook and the callback have returned
            threading.Thread(target=_deliver, daemon=True).start()
            return
        _default(unraisable)
    finally:
        _inside -= 1


def lasting_interrupts() -> None:
    """Install the hook (once per process)."""
    sys.unraisablehook = _hook
