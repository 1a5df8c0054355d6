"""Progress of long work (teachers, epochs, parties, searches) when ``verbose`` asks for it.

tqdm draws the bar when it is installed (a widget in Jupyter, a text bar elsewhere); without
it a line is written every tenth of the way. Only public quantities (counts, time) are
shown: a loss or a score would read the private data outside the guarantee.
"""

import sys
import time

from joblib import Parallel

__all__ = ["parallel_progress", "progress", "progress_counter"]


def progress(iterable, *, total, desc, verbose):
    """``iterable`` itself when ``verbose`` is 0, else the same items with a progress bar."""
    if not verbose:
        return iterable
    tqdm = _tqdm()
    if tqdm is None:
        return _lines(iterable, total, desc)
    return tqdm(iterable, total=total, desc=desc, leave=False)


def parallel_progress(tasks, *, n_jobs, total, desc, verbose):
    """``Parallel(n_jobs)(tasks)``; with ``verbose`` a bar moves as they finish, in order."""
    if not verbose:
        return Parallel(n_jobs=n_jobs)(tasks)
    finished = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    return list(progress(finished, total=total, desc=desc, verbose=verbose))


def progress_counter(*, total, desc, verbose):
    """A bar advanced by hand, for searches whose length is known only as they go.

    ``total`` may be None (a count without a bar) and set later with ``set_total``, once a
    search knows a bound on its remaining steps. Use as a context manager; with
    ``verbose=0`` every method does nothing.
    """
    if not verbose:
        return _Silent()
    tqdm = _tqdm()
    if tqdm is None:
        return _LineCounter(total, desc)
    return _TqdmCounter(tqdm(total=total, desc=desc, leave=False))


def _tqdm():
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


def _lines(iterable, total, desc):
    start, step = time.perf_counter(), max(total // 10, 1)
    for done, item in enumerate(iterable, start=1):
        yield item
        if done % step == 0 or done == total:
            print(f"{desc}: {done}/{total} ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)


class _Silent:
    def update(self, n=1):
        pass

    def set_total(self, total):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _TqdmCounter(_Silent):
    def __init__(self, bar):
        self._bar = bar

    def update(self, n=1):
        self._bar.update(n)

    def set_total(self, total):
        self._bar.total = total
        self._bar.refresh()

    def close(self):
        self._bar.close()


class _LineCounter(_Silent):
    """Without tqdm: a line per step while the total is unknown, then every tenth."""

    def __init__(self, total, desc):
        self._total, self._desc = total, desc
        self._done, self._shown, self._start = 0, 0, time.perf_counter()

    def update(self, n=1):
        self._done += n
        step = 1 if self._total is None else max(self._total // 10, 1)
        if self._done % step == 0 or self._done == self._total:
            self._show()

    def set_total(self, total):
        self._total = total

    def close(self):
        if self._done != self._shown:  # a search that ended before its bound
            self._show()

    def _show(self):
        of = "" if self._total is None else f"/{self._total}"
        print(f"{self._desc}: {self._done}{of} ({time.perf_counter() - self._start:.1f} s)",
              file=sys.stderr, flush=True)
        self._shown = self._done
