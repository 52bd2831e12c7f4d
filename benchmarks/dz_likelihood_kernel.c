/*
 * Hand-written C kernel of the whole D0 -> K- pi+ pi0 likelihood value, the
 * limit against which benchmarks/bench_gap.py measures vecampfit's full path
 * (Likelihood with cache="never").
 *
 *     F = -2 sum_i ln(S_i / I),   I = sum_j S_j,
 *
 * over data events i and (unweighted) MC events j, S = |A|^2 the CLEO model
 * of dz_density_kernel.c (the same resonance code, included here), fused:
 * one loop over the MC summing S, one over the data summing ln S, no array of
 * densities written.  Sums in double; REAL (the event fields and the
 * amplitude arithmetic) is double, or float with -DSINGLE.  Meant to be
 * compiled with -O3 -march=native -ffast-math (or -Ofast -flto), so that the
 * compiler reorders the sums and vectorizes the logarithm (glibc libmvec).
 */
#include "dz_density_kernel.c"

/* S at event i of fields (structure of arrays, order of model.EVENT_FIELDS). */
static inline __attribute__((always_inline)) REAL density_at(
    const struct res_const *c, const REAL *restrict const *m_ch, const REAL *restrict const *q_ch,
    const REAL *restrict const *p_ch, REAL rd2r, REAL nre, REAL nim, long i)
{
    REAL are = nre, aim = nim;
    add_resonance(&are, &aim, &c[0], m_ch, q_ch, p_ch, rd2r, i, PIP_PIZ, 1);
    add_resonance(&are, &aim, &c[1], m_ch, q_ch, p_ch, rd2r, i, KM_PIZ, 1);
    add_resonance(&are, &aim, &c[2], m_ch, q_ch, p_ch, rd2r, i, KM_PIP, 1);
    add_resonance(&are, &aim, &c[3], m_ch, q_ch, p_ch, rd2r, i, KM_PIZ, 0);
    add_resonance(&are, &aim, &c[4], m_ch, q_ch, p_ch, rd2r, i, KM_PIP, 0);
    add_resonance(&are, &aim, &c[5], m_ch, q_ch, p_ch, rd2r, i, PIP_PIZ, 1);
    add_resonance(&are, &aim, &c[6], m_ch, q_ch, p_ch, rd2r, i, KM_PIZ, 1);
    return are * are + aim * aim;
}

static void constants(struct res_const *c, const double *par, const double *mass, REAL *rd2r,
                      REAL *nre, REAL *nim)
{
    double deg = M_PI / 180, rd2 = par[0] * par[0];
    for (int k = 0; k < N_RES; k++) {
        const double *p = par + 1 + 5 * k;
        int ch = res_channel[k], j = res_spin[k];
        double ma = mass[ch_a[ch]], mb = mass[ch_b[ch]], mc = mass[ch_c[ch]], md = mass[PD];
        double q0 = sqrt(q2_breakup(p[0], ma, mb));
        double r2 = p[2] * p[2], m02 = p[0] * p[0];
        c[k] = (struct res_const){
            (REAL)(p[3] * cos(p[4] * deg)), (REAL)(p[3] * sin(p[4] * deg)), (REAL)m02,
            (REAL)(m02 * p[1]), (REAL)(1 / q0), (REAL)sqrt(bw_poly(q0 * q0 * r2, j)),
            (REAL)(res_omit_fd0[k] ? 1.0 : sqrt(bw_poly(q2_breakup(md, p[0], mc) * rd2, j))),
            (REAL)((md * md - mc * mc) * (mb * mb - ma * ma) / m02), (REAL)r2};
    }
    *rd2r = (REAL)rd2;
    *nre = (REAL)(par[36] * cos(par[37] * deg));
    *nim = (REAL)(par[36] * sin(par[37] * deg));
}

/* F = -2 sum_data ln(S / I), I = sum_MC S. */
double CAT(dz_likelihood, REAL)(const REAL *const *data, long n_data, const REAL *const *mc,
                                long n_mc, const double *par, const double *mass)
{
    struct res_const c[N_RES];
    REAL rd2r, nre, nim;
    constants(c, par, mass, &rd2r, &nre, &nim);
    const REAL *restrict mm[3] = {mc[0], mc[1], mc[2]};
    const REAL *restrict mq[3] = {mc[3], mc[4], mc[5]};
    const REAL *restrict mp[3] = {mc[6], mc[7], mc[8]};
    double integral = 0;
    for (long i = 0; i < n_mc; i++)
        integral += density_at(c, mm, mq, mp, rd2r, nre, nim, i);
    const REAL *restrict dm[3] = {data[0], data[1], data[2]};
    const REAL *restrict dq[3] = {data[3], data[4], data[5]};
    const REAL *restrict dp[3] = {data[6], data[7], data[8]};
    double sum_log = 0;
    for (long i = 0; i < n_data; i++)
        sum_log += log((double)density_at(c, dm, dq, dp, rd2r, nre, nim, i));
    return -2 * (sum_log - (double)n_data * log(integral));
}
