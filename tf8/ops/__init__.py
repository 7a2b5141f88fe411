"""tf8's vocabulary: dtypes, symbolic shapes, the primitive catalog and its numpy kernels."""
