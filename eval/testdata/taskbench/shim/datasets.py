# Stub: evaluate.py imports load_metric at the top; only the rouge and
# bertscore metrics (not asked for here) call it.
def load_metric(name):
    raise RuntimeError("load_metric(%r) is stubbed out" % name)
