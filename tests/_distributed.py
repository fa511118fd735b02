"""Run a function in 2 gloo processes on 127.0.0.1 with a hard timeout (a hang fails, never blocks)."""

from __future__ import annotations

import os
import pickle
import socket
import traceback
from typing import Any, Callable

import torch.distributed as dist
import torch.multiprocessing as mp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _entry(rank: int, world: int, port: int, fn: Callable, args: tuple, queue: Any) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    try:
        dist.init_process_group("gloo", rank=rank, world_size=world)
        # plain pickle: tensors travel by value, not as shared memory that dies with the process
        queue.put((rank, "ok", pickle.dumps(fn(rank, world, *args))))
    except BaseException as err:  # report, never hang the parent
        queue.put((rank, "error", f"{type(err).__name__}: {err}\n{traceback.format_exc()}"))
    finally:
        # Hand the result over, then leave without tearing the process group down. On torch 2.4,
        # destroy_process_group (and the interpreter's exit) holds the GIL while it joins gloo's worker
        # threads, and a worker dropping the last reference to a tensor Python has let go needs the GIL:
        # after a few collectives, about one run in three hung for good there.
        queue.close()
        queue.join_thread()
        os._exit(0)


def run_distributed(fn: Callable, *args: Any, world_size: int = 2, timeout: float = 120.0) -> list[Any]:
    """Run ``fn(rank, world_size, *args)`` on every rank; return the per-rank results.

    Raises ``RuntimeError`` with the rank's traceback if a rank fails, and ``TimeoutError`` if
    any rank has not finished within ``timeout`` seconds (the processes are killed).
    """
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=_entry, args=(r, world_size, port, fn, args, queue)) for r in range(world_size)]
    for p in procs:
        p.start()
    results: dict[int, Any] = {}
    errors: list[str] = []
    try:
        for _ in range(world_size):
            rank, status, payload = queue.get(timeout=timeout)
            if status == "ok":
                results[rank] = pickle.loads(payload)
            else:
                errors.append(f"rank {rank}: {payload}")
    except Exception as err:
        raise TimeoutError(f"distributed run did not finish within {timeout}s") from err
    finally:
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    if errors:
        raise RuntimeError("\n".join(errors))
    return [results[r] for r in range(world_size)]


class CollectiveCounter:
    """Count calls to torch.distributed collectives while active (patches the module attributes)."""

    NAMES = ("all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor", "broadcast",
             "barrier", "reduce", "gather", "scatter", "reduce_scatter", "all_to_all", "broadcast_object_list")

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self._saved: dict[str, Callable] = {}

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    def __enter__(self) -> "CollectiveCounter":
        for name in self.NAMES:
            original = getattr(dist, name, None)
            if original is None:
                continue
            self._saved[name] = original

            def counted(*a: Any, __name: str = name, __orig: Callable = original, **k: Any) -> Any:
                self.calls[__name] = self.calls.get(__name, 0) + 1
                return __orig(*a, **k)

            setattr(dist, name, counted)
        return self

    def __exit__(self, *exc: Any) -> None:
        for name, original in self._saved.items():
            setattr(dist, name, original)
