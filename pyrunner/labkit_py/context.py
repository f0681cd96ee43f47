"""What a student's host code gets besides its arrays: intermediate images, zeroing, stage marks."""


class Context:
    """`ctx` in a student's function. The harness times the whole call with events; each
    end_stage() marks the end of one stage of the pipeline (the tables show each stage's time)."""

    def __init__(self, driver, scratch):
        self._driver, self._scratch, self._marks = driver, scratch, None
        self._events = []  # made in the warm-up run: creating an event is host work, never timed

    def scratch(self, name, shape, dtype):
        """A device array of the driver's own type, kept for this image size, poisoned before every
        run (never assume it holds zeros, or last run's values)."""
        return self._scratch.get(name, shape, dtype)

    def zero(self, array):
        """Sets every byte of a device array to 0 (a memset on the device, inside the timing)."""
        self._driver.zero(array)

    def end_stage(self):
        if self._marks is not None:
            if len(self._marks) == len(self._events):
                self._events.append(self._driver.event())
            event = self._events[len(self._marks)]
            self._driver.record(event)
            self._marks.append(event)

    def _start_marks(self, marks):
        self._marks = marks
