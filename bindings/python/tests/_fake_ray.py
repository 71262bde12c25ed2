"""Ray's task API as mfusim.sweep's Ray backend uses it, run inline, for tests on machines without Ray."""

from __future__ import annotations

import types


class FakeRay(types.ModuleType):
    """Ray's task API as the backend uses it (remote, wait, get, init), run inline: the backend's scheduling and
    reassembly are tested where Ray is not installed."""

    def __init__(self):
        super().__init__("ray")
        self.initialized, self.most_in_flight, self._in_flight = False, 0, set()

    def is_initialized(self):
        return self.initialized

    def init(self):
        self.initialized = True

    def remote(self, **_resources):
        def wrap(fn):
            fake = self

            class Task:
                @staticmethod
                def remote(*args):
                    ref = object()
                    fake._results = getattr(fake, "_results", {})
                    fake._results[ref] = fn(*args)
                    fake._in_flight.add(ref)
                    fake.most_in_flight = max(fake.most_in_flight, len(fake._in_flight))
                    return ref

            return Task

        return wrap

    def wait(self, refs, num_returns=1):
        done = refs[-num_returns:]  # out of order, as a cluster finishes them
        return done, [r for r in refs if r not in done]

    def get(self, ref):
        self._in_flight.discard(ref)
        return self._results.pop(ref)
