"""The foundations: what every room of gradlib stands on (docs/architecture.md). They import nothing of gradlib
but each other.

- ``_errors``   the error and warning classes, and the one-line gist of an error
- ``_limits``   the limits table (``LIMITS``) and the largest size that fits one
- ``_format``   numbers and ratios as the library and the app print them
- ``_cache``    bounded caches of traced functions and computed results
- ``_runtime``  one call at a time on the engine (``work_slot``), NumPy answers, the tape warnings
"""
