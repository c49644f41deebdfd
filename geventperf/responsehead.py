"""http.client's response head, with a plain header block parsed without the email package.

http.client hands every response's header block to ``email.parser``, a feed parser
built for mail: about 50 us for five headers, a tenth of a small request's CPU on the
fast path.  For a *plain* block, that parser's result is known in advance: every line
is ``name:value`` ending in CRLF or LF, the name made of the characters the email
parser accepts in one (``email.feedparser.headerRE``), no CR or LF inside the line, and
a blank line at the end.  The parser then makes one ``(name, value)`` pair per line,
the value stripped of leading spaces and tabs and of trailing CR and LF
(``email._policybase.Compat32.header_source_parse``), with no defects and an empty
payload; :func:`parse_headers` builds that ``HTTPMessage`` directly.  Any other block
(a continuation line, a line without a colon, a stray CR, the end of the stream before
the blank line) goes to the email parser exactly as http.client sends it.

:class:`QuickHTTPResponse` runs http.client's own ``HTTPResponse.begin`` (the running
Python's code object, not a copy of its source) with only ``parse_headers`` swapped,
so the status line, the limits on line length and header count, and every attribute
``begin`` sets stay http.client's.  ``tests/test_quickhttp.py`` compares both on
plain and odd header blocks.  This module imports nothing of the profiler.
"""

from __future__ import annotations

import email.parser
import http.client
import re
import types
from typing import Any

__all__ = ["QuickHTTPResponse", "parse_headers"]

# One plain header line: a name of the characters email.feedparser.headerRE accepts
# before a colon (printable ASCII but the colon; at least one, since an empty name is a
# defect there), then anything but CR and LF, then the line end.  A CR elsewhere would
# end a line for the email parser, which splits on CR, LF and CRLF alike.
_PLAIN_LINE = re.compile(rb"[!-9;-~]+:[^\r\n]*\r?\n")
_BLANK_LINES = (b"\r\n", b"\n")


def _email_parse(lines: list[bytes]) -> http.client.HTTPMessage:
    """What http.client does with the lines (3.12+ names it ``_parse_header_lines``)."""
    parse_lines = getattr(http.client, "_parse_header_lines", None)
    if parse_lines is not None:
        return parse_lines(lines)
    text = b"".join(lines).decode("iso-8859-1")
    return email.parser.Parser(_class=http.client.HTTPMessage).parsestr(text)


def parse_headers(fp: Any) -> http.client.HTTPMessage:
    """``http.client.parse_headers(fp)``: the same lines read under the same limits
    (``LineTooLong``, more than ``http.client._MAXHEADERS``), the same message."""
    lines = http.client._read_headers(fp)
    if lines[-1] not in _BLANK_LINES:
        return _email_parse(lines)
    pairs = []
    for line in lines[:-1]:
        if _PLAIN_LINE.fullmatch(line) is None:
            return _email_parse(lines)
        name, _, value = line.decode("iso-8859-1").partition(":")
        pairs.append((name, value.lstrip(" \t").rstrip("\r\n")))
    message = http.client.HTTPMessage()
    message._headers = pairs
    message._payload = ""  # the email parser's payload of a head: nothing after it
    return message


def _begin_with_quick_headers() -> Any:
    """http.client's ``HTTPResponse.begin`` with its global ``parse_headers`` ours.

    Built from the running Python's own code object, over a namespace of the
    http.client globals it reads, so nothing of it is copied here; ``None`` where that
    code reads something unexpected (a closure), and the quick response is then
    http.client's own."""
    code = http.client.HTTPResponse.begin.__code__
    if code.co_freevars:
        return None
    namespace = {name: getattr(http.client, name) for name in code.co_names
                 if hasattr(http.client, name)}
    namespace["parse_headers"] = parse_headers
    namespace["__builtins__"] = __builtins__
    return types.FunctionType(code, namespace, "begin")


_BEGIN = _begin_with_quick_headers() if hasattr(http.client, "_read_headers") else None


class QuickHTTPResponse(http.client.HTTPResponse):
    """``http.client.HTTPResponse`` whose header block, when plain, skips the email
    parser (see the module's text)."""

    if _BEGIN is not None:
        begin = _BEGIN
