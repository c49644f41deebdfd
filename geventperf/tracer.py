class TracerError(RuntimeError): pass
class Tracer: pass
