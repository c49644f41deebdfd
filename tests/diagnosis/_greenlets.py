"""Imported by the workloads here (their directory is on sys.path when ``geventperf run``
or ``python`` runs them): start a greenlet under the name the findings must give."""

import gevent


def spawn(name, func, *args):
    g = gevent.Greenlet(func, *args)
    g.name = name
    g.start()
    return g
