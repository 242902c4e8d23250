"""Space-time mappings written as a PE tuple and a time tuple over the loops of one statement
(the affine points of the design space, the mappings derived from schedules): their name, their
stamps and their dataflow spec, in one place."""

from __future__ import annotations

from abc import ABC, abstractmethod

from tenet.spec.dataflow import DataflowSpec, stamp_texts

__all__ = ["TupleMapping"]


class TupleMapping(ABC):
    """A mapping of the loops ``loops`` of statement ``statement`` given by the isl texts of
    its PE tuple (``pe_text``) and its time tuple (``time_text``)."""

    statement: str
    loops: tuple[str, ...]

    @property
    @abstractmethod
    def pe_text(self) -> str:
        """The PE tuple, e.g. ``PE[i % 8, j % 8]``."""

    @property
    @abstractmethod
    def time_text(self) -> str:
        """The time tuple, e.g. ``T[floor(i / 8), k]``."""

    @property
    def stamp_texts(self) -> tuple[str, str]:
        """The isl texts of the space-stamp ``{ S[...] -> PE[...] }`` and the time-stamp
        ``{ S[...] -> T[...] }``."""
        return stamp_texts(self.statement, self.loops, self.pe_text, self.time_text)

    @property
    def name(self) -> str:
        """A readable name: the PE and time tuples."""
        return f"{self.pe_text} {self.time_text}"

    def spec(self) -> DataflowSpec:
        """Return the dataflow as a :class:`~tenet.spec.DataflowSpec` (isl text)."""
        return DataflowSpec.from_tuples(self.statement, self.loops, self.pe_text, self.time_text)
