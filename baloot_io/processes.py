"""Worker processes that end with their parent, however the parent ends.

Every process the project starts (evaluation workers, labelling pools, the fit's helpers, the
learner processes) calls ``die_with_parent`` first: on Linux it asks the kernel for SIGTERM when
the parent dies (``prctl(PR_SET_PDEATHSIG)``, so even a SIGKILLed parent takes its workers
along); elsewhere a thread watches ``os.getppid()``. Standard library only.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PARENT_POLL_S = 1.0  # the portable parent watch: seconds between looks at os.getppid()
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Make this process end when the process ``parent`` ends, however it ends (SIGKILL too)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before the request was made
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass  # no usable libc: fall back to watching

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent:  # reparented: the parent is gone
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
