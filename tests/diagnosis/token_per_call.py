"""Ten greenlets each look up 30 different items; before every lookup a helper fetches
an access token, POSTing the same client credentials each time, because the token's
expiry is compared with the wrong clock (``expires_in`` taken for an absolute time).

Truth by construction: 300 token requests alike (the same URL and body) beside 300
different lookups; every token request waits for an answer that did not change.
Expected first finding ``repeated-request`` at the token POST (``diag: culprit``),
naming the token URL.  With ``token=kept`` the expiry is an absolute time and the token
is fetched once: no ``repeated-request``.
"""

import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 10
LOOKUPS = 30
EXPIRES_IN = 3600
session = requests.Session()
token = {"value": None, "expires_at": 0.0}


def access_token():
    if token["value"] is None or time.time() >= token["expires_at"]:
        session.post(f"{ARGS['base']}/token?delay=0.01",  # diag: culprit
                     data={"grant_type": "client_credentials"}, timeout=30).close()
        token["value"] = "t"
        token["expires_at"] = (time.time() + EXPIRES_IN if ARGS.get("token") == "kept"
                               else EXPIRES_IN)
    return token["value"]


def lookup(k):
    for i in range(LOOKUPS):
        session.get(f"{ARGS['base']}/item/{k * LOOKUPS + i}?delay=0.01", timeout=30,
                    headers={"Authorization": "Bearer " + access_token()}).close()


gevent.joinall([spawn("lookup", lookup, k) for k in range(GREENLETS)], raise_error=True)
