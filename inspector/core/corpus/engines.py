"""Where the chats are scored: this process, a local process pool, or Dask. Every engine scores each chat
with ``score.score_chat`` under the same ``Job``, so the results are the same; they arrive in any order
(the caller sorts them by path).

- ``local``: ``jobs`` worker processes (1: this process). Workers ignore SIGINT: Ctrl-C reaches this
  process, which stops the pool.
- ``dask``: ``dask.distributed`` (the optional extra ``distributed``): on the cluster at ``scheduler``
  (its workers must read the same paths and have prompt-inspector installed), else on a local cluster
  started for the run and stopped after: no dashboard, ``jobs`` worker processes on 127.0.0.1 (one: a
  thread in this process, reached in-process, no socket).
"""

from __future__ import annotations

import importlib
import signal
from collections.abc import Iterator
from typing import Any

from inspector.core.corpus.score import ChatScore, Job, score_chat
from inspector.core.errors import UsageError

DASK_EXTRA = "pip install 'prompt-inspector[distributed]'"
_JOB: Job | None = None


def _init_worker(job: Job) -> None:
    global _JOB
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _JOB = job


def _score_in_worker(path: str) -> ChatScore:
    assert _JOB is not None
    return score_chat(path, _JOB)


def run_local(paths: list[str], job: Job, jobs: int) -> Iterator[ChatScore]:
    """Each chat's score as it is done."""
    if jobs <= 1 or len(paths) <= 1:
        for path in paths:
            yield score_chat(path, job)
        return
    import multiprocessing  # only for a pool: `--jobs 1` is spared its import (sockets, pickling)

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = context.Pool(min(jobs, len(paths)), initializer=_init_worker, initargs=(job,))
    try:
        yield from pool.imap_unordered(_score_in_worker, paths)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def run_dask(paths: list[str], job: Job, jobs: int, scheduler: str | None) -> Iterator[ChatScore]:
    """Each chat's score as it is done, on Dask."""
    try:
        # untyped, and optional: read as Any, so the package type-checks with or without the extra
        distributed: Any = importlib.import_module("dask.distributed")
    except ImportError:
        raise UsageError(f"--engine dask needs dask.distributed: {DASK_EXTRA}") from None
    import logging

    cluster: Any = None
    try:
        if scheduler is not None:
            client = distributed.Client(scheduler, timeout="10s")
        else:
            # one worker: a thread in this process, reached in-process (no socket at all); more: worker
            # processes talking over TCP on 127.0.0.1 only
            network = {"host": "127.0.0.1"} if jobs > 1 else {}
            cluster = distributed.LocalCluster(
                n_workers=max(1, jobs),
                threads_per_worker=1,
                processes=jobs > 1,
                dashboard_address=None,
                silence_logs=logging.ERROR,
                **network,
            )
            client = distributed.Client(cluster)
    except (OSError, TimeoutError, RuntimeError) as exc:
        if cluster is not None:
            cluster.close()
        where = f"the Dask scheduler at {scheduler}" if scheduler else "a local Dask cluster"
        raise UsageError(f"cannot start or reach {where}: {exc}") from None
    try:
        futures = client.map(score_chat, paths, job=job, pure=False)
        for future in distributed.as_completed(futures):
            result: ChatScore = future.result()
            yield result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
