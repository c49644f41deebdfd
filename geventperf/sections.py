def section(name, c=False): raise NotImplementedError
