"""The boundary surface of a 2x2x2 cell for each of its 256 neighbour codes (marching cubes).

A neighbour code says which of the cell's eight corners lie inside a mask: corner ``(a, b, c)``
(each 0 or 1, ``a`` along the first spatial dimension) is bit ``7 - (4a + 2b + c)``. The surface
that separates the inside corners from the outside ones is made of polygons through the midpoints
of the cell edges whose two corners differ; its area, with voxel size ``spacing``, is the
surface-area lookup table of surface-distance measures (DeepMind's ``surface-distance``, which
torchmetrics' ``mask_edges`` uses).

The polygons are traced face by face: a face whose edges are crossed twice holds one segment of
the surface; a face crossed four times (two diagonal corners inside, two outside) holds two,
which cut off the corners of the minority state of the whole cell (the inside ones when at most
four corners are inside, the outside ones otherwise). Every polygon is split into triangles, the
way of largest total area (any way, for a planar polygon), as that table splits them. A triangle
contributes the norm of its area vector scaled by ``(s1 * s2, s0 * s2, s0 * s1)``: the area of
the triangle once the cell is stretched to the voxel size. Nothing is stored: the vectors are
derived once (exact multiples of 1/8) and scaled per ``spacing``.

>>> surface_area_table((1.0, 1.0, 1.0))[[0, 1, 3, 15, 255]]
tensor([0.0000, 0.2165, 0.7071, 1.0000, 0.0000])
"""

from __future__ import annotations

import functools
import itertools
from typing import Optional

import torch
from torch import Tensor

Point = tuple[float, float, float]
_CORNERS = list(itertools.product((0, 1), repeat=3))  # corner index 4a + 2b + c, bit 7 - index


def _face_rings() -> list[list[tuple[int, int, int]]]:
    """The six faces of the cell, each as its four corners in cyclic order."""
    rings = []
    for axis in range(3):
        u, v = (a for a in range(3) if a != axis)
        for side in (0, 1):
            ring = []
            for x, y in ((0, 0), (1, 0), (1, 1), (0, 1)):
                corner = [0, 0, 0]
                corner[axis], corner[u], corner[v] = side, x, y
                ring.append(tuple(corner))
            rings.append(ring)
    return rings


def _polygons(code: int) -> list[list[Point]]:
    """The surface polygons of one code, each as its vertices (edge midpoints) in cyclic order."""
    inside = {corner for index, corner in enumerate(_CORNERS) if code >> (7 - index) & 1}
    isolate_inside = len(inside) <= 4  # which corners the segments of an ambiguous face cut off
    neighbours: dict[tuple, list[tuple]] = {}
    for ring in _face_rings():
        crossed = [
            (k, frozenset((ring[k], ring[(k + 1) % 4])))
            for k in range(4)
            if (ring[k] in inside) != (ring[(k + 1) % 4] in inside)
        ]
        if len(crossed) == 2:
            pairs = [(crossed[0][1], crossed[1][1])]
        elif len(crossed) == 4:  # edge k runs from ring[k] to ring[k + 1]: ring[1] lies between edges 0 and 1
            edge = [e for _, e in crossed]
            if (ring[1] in inside) == isolate_inside:
                pairs = [(edge[0], edge[1]), (edge[2], edge[3])]  # cut off ring[1] and ring[3]
            else:
                pairs = [(edge[3], edge[0]), (edge[1], edge[2])]  # cut off ring[0] and ring[2]
        else:
            pairs = []
        for a, b in pairs:
            neighbours.setdefault(a, []).append(b)
            neighbours.setdefault(b, []).append(a)
    polygons, seen = [], set()
    for start in sorted(neighbours, key=sorted):  # every crossed edge lies on two faces: loops
        if start in seen:
            continue
        loop, previous, current = [start], None, start
        seen.add(start)
        while True:
            following = [n for n in neighbours[current] if n != previous and n not in seen]
            if not following:
                break
            previous, current = current, following[0]
            loop.append(current)
            seen.add(current)
        midpoints = [tuple(sum(corner[i] for corner in edge) / 2 for i in range(3)) for edge in loop]
        polygons.append(midpoints)
    return polygons


@functools.lru_cache(maxsize=None)
def _triangulations(n: int) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """Every split of a convex ``n``-gon (vertices ``0..n-1``) into triangles."""

    def split(vertices: tuple[int, ...]) -> list[list[tuple[int, int, int]]]:
        if len(vertices) < 3:
            return [[]]
        first, last = vertices[0], vertices[-1]
        out = []
        for k in range(1, len(vertices) - 1):  # the triangle on the edge (first, last)
            for left in split(vertices[: k + 1]):
                for right in split(vertices[k:]):
                    out.append([*left, (first, vertices[k], last), *right])
        return out

    return tuple(tuple(t) for t in split(tuple(range(n))))


def _area_vector(a: Point, b: Point, c: Point) -> tuple[float, float, float]:
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    return (
        (u[1] * v[2] - u[2] * v[1]) / 2,
        (u[2] * v[0] - u[0] * v[2]) / 2,
        (u[0] * v[1] - u[1] * v[0]) / 2,
    )


def _norm(vector: tuple[float, float, float]) -> float:
    return sum(x * x for x in vector) ** 0.5


@functools.lru_cache(maxsize=None)
def area_vectors() -> Tensor:
    """``(256, T, 3)`` float64: the area vectors of every code's triangles (zero rows pad to ``T``)."""
    codes = []
    for code in range(256):
        vectors = []
        for polygon in _polygons(code):
            best, best_area = [], -1.0
            for triangles in _triangulations(len(polygon)):
                candidate = [_area_vector(*(polygon[i] for i in t)) for t in triangles]
                area = sum(_norm(v) for v in candidate)
                if area > best_area + 1e-12:
                    best, best_area = candidate, area
            vectors += best
        codes.append(vectors)
    width = max(len(v) for v in codes)
    return torch.tensor([v + [(0.0, 0.0, 0.0)] * (width - len(v)) for v in codes], dtype=torch.float64)


def surface_area_table(spacing: tuple, device: Optional[torch.device] = None) -> Tensor:
    """``(256,)`` float32: the surface area in a cell of each code, with voxel size ``spacing``."""
    s0, s1, s2 = spacing
    scale = torch.tensor([s1 * s2, s0 * s2, s0 * s1], dtype=torch.float32, device=device)
    vectors = area_vectors().to(device=device, dtype=torch.float32)
    return torch.linalg.norm(vectors * scale, dim=-1).sum(-1)
