"""The project's benchmark commands (tools, not library code; they use gradlib's public API only).

    python -m benchmarks.mlp    # the seed loop, every gradlib method, auto, evaluate and JAX on a tanh MLP
"""
