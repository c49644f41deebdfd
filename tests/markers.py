"""Where a test file's own marked line is, for findings that name it by number."""


def line_of(path: str, marker: str) -> int:
    """The number of the first line of *path* holding *marker*."""
    with open(path) as f:
        return next(n for n, text in enumerate(f, 1) if marker in text)
