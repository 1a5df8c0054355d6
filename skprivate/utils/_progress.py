"""Progress of long work (teachers, epochs, parties) when ``verbose`` asks for it.

tqdm draws the bar when it is installed (a widget in Jupyter, a text bar elsewhere); without
it a line is written every tenth of the way. Only public quantities (counts, time) are
shown: a loss or a score would read the private data outside the guarantee.
"""

import sys
import time

__all__ = ["progress"]


def progress(iterable, *, total, desc, verbose):
    """``iterable`` itself when ``verbose`` is 0, else the same items with a progress bar."""
    if not verbose:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _lines(iterable, total, desc)
    return tqdm(iterable, total=total, desc=desc, leave=False)


def _lines(iterable, total, desc):
    start, step = time.perf_counter(), max(total // 10, 1)
    for done, item in enumerate(iterable, start=1):
        yield item
        if done % step == 0 or done == total:
            print(f"{desc}: {done}/{total} ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)
