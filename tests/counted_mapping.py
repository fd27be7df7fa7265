"""A stand-in for `Mapping` in a ragmon module, to show that a hot path tells values by their type: a check
against the abstract class costs far more than `type(value) is dict`, per span and per example."""

from __future__ import annotations

import collections.abc


class CountedMapping(type):
    """Records the type of each value checked against it (`checked`, its own list), and answers as
    `Mapping` does."""

    checked: list[type]

    def __instancecheck__(cls, value: object) -> bool:
        cls.checked.append(type(value))
        return isinstance(value, collections.abc.Mapping)


def counted_mapping() -> CountedMapping:
    return CountedMapping("Mapping", (), {"checked": []})
