"""What every compat scenario script shares: numbered steps, failures, and a watchdog.

Each scenario prints one line per step; a failure names the step it happened in, and a scenario
still waiting when its timeout passes exits with status 2 naming the step it is stuck at.
"""

import os
import sys
import threading

_step = "start"


def step(text):
    global _step
    _step = text
    print("step: " + text, flush=True)


def current_step():
    return _step


class ScenarioError(Exception):
    pass


def fail(text):
    raise ScenarioError(text)


def _on_deadline(seconds):
    sys.stderr.write("TIMEOUT: no progress within %ss; stuck at step: %s\n" % (seconds, _step))
    sys.stderr.flush()
    os._exit(2)


def start_watchdog(seconds):
    """Ends the process with status 2 after `seconds` (a daemon timer: it never holds the exit back)."""
    timer = threading.Timer(seconds, _on_deadline, [seconds])
    timer.daemon = True
    timer.start()
