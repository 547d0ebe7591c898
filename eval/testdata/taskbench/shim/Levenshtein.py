# python-Levenshtein's ratio (rapidfuzz-based, >= 0.21): the normalised
# Indel similarity, 1 - indel / (len(a) + len(b)), 1.0 for two empty
# sequences. Debian's python3-levenshtein 0.12 computes the same for
# strings but refuses lists, which evaluate.py passes.
def ratio(a, b):
    a, b = list(a), list(b)
    total = len(a) + len(b)
    if total == 0:
        return 1.0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b):
            cur[j + 1] = prev[j] + 1 if x == y else max(prev[j + 1], cur[j])
        prev = cur
    return 1 - (total - 2 * prev[-1]) / total
