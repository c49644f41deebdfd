class BodyTooLarge(Exception): pass
class BodyTimeout(Exception): pass
class GeventAdapter: pass
def mount(session, **kw): raise NotImplementedError
