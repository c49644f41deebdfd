"""Pages fetched by a cursor: calls that each need the one before.

A reader that pages through an API by a cursor (``?cursor=...``, ``?after=...``,
``?page_token=...``) cannot make its calls together: each page's address is in the
answer before it.  Findings that tell calls made in turn (``serial-bottleneck``'s busy
feeder, ``sequential-calls``) hedge on it in general; where the URLs the line asked for
carry a cursor, they can say so for certain, and that the lever is fewer, larger pages
(an unseen feed relay's follower and an unseen audit job's reader, both paging by a
cursor, were told to do their work concurrently: 48 workers instead of 12 ran 13 %
slower, 16 instead of 8 gained nothing).

From the pool watch: the hosts whose ``call_sites`` include the line, and the URLs of
their ``top_gets`` (the most asked, each asked once when paged).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from geventperf.findings.common import _events
from geventperf.frames import frame_line
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows

# A query parameter that carries where the previous page ended (cursor pagination, as
# the common APIs name it); an offset or a page number does not: those pages can be
# asked for together.
CURSOR_PARAM = re.compile(
    r"[?&](cursor|after|before|starting_after|ending_before|page_?token|next_?token|"
    r"continuation(?:_?token)?|marker|since_id|max_id|scroll_id|next)=", re.IGNORECASE)
# A query parameter that sets the page's size.
SIZE_PARAM = re.compile(r"[?&](limit|page_?size|per_?page|count|max_?results|size)=(\d+)",
                        re.IGNORECASE)


class Paging(NamedTuple):
    """How a line paged by a cursor: the host, the cursor's parameter and the page
    size's (parameter, value) where the URLs set one."""

    host: str
    cursor: str
    size: tuple[str, int] | None

    def told(self) -> str:
        return (f"its requests to {self.host} page by a cursor ({self.cursor}=..."
                + (f", {self.size[0]}={self.size[1]}" if self.size else "")
                + "): each page's address is in the answer before it, so they cannot be "
                "made together, and that chain is the floor: fewer, larger pages are the "
                "lever (" + (f"a larger {self.size[0]}=" if self.size else
                             "a limit= or page_size= parameter") + ", where the API allows)")


def cursor_paging(profile: Any, site: str | None) -> Paging | None:
    """The cursor paging of the requests made at the program's line *site* (a
    ``path:line:function`` frame), from the hosts that line called; None when none of
    their URLs carries a cursor."""
    line = frame_line(site)
    if line is None:
        return None
    for e in _events(profile, POOL_EVENT):
        if not any(frame_line(s) == line for s, _n in count_rows(e.get("call_sites"))):
            continue
        for url, _n in count_rows(e.get("top_gets")):
            cursor = CURSOR_PARAM.search(url)
            if cursor is not None:
                size = SIZE_PARAM.search(url)
                return Paging(str(e.get("pool")), cursor.group(1),
                              (size.group(1), int(size.group(2))) if size else None)
    return None
