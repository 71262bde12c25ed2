"""Exceptions: one class per libmfusim status code, all deriving from :class:`mfusim.Error`.

Each class also derives from the built-in exception a Python caller would expect for that kind of failure
(``ValueError`` for bad values, ``OSError`` for files, ``LookupError`` for unknown names, ``MemoryError``), so
``except ValueError`` keeps working around code that calls mfusim.
"""

from __future__ import annotations

from typing import Callable

__all__ = [
    "Error",
    "InvalidArgumentError",
    "FileError",
    "ParseError",
    "ConfigError",
    "UnknownNameError",
    "UnsupportedError",
    "CompatCrashError",
    "StructSizeError",
    "OutOfMemoryError",
    "InternalError",
    "NotFoundError",
    "from_status",
]


class Error(Exception):
    """A failure reported by libmfusim.

    Attributes:
        status: the library's status code (a stable number, ``MFUSIM_ERR_*`` in mfusim.h).
        message: the library's message, naming the file, line, field, request or step at fault.
    """

    status: int = -1
    """The status code (``MFUSIM_ERR_*``); a class attribute of each subclass, set per instance for unknown codes."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Callable[[int, str], Error], tuple[int, str]]:  # pickling: message and status
        return (from_status, (self.status, self.message))


class InvalidArgumentError(Error, ValueError):
    """MFUSIM_ERR_INVALID_ARGUMENT (1): a bad option or request value, or a closed estimator."""

    status = 1


class FileError(Error, OSError):
    """MFUSIM_ERR_IO (2): a file or directory is missing or unreadable."""

    status = 2


class ParseError(Error, ValueError):
    """MFUSIM_ERR_PARSE (3): malformed JSON or CSV; the message names file, line and column."""

    status = 3


class ConfigError(Error, ValueError):
    """MFUSIM_ERR_CONFIG (4): well-formed input that describes an impossible model, GPU or table."""

    status = 4


class UnknownNameError(Error, LookupError):
    """MFUSIM_ERR_UNKNOWN_NAME (5): no built-in model, GPU or quantity of that name."""

    status = 5


class UnsupportedError(Error):
    """MFUSIM_ERR_UNSUPPORTED (6): valid input the chosen model cannot evaluate."""

    status = 6


class CompatCrashError(Error):
    """MFUSIM_ERR_COMPAT_CRASH (7): infersim mode, where InferSim itself raises; the message says what."""

    status = 7


class StructSizeError(Error):
    """MFUSIM_ERR_STRUCT_SIZE (8): a struct layout the loaded library does not know (a newer caller)."""

    status = 8


class OutOfMemoryError(Error, MemoryError):
    """MFUSIM_ERR_OUT_OF_MEMORY (9)."""

    status = 9


class InternalError(Error, RuntimeError):
    """MFUSIM_ERR_INTERNAL (10): a bug in libmfusim; please report the message."""

    status = 10


class NotFoundError(Error, LookupError):
    """MFUSIM_ERR_NOT_FOUND (11): a named quantity is absent from a report (a phase that did not run)."""

    status = 11


_BY_STATUS: dict[int, type[Error]] = {
    cls.status: cls
    for cls in (
        InvalidArgumentError,
        FileError,
        ParseError,
        ConfigError,
        UnknownNameError,
        UnsupportedError,
        CompatCrashError,
        StructSizeError,
        OutOfMemoryError,
        InternalError,
        NotFoundError,
    )
}


def from_status(status: int, message: str) -> Error:
    """The exception for a status code: its class, or :class:`Error` for a code this binding does not know."""
    cls = _BY_STATUS.get(status)
    if cls is None:
        return Error(message, status)
    return cls(message)
