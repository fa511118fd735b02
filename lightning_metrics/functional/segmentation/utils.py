"""torchmetrics' segmentation helpers (``torchmetrics.functional.segmentation.utils``), served natively.

Code written against torchmetrics imports these to work with mask boundaries and surface
distances: binary structures and erosion, the distance transform, mask edges (with the contour
length or surface area of each boundary cell), and the distances between two masks' surfaces.
They take torchmetrics 1.9's arguments and return its values, dtypes and shapes, computed by our
segmentation core: boundaries by shifts (:mod:`.._distance`), distances by its exact separable
distance transform (no pairwise distance matrix: memory linear in the pixels, where torchmetrics
needs foreground x background entries).

Where torchmetrics fails, these work: the distance transform of a non-square image (torchmetrics
indexes its rows by the height), of an image without background (``inf``; torchmetrics raises),
and of 3-D images (``distance_transform``, ``surface_distance`` and ``edge_surface_distance``
accept 3-D masks and a tensor ``spacing``); ``binary_erosion`` of several channels erodes each
channel on its own (torchmetrics raises); ``engine="scipy"`` returns what scipy would (a float64
NumPy array), computed without scipy, for every metric and spacing.

>>> import torch
>>> from lightning_metrics.functional.segmentation.utils import mask_edges
>>> preds = torch.zeros(4, 4, dtype=torch.bool); preds[1:3, 1:3] = True
>>> edges, _ = mask_edges(preds, preds, crop=False)
>>> edges
tensor([[0, 0, 0, 0],
        [0, 1, 1, 0],
        [0, 1, 1, 0],
        [0, 0, 0, 0]], dtype=torch.uint8)
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Literal, Optional, Union

import torch
from torch import Tensor
from torch.nn import functional as F

from lightning_metrics.functional.segmentation._distance import DISTANCE_METRICS, distance_to_nearest
from lightning_metrics.functional.segmentation._distance import mask_edges as _boundary
from lightning_metrics.functional.segmentation._neighbour_codes import surface_area_table
from lightning_metrics.utilities.exceptions import MetricInputError

__all__ = [
    "binary_erosion",
    "check_if_binarized",
    "distance_transform",
    "edge_surface_distance",
    "generate_binary_structure",
    "mask_edges",
    "surface_distance",
    "table_contour_length",
]

Spacing = Optional[Union[Tensor, list[float]]]


def check_if_binarized(x: Tensor) -> None:
    """Raise a ``ValueError`` unless every value of ``x`` is 0 or 1 (any dtype).

    >>> import torch
    >>> check_if_binarized(torch.tensor([0, 1, 1, 0]))
    >>> check_if_binarized(torch.tensor([0.0, 0.5]))
    Traceback (most recent call last):
    ...
    ValueError: Input x should be binarized: every value 0 or 1
    """
    if not bool((x.bool() == x).all()):
        raise ValueError("Input x should be binarized: every value 0 or 1")


def generate_binary_structure(rank: int, connectivity: int) -> Tensor:
    """The ``3 x ... x 3`` (``rank`` times) bool structuring element of the pixels whose city-block
    distance from the centre is at most ``connectivity`` (scipy's ``generate_binary_structure``).

    >>> generate_binary_structure(2, 1)
    tensor([[False,  True, False],
            [ True,  True,  True],
            [False,  True, False]])
    """
    connectivity = max(connectivity, 1)
    if rank < 1:
        return torch.tensor([1], dtype=torch.uint8)
    steps = (torch.arange(3) - 1).abs()
    distance = torch.zeros((1,) * rank, dtype=torch.long)
    for axis in range(rank):
        distance = distance + steps.reshape([3 if a == axis else 1 for a in range(rank)])
    return distance <= connectivity


def binary_erosion(
    image: Tensor,
    structure: Optional[Tensor] = None,
    origin: Optional[tuple[int, ...]] = None,
    border_value: int = 0,
) -> Tensor:
    """Binary erosion of a batch of binary images ``(N, C, H, W)`` or ``(N, C, D, H, W)`` (uint8).

    A pixel stays 1 where every pixel under the ``structure`` (the cross of
    :func:`generate_binary_structure` by default) placed at it is 1; ``origin`` is the structure's
    anchor (its centre by default) and ``border_value`` the value outside the image. As
    torchmetrics computes it: ``min`` over the structure's cells of ``pixel - structure`` plus one.

    >>> import torch
    >>> image = torch.zeros(1, 1, 5, 5, dtype=torch.long); image[..., 1:4, 1:4] = 1
    >>> binary_erosion(image)[0, 0]
    tensor([[0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 0, 1, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0]], dtype=torch.uint8)
    """
    if not isinstance(image, Tensor):
        raise TypeError(f"Argument `image` must be a tensor, got {type(image).__name__}")
    if image.ndim not in (4, 5):
        raise ValueError(f"Argument `image` must be of rank 4 or 5 (N, C, *spatial), got rank {image.ndim}")
    check_if_binarized(image)
    if structure is None:
        structure = generate_binary_structure(image.ndim - 2, 1).int().to(image.device)
    check_if_binarized(structure)
    if origin is None:
        origin = (1,) * structure.ndim
    # F.pad reads its pairs from the last dimension backwards: the pair of origin[i] pads dimension
    # -(i + 1), as torchmetrics pads (the same for the symmetric structures it is used with)
    pads = [p for i, o in enumerate(origin) for p in (o, structure.shape[i] - o - 1)]
    padded = F.pad(image, pads, mode="constant", value=border_value).float()
    spatial = structure.shape
    out_shape = [padded.shape[2 + d] - spatial[d] + 1 for d in range(len(spatial))]
    weights = structure.int().tolist() if structure.ndim else [int(structure)]
    low = None
    for cell in itertools.product(*(range(s) for s in spatial)):
        window = padded[(..., *(slice(c, c + n) for c, n in zip(cell, out_shape)))]
        weight = functools.reduce(lambda row, i: row[i], cell, weights)
        value = window - weight
        low = value if low is None else torch.minimum(low, value)
    return (low.reshape(image.shape) + 1).byte()


def distance_transform(
    x: Tensor,
    sampling: Optional[Union[Tensor, list[float]]] = None,
    metric: Literal["euclidean", "chessboard", "taxicab"] = "euclidean",
    engine: Literal["pytorch", "scipy"] = "pytorch",
) -> Tensor:
    """At every pixel of ``x`` equal to 1, the distance to the nearest pixel equal to 0 (other
    pixels 0), float32: exact ``"euclidean"``, ``"chessboard"`` or ``"taxicab"`` distances in units
    of ``sampling`` (the pixel size per dimension, 1 by default).

    ``engine="scipy"`` gives scipy's ``ndimage.distance_transform_edt`` output as torchmetrics does,
    a float64 NumPy array (every non-zero pixel gets its distance), computed here without scipy.
    2-D images as torchmetrics; 3-D ones too (an extension).

    >>> import torch
    >>> x = torch.zeros(5, 5, dtype=torch.long); x[1:4, 1:4] = 1
    >>> distance_transform(x)
    tensor([[0., 0., 0., 0., 0.],
            [0., 1., 1., 1., 0.],
            [0., 1., 2., 1., 0.],
            [0., 1., 1., 1., 0.],
            [0., 0., 0., 0., 0.]])
    >>> distance_transform(x, sampling=[2.0, 1.0], metric="chessboard")[2]
    tensor([0., 1., 2., 1., 0.])
    """
    if not isinstance(x, Tensor):
        raise ValueError(f"Argument `x` must be a tensor, got {type(x).__name__}")
    if x.ndim not in (2, 3):
        raise ValueError(f"Argument `x` must be of rank 2 (or 3), got rank {x.ndim}")
    if metric not in DISTANCE_METRICS:
        raise ValueError(f"Argument `metric` must be one of {list(DISTANCE_METRICS)}, got {metric!r}")
    if engine not in ("pytorch", "scipy"):
        raise ValueError(f"Argument `engine` must be one of ['pytorch', 'scipy'], got {engine!r}")
    spacing = _spacing(sampling, x.ndim, "sampling")
    distance = distance_to_nearest(x == 0, x.ndim, metric, spacing)
    if engine == "scipy":  # scipy measures every non-zero pixel, in float64
        return torch.where(x != 0, distance.double(), 0.0).cpu().numpy()
    return torch.where(x == 1, distance, 0.0)


def _spacing(spacing: Spacing, ndim: int, name: str) -> Optional[tuple]:
    """``None`` or one pixel size per dimension, as given (ints stay ints: the same arithmetic)."""
    if spacing is None:
        return None
    if isinstance(spacing, Tensor):
        spacing = spacing.detach().cpu().reshape(-1).tolist()
    if not isinstance(spacing, (list, tuple)) or len(spacing) != ndim:
        raise ValueError(
            f"Argument `{name}` must be None or a list (or 1-D tensor) of {ndim} pixel sizes, got {spacing!r}"
        )
    return tuple(spacing)


def mask_edges(
    preds: Tensor,
    target: Tensor,
    crop: bool = True,
    spacing: Optional[Union[tuple[int, int], tuple[int, int, int]]] = None,
) -> Union[tuple[Tensor, Tensor], tuple[Tensor, Tensor, Tensor, Tensor]]:
    """The boundaries of two binary masks (2-D or 3-D) as torchmetrics gives them.

    ``crop`` pads both masks by one pixel first (their boundaries then lie within, and two empty
    masks give four all-zero tensors at once). Without ``spacing``: the pixels of each mask with a
    face neighbour outside it, in the masks' dtype promoted with uint8. With ``spacing`` (a tuple,
    one pixel size per dimension): per 2x2(x2) cell, whether the mask's boundary crosses it (bool)
    and its contour length (2-D) or surface area (3-D) there (float32), for both masks:
    ``(edges_preds, edges_target, areas_preds, areas_target)`` of one cell less per dimension.

    >>> import torch
    >>> m = torch.zeros(3, 3, dtype=torch.bool); m[1, 1] = True
    >>> edges, _, areas, _ = mask_edges(m, m, crop=False, spacing=(1, 1))
    >>> areas
    tensor([[0.7071, 0.7071],
            [0.7071, 0.7071]])
    """
    if preds.shape != target.shape:
        raise MetricInputError(
            "Arguments `preds` and `target` must have the same shape, got "
            f"{tuple(preds.shape)} and {tuple(target.shape)}"
        )
    if preds.ndim not in (2, 3):
        raise ValueError(f"Argument `preds` must be of rank 2 or 3, got rank {preds.ndim}")
    check_if_binarized(preds)
    check_if_binarized(target)
    if crop:
        if not bool((preds | target).any()):
            empty_preds, empty_target = torch.zeros_like(preds), torch.zeros_like(target)
            return empty_preds, empty_target, empty_preds, empty_target
        preds, target = F.pad(preds, [1, 1] * preds.ndim), F.pad(target, [1, 1] * target.ndim)
    if spacing is None:
        return tuple(  # type: ignore[return-value]
            _boundary(m.bool(), m.ndim).to(torch.promote_types(torch.uint8, m.dtype)) for m in (preds, target)
        )
    table, _ = get_neighbour_tables(spacing, device=preds.device)
    full = table.numel() - 1
    codes = [_neighbour_codes(m) for m in (preds, target)]
    edges = [(code != 0) & (code != full) for code in codes]
    areas = [table[code] for code in codes]
    return edges[0], edges[1], areas[0], areas[1]


def _neighbour_codes(mask: Tensor) -> Tensor:
    """Per 2x2(x2) cell, the corners inside the mask as bits: corner ``(a, b[, c])`` weighs
    ``2 ** (cells - 1 - index)`` with ``index`` its row-major position (the first corner the highest)."""
    mask = mask.long()
    size = [n - 1 for n in mask.shape]
    corners = list(itertools.product((0, 1), repeat=mask.ndim))
    code = torch.zeros(size, dtype=torch.long, device=mask.device)
    for index, corner in enumerate(corners):
        window = mask[tuple(slice(c, c + n) for c, n in zip(corner, size))]
        code += window << (len(corners) - 1 - index)
    return code


def surface_distance(
    preds: Tensor,
    target: Tensor,
    distance_metric: Literal["euclidean", "chessboard", "taxicab"] = "euclidean",
    spacing: Optional[Union[Tensor, list[float]]] = None,
) -> Tensor:
    """For every ``True`` pixel of ``preds`` (in row-major order), the distance to the nearest
    ``True`` pixel of ``target`` (bool masks of the same shape; float32).

    ``inf`` for every one when ``target`` has none; when ``preds`` has none (and ``target`` some),
    ``inf`` once per ``True`` pixel of ``target``, as torchmetrics.

    >>> import torch
    >>> preds = torch.zeros(4, 4, dtype=torch.bool); preds[0, :] = True
    >>> target = torch.zeros(4, 4, dtype=torch.bool); target[2, 1] = True
    >>> surface_distance(preds, target, distance_metric="taxicab")
    tensor([3., 2., 3., 4.])
    """
    if preds.dtype != torch.bool or target.dtype != torch.bool:
        raise ValueError(
            f"Arguments `preds` and `target` must be bool tensors, got {preds.dtype} and {target.dtype}"
        )
    if not bool(target.any()):
        return torch.full(preds.shape, float("inf"), device=preds.device)[preds]
    if not bool(preds.any()):
        return torch.full(target.shape, float("inf"), device=target.device)[target]
    return distance_transform(~target, sampling=spacing, metric=distance_metric)[preds]


def edge_surface_distance(
    preds: Tensor,
    target: Tensor,
    distance_metric: Literal["euclidean", "chessboard", "taxicab"] = "euclidean",
    spacing: Optional[Union[Tensor, list[float]]] = None,
    symmetric: bool = False,
) -> Union[Tensor, tuple[Tensor, Tensor]]:
    """:func:`surface_distance` between the boundaries (:func:`mask_edges`, cropped) of two masks;
    with ``symmetric`` also from the target's boundary to the prediction's.

    >>> import torch
    >>> preds = torch.zeros(5, 5, dtype=torch.bool); preds[1:4, 1:4] = True
    >>> target = torch.zeros(5, 5, dtype=torch.bool); target[1:4, 1:3] = True
    >>> edge_surface_distance(preds, target, distance_metric="chessboard")
    tensor([0., 0., 1., 0., 1., 0., 0., 1.])
    """
    edges_preds, edges_target = (edge.bool() for edge in mask_edges(preds, target)[:2])
    forward = surface_distance(edges_preds, edges_target, distance_metric=distance_metric, spacing=spacing)
    if not symmetric:
        return forward
    backward = surface_distance(edges_target, edges_preds, distance_metric=distance_metric, spacing=spacing)
    return forward, backward


@functools.lru_cache
def get_neighbour_tables(
    spacing: Union[tuple[int, int], tuple[int, int, int]], device: Optional[torch.device] = None
) -> tuple[Tensor, Tensor]:
    """The contour length (2-D) or surface area (3-D) of every neighbour code, and the kernel that
    computes the codes (by the length of the ``spacing`` tuple; cached).

    >>> table, kernel = get_neighbour_tables((1, 1))
    >>> table.shape, kernel.shape
    (torch.Size([16]), torch.Size([1, 1, 2, 2]))
    """
    if isinstance(spacing, tuple) and len(spacing) == 2:
        return table_contour_length(spacing, device)
    if isinstance(spacing, tuple) and len(spacing) == 3:
        return table_surface_area(spacing, device)
    raise ValueError(f"Argument `spacing` must be a tuple of length 2 or 3, got {spacing!r}")


def _kernel(dims: int, device: Optional[torch.device]) -> Tensor:
    """The ``2 x ... x 2`` kernel of the neighbour-code weights (the first corner the highest bit)."""
    cells = 2**dims
    weights = 2 ** torch.arange(cells - 1, -1, -1, device=device)
    return weights.reshape((1, 1) + (2,) * dims)


def table_contour_length(
    spacing: tuple[int, int], device: Optional[torch.device] = None
) -> tuple[Tensor, Tensor]:
    """The length of the boundary (marching squares, through edge midpoints) in a 2x2 cell for each
    of its 16 neighbour codes, with pixel size ``spacing``, and the code kernel.

    One or three corners inside: a diagonal of half the cell; two adjacent: a straight segment
    across (as long as the cell along the side the two share); two opposite: two diagonals.

    >>> table, kernel = table_contour_length((2, 2))
    >>> table
    tensor([0.0000, 1.4142, 1.4142, 2.0000, 1.4142, 2.0000, 2.8284, 1.4142, 1.4142,
            2.8284, 2.0000, 1.4142, 2.0000, 1.4142, 1.4142, 0.0000])
    >>> kernel
    tensor([[[[8, 4],
              [2, 1]]]])
    """
    if not isinstance(spacing, (tuple, list)) or len(spacing) != 2:
        raise ValueError(f"Argument `spacing` must be a tuple of length 2, got {spacing!r}")
    first, second = spacing
    diagonal = 0.5 * math.sqrt(first**2 + second**2)
    lengths = []
    corners = list(itertools.product((0, 1), repeat=2))  # corner (a, b) is bit 3 - (2a + b)
    for code in range(16):
        inside = [corner for index, corner in enumerate(corners) if code >> (3 - index) & 1]
        if len(inside) in (1, 3):
            lengths.append(diagonal)
        elif len(inside) == 2:
            (a1, b1), (a2, b2) = inside
            lengths.append(second if a1 == a2 else first if b1 == b2 else 2 * diagonal)
        else:
            lengths.append(0.0)
    return torch.tensor(lengths, dtype=torch.float32, device=device), _kernel(2, device)


@functools.lru_cache
def table_surface_area(
    spacing: tuple[int, int, int], device: Optional[torch.device] = None
) -> tuple[Tensor, Tensor]:
    """The area of the boundary surface (marching cubes) in a 2x2x2 cell for each of its 256
    neighbour codes, with voxel size ``spacing``, and the code kernel (cached).

    >>> table, kernel = table_surface_area((1, 1, 1))
    >>> table[[1, 3, 15]]
    tensor([0.2165, 0.7071, 1.0000])
    """
    if not isinstance(spacing, (tuple, list)) or len(spacing) != 3:
        raise ValueError(f"Argument `spacing` must be a tuple of length 3, got {spacing!r}")
    return surface_area_table(tuple(spacing), device), _kernel(3, device)
