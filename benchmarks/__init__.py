"""The project's benchmark commands (tools, not library code; they use gradlib's public API only).

    python -m benchmarks.mlp           # the seed loop, every gradlib method, auto, evaluate and JAX on a tanh MLP
    python -m benchmarks.per_example   # per-example gradients of a training loss, every way side by side
    python -m benchmarks.scan          # gradlib.scan over a data set against plain batch gradients
"""
