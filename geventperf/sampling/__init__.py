"""CPU sampling: where each greenlet spends its CPU, by Python stack.

``sampler`` collects (a ``SIGPROF`` handler on CPU time, tagged with the running
greenlet and its open sections); ``model`` is the plain, saveable result kept in a
:class:`~geventperf.profile.Profile` (``cpu_samples``); ``views`` turns it into the
per-function and per-stack figures the formats and findings read.
"""
