"""The linear sum assignment problem, solved in torch (shortest augmenting paths with potentials).

``ClusterAccuracy`` matches each predicted cluster to at most one target class so that the matched
samples are as many as possible. This is the rectangular Hungarian problem; the algorithm is the
one scipy's ``linear_sum_assignment`` uses (Crouse 2016, after Jonker and Volgenant): one row at a
time, a Dijkstra search over reduced costs finds the cheapest augmenting path, and the dual
potentials keep the reduced costs non-negative. Costs are integers (counts), so every comparison is
exact and the optimum is found without tolerance. Each search step is one vectorised pass over the
columns; the number of steps is at most the number of rows per row, and close to one per row for
the diagonal-heavy tables of good clusterings.
"""

from __future__ import annotations

import torch
from torch import Tensor


def linear_sum_assignment(cost: Tensor) -> tuple[Tensor, Tensor]:
    """Rows and columns of a minimum-cost complete matching of an integer ``(R, K)`` cost matrix.

    Every row is matched when ``R <= K`` (every column otherwise); returns ``(rows, cols)`` like
    scipy, rows in increasing order.

    >>> rows, cols = linear_sum_assignment(torch.tensor([[4, 1, 3], [2, 0, 5], [3, 2, 2]]))
    >>> rows.tolist(), cols.tolist()
    ([0, 1, 2], [1, 0, 2])
    """
    if cost.ndim != 2:
        raise ValueError(f"Argument `cost` must be a matrix, got shape {tuple(cost.shape)}")
    if cost.is_floating_point() or cost.is_complex():
        raise TypeError(f"Argument `cost` must hold integers, got {cost.dtype}")
    transposed = cost.shape[0] > cost.shape[1]
    work = (cost.T if transposed else cost).to("cpu", torch.int64)
    col_of_row = _solve(work)
    rows = torch.arange(work.shape[0])
    if transposed:
        order = torch.argsort(col_of_row)
        return col_of_row[order], rows[order]
    return rows, col_of_row


def max_weight_matching(weight: Tensor) -> int:
    """The largest total weight of a one-to-one matching of rows to columns of a non-negative
    integer matrix (a contingency table: the samples that agree after relabelling).

    >>> max_weight_matching(torch.tensor([[0, 5], [3, 1]]))
    8
    """
    if weight.numel() == 0:
        return 0
    weight = weight.to("cpu", torch.int64)
    rows, cols = linear_sum_assignment(weight.max() - weight)
    return int(weight[rows, cols].sum())


def _solve(cost: Tensor) -> Tensor:
    """Column assigned to each row of an ``(R, K)`` int64 cost matrix with ``R <= K``."""
    num_rows, num_cols = cost.shape
    unreachable = torch.iinfo(torch.int64).max // 4
    u = torch.zeros(num_rows, dtype=torch.int64)
    v = torch.zeros(num_cols, dtype=torch.int64)
    col_of_row = torch.full((num_rows,), -1, dtype=torch.int64)
    row_of_col = torch.full((num_cols,), -1, dtype=torch.int64)
    for start in range(num_rows):
        shortest = torch.full((num_cols,), unreachable, dtype=torch.int64)
        path = torch.full((num_cols,), -1, dtype=torch.int64)
        done_cols = torch.zeros(num_cols, dtype=torch.bool)
        visited_rows = []
        row, lowest, sink = start, 0, -1
        while sink < 0:
            visited_rows.append(row)
            reduced = lowest + cost[row] - u[row] - v
            better = (reduced < shortest) & ~done_cols
            shortest = torch.where(better, reduced, shortest)
            path = torch.where(better, row, path)
            open_costs = shortest.masked_fill(done_cols, unreachable + 1)
            lowest = int(open_costs.min())
            # among the cheapest columns prefer a free one: it ends the path (matters for integer ties)
            ties = open_costs == lowest
            free_ties = ties & (row_of_col < 0)
            col = int(torch.argmax((free_ties if bool(free_ties.any()) else ties).to(torch.uint8)))
            done_cols[col] = True
            if int(row_of_col[col]) < 0:
                sink = col
            else:
                row = int(row_of_col[col])
        # potentials: the visited rows and columns move by how much cheaper than `lowest` they were
        u[start] += lowest
        others = torch.tensor(visited_rows[1:], dtype=torch.int64)
        if others.numel():
            u[others] += lowest - shortest[col_of_row[others]]
        v[done_cols] -= lowest - shortest[done_cols]
        col = sink
        while True:  # flip the augmenting path
            row = int(path[col])
            row_of_col[col] = row
            col_of_row[row], col = col, int(col_of_row[row])
            if row == start:
                break
    return col_of_row
