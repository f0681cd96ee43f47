"""What the Python self-tests share: a check that stops the test at its first failure, saying
which, and a helper for checks that a call raises."""
import sys


def expect(cond, what):
    """Stops the test (exit 1) with FAILED: what, unless cond holds; prints ok: what."""
    if not cond:
        print("FAILED:", what)
        sys.exit(1)
    print("ok:", what)


def raises(kind, call, text=""):
    """Whether call() raises kind with text in its message."""
    try:
        call()
    except kind as e:
        return text in str(e)
    return False
