"""One-off URLs: a GET whose query carries values new at every request -- the current
time with a nonce or a signature (an HMAC over the request, a request id), or a
tracking token a feed or a redirect hands out anew each time.

A cache keyed on such a URL never hits, however often the same thing is asked for (an
unseen enricher signed each team lookup with a timestamp, a nonce and an HMAC, then kept
the answers under the signed URL: 600 lookups of 24 teams, no hit; an unseen podcast
crawler kept its HEAD checks under enclosure URLs whose ``_tk`` token its feeds renewed
at every fetch: 7 200 checks of 2 400 files).  With those values set aside, the URL says
what was asked for: ``stable_key`` returns it, or None for a URL that carries none.

What is set aside, and what is not:

* the current time (seconds or milliseconds since the epoch, within a day of the clock)
  only beside a nonce: a time alone (``since=``, a poll's cursor) asks for what it names;
* a nonce, token or signature -- hex of at least 8 digits, a UUID, base64 of at least 16
  characters, letters and digits mixed -- unless its parameter's name says it names
  something (``id``, ``user_id``, ``sha``, ``key``, ``cursor``, ``page`` ...: an object's
  id, a commit, a page of a walk).
"""

from __future__ import annotations

import re

# A query value that may be a time, a nonce or a token: the cheap test every GET with a
# query pays; the exact tests below run only when it matches.
_MAYBE = re.compile(r"=(?:[0-9A-Fa-f-]{8,}|[0-9A-Za-z_-]{16,}={0,2}|1\d{9}(?:\.\d+)?|1\d{12})"
                    r"(?:[&#]|$)")
# The current time in seconds (decimals allowed) or milliseconds since the epoch.
_EPOCH_S = re.compile(r"1\d{9}(?:\.\d+)?")
_EPOCH_MS = re.compile(r"1\d{12}")
# A time this close to the clock's is the request's own, not a stored one.
NOW_WITHIN_S = 24 * 3600
# A nonce, a token or a signature: hex of at least 8 digits (an HMAC-SHA256 is 64), a
# UUID, or base64 of at least 16 characters (12 bytes), each with letters and digits
# mixed (a run of digits alone is a number: an order's, an account's).
_HEX = re.compile(r"[0-9A-Fa-f]{8,}")
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_BASE64 = re.compile(r"[0-9A-Za-z_-]{16,}={0,2}")
# A parameter whose name says its value names something: an id, a digest, a key, a
# version, a page of a walk (its value is what is asked for, however random it looks).
_NAMES_SOMETHING = re.compile(
    r"(?:^|[_.-])(?:id|ids|uid|guid|uuid|oid|key|keys|sha\d*|hash|digest|md5|etag|ref|rev"
    r"|version|commit|cursor|after|before|since|until|next|page|offset|continuation)$",
    re.IGNORECASE)
_NAMES_SOMETHING_CAMEL = re.compile(r"[a-z0-9](?:Id|ID|Ids|Key|Hash|Ref)$")  # userId
# What stands for a value set aside in a stable key.
SET_ASIDE = "*"


def _is_now(value: str, now: float) -> bool:
    if _EPOCH_S.fullmatch(value):
        return abs(float(value) - now) <= NOW_WITHIN_S
    if _EPOCH_MS.fullmatch(value):
        return abs(int(value) / 1000.0 - now) <= NOW_WITHIN_S
    return False


def _is_nonce(name: str, value: str) -> bool:
    if _NAMES_SOMETHING.search(name) or _NAMES_SOMETHING_CAMEL.search(name):
        return False
    if _UUID.fullmatch(value):
        return True
    if not (_HEX.fullmatch(value) or _BASE64.fullmatch(value)):
        return False
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def stable_key(url: str, now: float) -> tuple[str, list[str]] | None:
    """(*url* with its one-off values set aside, the names of the parameters set
    aside), or None when *url* carries none (see the module's text)."""
    base, mark, query = url.partition("?")
    if not mark or _MAYBE.search(query) is None:
        return None
    query, hash_mark, fragment = query.partition("#")
    pieces = query.split("&")
    timed, nonced = [], []
    for i, piece in enumerate(pieces):
        name, eq, value = piece.partition("=")
        if not eq:
            continue
        if _is_now(value, now):
            timed.append(i)
        elif _is_nonce(name, value):
            nonced.append(i)
    if not nonced:
        return None
    names = []
    for i in sorted(timed + nonced):
        name = pieces[i].partition("=")[0]
        pieces[i] = f"{name}={SET_ASIDE}"
        names.append(name)
    return f"{base}?{'&'.join(pieces)}{hash_mark}{fragment}", names
