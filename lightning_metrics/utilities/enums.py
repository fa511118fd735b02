"""torchmetrics' string enums (``utilities.enums``): members compare equal to their value, case-insensitively."""

from __future__ import annotations

from enum import Enum


class EnumStr(str, Enum):
    """A string enum that equals its value in any case; ``from_str`` finds a member by key or value.

    >>> class Fruit(EnumStr):
    ...     APPLE = "apple"
    >>> Fruit.APPLE == "Apple", Fruit.from_str("apple")
    (True, <Fruit.APPLE: 'apple'>)
    >>> Fruit.from_str("pear")
    Traceback (most recent call last):
    ...
    ValueError: Invalid Task: expected one of ['apple'], but got pear.
    """

    @staticmethod
    def _name() -> str:
        return "Task"

    @classmethod
    def _allowed_matches(cls, source: str) -> list[str]:
        keys = [key.lower() for key in cls.__members__]
        values = [member.value for member in cls.__members__.values()]
        return {"key": keys, "value": values}.get(source, keys + values)

    @classmethod
    def from_str(cls, value: str, source: str = "key") -> "EnumStr":
        """The member whose key (``source="key"``), value (``"value"``) or either (``"any"``) matches."""
        wanted = value.replace("-", "_").lower()
        for key, member in cls.__members__.items():
            if source in ("key", "any") and key.lower() == wanted:
                return member
            if source in ("value", "any") and str(member.value).lower() == value.lower():
                return member
        raise ValueError(f"Invalid {cls._name()}: expected one of {cls._allowed_matches(source)}, but got {value}.")

    def __eq__(self, other: object) -> bool:
        other = other.value if isinstance(other, Enum) else other
        return str(self.value).lower() == str(other).lower()

    def __hash__(self) -> int:
        return hash(str(self.value).lower())


class DataType(EnumStr):
    """The kind of classification data.

    >>> "Binary" in list(DataType)
    True
    """

    @staticmethod
    def _name() -> str:
        return "Data type"

    BINARY = "binary"
    MULTILABEL = "multi-label"
    MULTICLASS = "multi-class"
    MULTIDIM_MULTICLASS = "multi-dim multi-class"


class AverageMethod(EnumStr):
    """The averages of per-class values.

    >>> AverageMethod.NONE == None, AverageMethod.NONE == "none"
    (True, True)
    """

    @staticmethod
    def _name() -> str:
        return "Average method"

    MICRO = "micro"
    MACRO = "macro"
    WEIGHTED = "weighted"
    NONE = None
    SAMPLES = "samples"


class MDMCAverageMethod(EnumStr):
    """Averages over the extra dimensions of multi-dimensional inputs.

    >>> MDMCAverageMethod.from_str("global")
    <MDMCAverageMethod.GLOBAL: 'global'>
    """

    @staticmethod
    def _name() -> str:
        return "MDMC Average method"

    GLOBAL = "global"
    SAMPLEWISE = "samplewise"


class _ClassificationEnum(EnumStr):
    """The base of the classification task enums: one name for their error messages."""

    @staticmethod
    def _name() -> str:
        return "Classification"


class ClassificationTask(_ClassificationEnum):
    """The three classification tasks.

    >>> ClassificationTask.from_str("multiclass") == "multiclass"
    True
    """

    BINARY = "binary"
    MULTICLASS = "multiclass"
    MULTILABEL = "multilabel"


class ClassificationTaskNoBinary(_ClassificationEnum):
    """The classification tasks other than binary.

    >>> "binary" in list(ClassificationTaskNoBinary)
    False
    """

    MULTILABEL = "multilabel"
    MULTICLASS = "multiclass"


class ClassificationTaskNoMultilabel(_ClassificationEnum):
    """The classification tasks other than multilabel.

    >>> "multilabel" in list(ClassificationTaskNoMultilabel)
    False
    """

    BINARY = "binary"
    MULTICLASS = "multiclass"


__all__ = [
    "AverageMethod",
    "ClassificationTask",
    "ClassificationTaskNoBinary",
    "ClassificationTaskNoMultilabel",
    "DataType",
    "EnumStr",
    "MDMCAverageMethod",
]
