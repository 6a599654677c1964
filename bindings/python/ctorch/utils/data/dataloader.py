"""DataLoader: batches from a dataset, in the main process or in worker processes, as torch's.

With num_workers > 0 each worker is a process (forked by default, as torch on Linux) that reads
samples and collates batches; map-style batches come back in the sampler's order whatever worker
finished first, an IterableDataset's come from the workers in turn. Each worker seeds ctorch's and
Python's random numbers with base_seed + worker id (base_seed drawn from the loader's generator
each epoch), runs on one CPU thread, and may call worker_init_fn(worker_id) and get_worker_info().
An exception in a worker is raised in the main process, naming the worker; a worker that dies
raises RuntimeError there."""

import itertools
import queue
import random
import traceback
import warnings

from ... import _random
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


class WorkerInfo:
    """What get_worker_info() answers inside a worker: id, num_workers, seed and its dataset copy."""

    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, dataset={self.dataset!r})"


_worker_info = None


def get_worker_info():
    """The WorkerInfo of this worker process; None in the main process."""
    return _worker_info


class _Fetcher:
    """Reads one batch (a list of indices, or one index without batching) from a map-style dataset,
    or the next batch of an iterable one."""

    def __init__(self, dataset, auto_batching, collate_fn, batch_size, drop_last):
        self.dataset, self.auto_batching, self.collate_fn = dataset, auto_batching, collate_fn
        self.batch_size, self.drop_last = batch_size, drop_last
        self.iterable = isinstance(dataset, IterableDataset)
        self.stream = None  # made by restart(), in the process that reads it (a worker's sees its info)

    def restart(self):
        if self.iterable:
            self.stream = iter(self.dataset)

    def fetch(self, indices):
        if not self.iterable:
            if self.auto_batching:
                return self.collate_fn([self.dataset[i] for i in indices])
            return self.collate_fn(self.dataset[indices])
        if not self.auto_batching:
            return self.collate_fn(next(self.stream))
        batch = list(itertools.islice(self.stream, self.batch_size))
        if not batch or (self.drop_last and len(batch) < self.batch_size):
            raise StopIteration
        return self.collate_fn(batch)


class _Failure:
    """An exception of a worker, sent to the main process as text (its traceback) and its type."""

    def __init__(self, worker_id, exc):
        self.worker_id = worker_id
        self.kind = type(exc)
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self):
        message = f"Caught {self.kind.__name__} in DataLoader worker process {self.worker_id}.\nOriginal {self.text}"
        try:
            error = self.kind(message)
        except Exception:
            error = RuntimeError(message)
        raise error


_END = "end"  # an iterable dataset's worker has no more batches


def _worker_loop(fetcher, tasks, results, worker_id, num_workers, seed, init_fn):
    global _worker_info
    from ... import manual_seed, set_num_threads

    set_num_threads(1)
    manual_seed(seed)
    random.seed(seed)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, fetcher.dataset)
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher.restart()
    except Exception as e:  # reported on the first task
        setup_failure = _Failure(worker_id, e)
    else:
        setup_failure = None
    while True:
        task = tasks.get()
        if task is None:
            break
        if task[0] == "restart":
            fetcher.restart()
            continue
        _, number, indices = task
        if setup_failure is not None:
            results.put((number, setup_failure))
            continue
        try:
            results.put((number, fetcher.fetch(indices)))
        except StopIteration:
            results.put((number, _END))
        except Exception as e:
            results.put((number, _Failure(worker_id, e)))


class _Workers:
    """The worker processes of one loader, with a task queue each and one result queue."""

    def __init__(self, loader, fetcher):
        import multiprocessing  # here: slow to import, and only workers need it

        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self.results = ctx.Queue()
        self.tasks = [ctx.Queue() for _ in range(loader.num_workers)]
        self.timeout = loader.timeout
        self.next_number = 0  # the number of the next task (see DataLoader._run)
        base_seed = int(_random.randint(0, 2 ** 62, (), generator=loader.generator).item())
        self.procs = []
        for i in range(loader.num_workers):
            p = ctx.Process(target=_worker_loop, args=(fetcher, self.tasks[i], self.results, i, loader.num_workers,
                                                       base_seed + i, loader.worker_init_fn), daemon=True)
            p.start()
            self.procs.append(p)

    def get(self):
        waited = 0.0
        while True:
            try:
                return self.results.get(timeout=1.0)
            except queue.Empty:
                waited += 1.0
                dead = [p.pid for p in self.procs if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(map(str, dead))}) exited unexpectedly")
                if self.timeout and waited >= self.timeout:
                    raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds")

    def shutdown(self):
        for t in self.tasks:
            try:
                t.put(None)
            except (OSError, ValueError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
        self.procs = []


def _pin(data):
    if hasattr(data, "pin_memory") and hasattr(data, "is_pinned"):
        return data.pin_memory()
    if isinstance(data, dict):
        return {k: _pin(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
        return type(data)(_pin(v) for v in data)
    return data


class DataLoader:
    """DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
    collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
    multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False),
    with torch's meaning and argument checks; see the module comment for workers."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing. "
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn or (default_collate if batch_size is not None or batch_sampler is not None
                                         else default_convert)
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory
        if pin_memory:
            from ... import cuda

            if not cuda.is_available():
                warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                              "memory won't be used.")
                self.pin_memory = False
        self._workers = None

    @property
    def _auto_batching(self):
        return self.batch_sampler is not None or (isinstance(self.dataset, IterableDataset) and
                                                  self.batch_size is not None)

    def _fetcher(self):
        return _Fetcher(self.dataset, self._auto_batching, self.collate_fn, self.batch_size, self.drop_last)

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # a TypeError when the dataset has none, as in torch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler) if self.batch_sampler is not None else len(self.sampler)

    def _index_stream(self):
        if isinstance(self.dataset, IterableDataset):
            return None
        return iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self):
        out = self._single() if self.num_workers == 0 else self._multi()
        return (_pin(b) for b in out) if self.pin_memory else out

    def _single(self):
        fetcher = self._fetcher()
        fetcher.restart()
        indices = self._index_stream()
        while True:
            try:
                yield fetcher.fetch(next(indices) if indices is not None else None)
            except StopIteration:
                return

    def _multi(self):
        if self._workers is None or not self.persistent_workers:
            workers = _Workers(self, self._fetcher())
            if self.persistent_workers:
                self._workers = workers
        else:
            workers = self._workers
            for t in workers.tasks:
                t.put(("restart",))
        try:
            yield from self._run(workers)
        finally:
            if not self.persistent_workers:
                workers.shutdown()

    def _run(self, workers):
        # Tasks are numbered across epochs: a persistent worker may still answer a task of an epoch
        # the loop left early, and that answer (numbered below this epoch's first) is dropped.
        n = self.num_workers
        indices = self._index_stream()
        live = list(range(n))  # workers that may still have batches (all, for map-style datasets)
        turn = itertools.count()
        first = sent = next_out = workers.next_number
        done, owner = {}, {}

        def send():
            nonlocal sent
            if not live:
                return False
            if indices is not None:
                try:
                    task = next(indices)
                except StopIteration:
                    return False
                worker = live[(sent - first) % n]
            else:
                task = None
                worker = live[next(turn) % len(live)]
            owner[sent] = worker
            workers.tasks[worker].put(("task", sent, task))
            sent += 1
            workers.next_number = sent
            return True

        for _ in range(self.prefetch_factor * n):
            if not send():
                break
        while next_out < sent:
            while next_out not in done:
                number, data = workers.get()
                if number >= first:
                    done[number] = data
            data = done.pop(next_out)
            worker = owner.pop(next_out)
            next_out += 1
            if isinstance(data, _Failure):
                data.reraise()
            if isinstance(data, str) and data == _END:
                if worker in live:
                    live.remove(worker)
                send()
                continue
            send()
            yield data

    def __del__(self):
        workers = getattr(self, "_workers", None)
        if workers is not None:
            workers.shutdown()
