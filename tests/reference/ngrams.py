"""Word n-grams, hashed: how the own-words test compares a summary with a sentence it may not
hold. Text is lower-cased and split on anything that is not a letter or digit."""

from __future__ import annotations

import hashlib


def words(text: str) -> list[str]:
    return "".join(c if c.isalnum() else " " for c in text.lower()).split()


def hashed_grams(text: str, n: int) -> set[str]:
    """The first 16 hex digits of the SHA-256 of each run of N words, joined by spaces."""
    w = words(text)
    return {
        hashlib.sha256(" ".join(w[i : i + n]).encode()).hexdigest()[:16]
        for i in range(len(w) - n + 1)
    }
