"""jsonfile.py - reading the benchmarks' JSON files for the renderers
(benchjson.py, nativejson.py): one error type whose message says which
file and why, and one loader that raises it."""
import json


class Bad(Exception):
    """A file that cannot be rendered or trusted; the message says which and why."""


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Bad("%s %s: cannot read: %s" % (what, path, e.strerror))
    except json.JSONDecodeError as e:
        raise Bad("%s %s is not valid JSON (line %d column %d: %s)" % (what, path, e.lineno, e.colno, e.msg))
