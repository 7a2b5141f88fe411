"""tf8's benchmarks: a small interleaved-timing harness and its workloads (see run.py)."""
