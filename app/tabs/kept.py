"""What a tab keeps per setting, bounded (issue 19: memory grew by about a gigabyte over a
few hundred random actions, because a tab kept one model per setting ever visited, each
with its optimiser state, its rollback copy and its data, and never let one go).

``Kept`` is the dict a tab keeps its sessions (or other per-setting results) in. It
remembers the order of use and holds at most ``limit`` entries; beyond that the least
recently used entry goes, with this policy:

* never the entries ``pinned()`` names: the one on screen and the one a job trains;
* first the entries that cost nothing to make again (``precious(value)`` false: an
  untrained model is rebuilt identically, from its seed, when its setting comes back);
* then the least recently used precious one (a trained model).

``dropped(key, value, lost)`` is called for every entry let go (``lost``: it was
precious), so the tab forgets what belonged to it (histories, marks) and, for a trained
model, says so.

Reading an entry (``[]``, ``get``, ``in`` does not) makes it the most recently used.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, MutableMapping


class Kept(MutableMapping):
    def __init__(self, limit: int, pinned: Callable[[], Iterable[Hashable]] = tuple,
                 precious: Callable[[object], bool] = lambda value: True,
                 dropped: Callable[[Hashable, object, bool], None] | None = None) -> None:
        if limit < 1:
            raise ValueError("Kept needs a limit of at least 1.")
        self.limit = limit
        self._pinned, self._precious, self._dropped = pinned, precious, dropped
        self._items: OrderedDict = OrderedDict()

    # -- the mapping ---------------------------------------------------------------------------------
    def __getitem__(self, key):
        value = self._items[key]
        self._items.move_to_end(key)
        return value

    def __setitem__(self, key, value) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        self.trim()

    def __delitem__(self, key) -> None:
        del self._items[key]

    def __iter__(self) -> Iterator:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items

    def values(self):      # lists: safe to iterate while entries come and go, and reading
        return list(self._items.values())      # them all changes no order of use

    def items(self):
        return list(self._items.items())

    def __repr__(self) -> str:
        return f"Kept(limit={self.limit}, keys={list(self._items)!r})"

    # -- the bound -----------------------------------------------------------------------------------
    def trim(self) -> list:
        """Drop entries until at most ``limit`` are left (pinned ones are never dropped,
        so more may stay); returns the dropped keys, least recently used first."""
        gone = []
        while len(self._items) > self.limit:
            pinned = set(self._pinned() or ())
            candidates = [k for k in self._items if k not in pinned]
            if not candidates:
                break
            cheap = [k for k in candidates if not self._precious(self._items[k])]
            key = (cheap or candidates)[0]
            value = self._items.pop(key)
            gone.append(key)
            if self._dropped is not None:
                self._dropped(key, value, not cheap)
        return gone
