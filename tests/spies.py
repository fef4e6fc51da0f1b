"""Call counters for the tests that specify the work a cache, a warm start or a fast path
saves (the results are the same either way; only the work differs)."""

from __future__ import annotations


def counting(monkeypatch, owner, name):
    """Replace ``owner.name`` by a wrapper that counts its calls; return the list of the
    calls' positional arguments (its length is the count)."""
    calls = []
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls
