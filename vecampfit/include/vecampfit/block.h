/*
 * vecampfit block types.
 *
 * Every routine that is used inside a density works on a block of L events at
 * once, L being the compile-time constant VECAMPFIT_VECTOR_LENGTH.  A module
 * that uses the block routines is compiled once per vector length (by
 * vecampfit.model_compiler for users' models); inside one compilation both
 * precisions (float and double) are available through Cython fused types.
 *
 * A real vector is a plain C array T x[L].  A complex vector keeps its real
 * and imaginary parts in separate arrays (structure of arrays), so that a
 * loop over the L lanes vectorizes without permutations.
 */
#ifndef VECAMPFIT_BLOCK_H
#define VECAMPFIT_BLOCK_H

#ifndef VECAMPFIT_VECTOR_LENGTH
#error "VECAMPFIT_VECTOR_LENGTH is not defined: compile with -DVECAMPFIT_VECTOR_LENGTH=L (vecampfit.model_compiler.compile_model does this)"
#endif

#if VECAMPFIT_VECTOR_LENGTH < 1
#error "VECAMPFIT_VECTOR_LENGTH must be a positive integer"
#endif

typedef struct {
    float re[VECAMPFIT_VECTOR_LENGTH];
    float im[VECAMPFIT_VECTOR_LENGTH];
} vecampfit_complex_vector_float32;

typedef struct {
    double re[VECAMPFIT_VECTOR_LENGTH];
    double im[VECAMPFIT_VECTOR_LENGTH];
} vecampfit_complex_vector_float64;

#endif /* VECAMPFIT_BLOCK_H */
