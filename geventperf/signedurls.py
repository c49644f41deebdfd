"""Signed URLs: a GET whose query carries the current time together with a nonce or a
signature (an HMAC over the request, a request id), values new at every request.

A cache keyed on such a URL never hits, however often the same thing is asked for (an
unseen enricher signed each team lookup with a timestamp, a nonce and an HMAC, then kept
the answers under the signed URL: 600 lookups of 24 teams, no hit, and the pool watch
counted 600 different URLs).  With those values set aside, the URL says what was asked
for: ``stable_key`` returns it, or None for a URL that is not signed so.

Both kinds must be there: a query with only a time (``since=``, a poll's cursor) or only
a long hex value or UUID (an object's id, a commit's hash) asks for what it names.
"""

from __future__ import annotations

import re

# A query value that may be a time, a nonce or a signature: the cheap test every GET
# with a query pays; the exact tests below run only when it matches.
_MAYBE = re.compile(r"=(?:[0-9A-Fa-f-]{16,}|[0-9A-Za-z_-]{22,}={0,2}|1\d{9}(?:\.\d+)?|1\d{12})(?:[&#]|$)")
# The current time in seconds (decimals allowed) or milliseconds since the epoch.
_EPOCH_S = re.compile(r"1\d{9}(?:\.\d+)?")
_EPOCH_MS = re.compile(r"1\d{12}")
# A time this close to the clock's is the request's own, not a stored one.
NOW_WITHIN_S = 24 * 3600
# A nonce, a request id or a signature: hex of at least 16 digits (an HMAC-SHA256 is
# 64), a UUID, or base64 of at least 22 characters (16 bytes), each with letters and
# digits mixed (a long run of digits alone is a number: an order's, an account's).
_HEX = re.compile(r"[0-9A-Fa-f]{16,}")
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_BASE64 = re.compile(r"[0-9A-Za-z_-]{22,}={0,2}")
# What stands for a value set aside in a stable key.
SET_ASIDE = "*"


def _is_now(value: str, now: float) -> bool:
    if _EPOCH_S.fullmatch(value):
        return abs(float(value) - now) <= NOW_WITHIN_S
    if _EPOCH_MS.fullmatch(value):
        return abs(int(value) / 1000.0 - now) <= NOW_WITHIN_S
    return False


def _is_nonce(value: str) -> bool:
    if _UUID.fullmatch(value):
        return True
    if not (_HEX.fullmatch(value) or _BASE64.fullmatch(value)):
        return False
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def stable_key(url: str, now: float) -> tuple[str, list[str]] | None:
    """(*url* with its time, nonces and signatures set aside, the names of the parameters
    set aside), or None when *url* is not signed so (see the module's text)."""
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
        elif _is_nonce(value):
            nonced.append(i)
    if not timed or not nonced:
        return None
    names = []
    for i in sorted(timed + nonced):
        name = pieces[i].partition("=")[0]
        pieces[i] = f"{name}={SET_ASIDE}"
        names.append(name)
    return f"{base}?{'&'.join(pieces)}{hash_mark}{fragment}", names
