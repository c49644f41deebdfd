"""The profiler's collection side, one module per concern (``geventperf.tracer`` holds
the Tracer and its hook; these are the parts it is made of)."""
