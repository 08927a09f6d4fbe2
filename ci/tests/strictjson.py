"""strictjson.py - json.load for the tests' readers of bzpack's JSON
(--info --json, bench --json): a key written twice is an error, where
json.load would keep the last one without a word."""
import json


def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("key %r twice" % k)
        d[k] = v
    return d


def load(path):
    with open(path) as f:
        return json.load(f, object_pairs_hook=_no_duplicates)
