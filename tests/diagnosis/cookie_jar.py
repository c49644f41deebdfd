"""Twenty greenlets share one Session to call a kept-alive server for 300 users, at
/u/<n>/slow?delay=0&cookie=1, whose every answer sets a cookie scoped to its own path
(as a legacy upstream's JSESSIONID without ``Path=`` is scoped to the page's).

Truth by construction: the shared jar grows to 300 cookies, and requests merges it into
every request and scans it for the cookies each request carries, so the loop saturates
on cookie handling at the call line (``diag: culprit``), which the fast path cannot
cure (it skips cookie work only for an empty jar).  Expected first finding
``loop-saturated`` telling the cookie jar.  With ``cookies=refuse`` the jar's policy
refuses every cookie (the fix the finding gives): no cookie story.
"""

import http.cookiejar
import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 20
USERS = 300
CALLS = 30  # per greenlet


class Refuse(http.cookiejar.DefaultCookiePolicy):
    def set_ok(self, cookie, request):
        return False

    def return_ok(self, cookie, request):
        return False


session = requests.Session()
if ARGS.get("cookies") == "refuse":
    session.cookies.set_policy(Refuse())


def caller(k):
    for i in range(CALLS):
        user = (k * CALLS + i) * 7 % USERS
        session.get(f"{ARGS['kept']}/u/{user}/slow?delay=0&cookie=1",  # diag: culprit
                    timeout=30).close()


gevent.joinall([spawn("caller", caller, k) for k in range(GREENLETS)], raise_error=True)
