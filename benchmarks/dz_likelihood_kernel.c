/*
 * Hand-written C kernel of the whole D0 -> K- pi+ pi0 likelihood value, the
 * limit against which benchmarks/bench_gap.py measures vecampfit's full path
 * (Likelihood with cache="never").
 *
 *     F = -2 sum_i ln(S_i / I),   I = sum_j S_j,
 *
 * over data events i and (unweighted) MC events j, S = |A|^2 the CLEO model
 * of dz_density_kernel.c (its constants and density_at, included here), fused:
 * one loop over the MC summing S, one over the data summing ln S, no array of
 * densities written.  Sums in double; REAL (the event fields and the
 * amplitude arithmetic) is double, or float with -DSINGLE.  Meant to be
 * compiled with -O3 -march=native -ffast-math (or -Ofast -flto), so that the
 * compiler reorders the sums and vectorizes the logarithm (glibc libmvec).
 */
#include "dz_density_kernel.c"

/* F = -2 sum_data ln(S / I), I = sum_MC S. */
double CAT(dz_likelihood, REAL)(const REAL *const *data, long n_data, const REAL *const *mc,
                                long n_mc, const double *par, const double *mass)
{
    struct res_const c[N_RES];
    REAL rd2r, nre, nim;
    constants(c, par, mass, &rd2r, &nre, &nim);
    struct event_fields fm = by_kind(mc), fd = by_kind(data);
    double integral = 0;
    for (long i = 0; i < n_mc; i++)
        integral += density_at(c, &fm, rd2r, nre, nim, i);
    double sum_log = 0;
    for (long i = 0; i < n_data; i++)
        sum_log += log((double)density_at(c, &fd, rd2r, nre, nim, i));
    return -2 * (sum_log - (double)n_data * log(integral));
}
