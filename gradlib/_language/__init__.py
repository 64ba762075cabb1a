"""The function language: text -> checked tree -> TensorFlow ops, or TensorFlow code to copy.

A room of the library (docs/architecture.md): it imports only the foundations (``gradlib._foundations._errors``,
``_limits``, ``_format``, ``_cache``, ``_runtime``). ``_syntax`` parses and checks a typed function,
``_operations`` is the table of operations and functions, ``_inputs`` reads the watched values, ``_codegen``
writes the TensorFlow program, ``_presets`` holds the example functions.
"""

__all__: list[str] = []
