FORMATS = ()
def render(profile, fmt): raise NotImplementedError
def write(profile, path, fmt=None): raise NotImplementedError
