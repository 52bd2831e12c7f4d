/*
 * Hand-written C kernel of the D0 -> K- pi+ pi0 signal density (CLEO model,
 * paper section 3), the yardstick for the Cython density of
 * examples/dz_kmpippiz/signal_density.pyx in benchmarks/bench_dz_density.py.
 *
 * The same formula and the same event fields (structure of arrays: invariant
 * masses m, resonance breakup momenta q and D breakup momenta p per channel)
 * as the Cython density, written the way one writes it in plain C: what
 * depends on the parameters only is computed once per call, then one loop
 * over the events that the compiler may vectorize as it sees fit.
 * REAL is double, or float with -DSINGLE (compiled once for each).
 *
 * Parameters (model.parameter_names()): D_R, then per resonance M, G, R, A,
 * P (phase in degrees), then NR_A, NR_P.  Masses: D0, K-, pi+, pi0 (GeV).
 */
#include <math.h>

#ifdef SINGLE
#define REAL float
#define SQRT sqrtf
#else
#define REAL double
#define SQRT sqrt
#endif

#define N_RES 7

enum { KM_PIP = 0, KM_PIZ = 1, PIP_PIZ = 2 };
enum { PD = 0, PKM = 1, PPIP = 2, PPIZ = 3 };

static const int res_channel[N_RES] = {PIP_PIZ, KM_PIZ, KM_PIP, KM_PIZ, KM_PIP, PIP_PIZ, KM_PIZ};
static const int res_spin[N_RES] = {1, 1, 1, 0, 0, 1, 1};
static const int res_omit_fd0[N_RES] = {0, 0, 0, 0, 0, 1, 0};
/* (A, B, C) per channel. */
static const int ch_a[3] = {PKM, PKM, PPIP};
static const int ch_b[3] = {PPIP, PPIZ, PPIZ};
static const int ch_c[3] = {PPIZ, PPIP, PKM};
/* Pair masses (M_AC, M_BC) of the spin-1 factor per channel. */
static const int ang_ac[3] = {KM_PIZ, KM_PIP, KM_PIP};
static const int ang_bc[3] = {PIP_PIZ, PIP_PIZ, KM_PIZ};

static double bw_poly(double x, int l)
{
    return l == 0 ? 1.0 : x + 1.0;
}

static inline REAL bw_poly_real(REAL x, int l)
{
    return l == 0 ? (REAL)1 : x + (REAL)1;
}

static double q2_breakup(double m, double ma, double mb)
{
    return (m * m - (ma + mb) * (ma + mb)) * (m * m - (ma - mb) * (ma - mb)) / (4 * m * m);
}

/* What one resonance needs from the parameters, in the working precision. */
struct res_const {
    REAL cre, cim, m02, m0g, iq0, if0, ifd0, angc, r2;
};

/* A += c [F_D(p)/F_D(p0)] B(m) A_J for one resonance at event i. */
static inline __attribute__((always_inline)) void add_resonance(
    REAL *are, REAL *aim, const struct res_const *c, const REAL *restrict const *m_ch,
    const REAL *restrict const *q_ch, const REAL *restrict const *p_ch, REAL rd2, long i,
    int ch, int j)
{
    REAL m = m_ch[ch][i], q = q_ch[ch][i], pd = p_ch[ch][i];
    REAL x = q * c->iq0;
    /* One division for F_R(q)/F_R(q0) = if0 / sqrt(P) and for its square over m. */
    REAL pr = bw_poly_real(q * q * c->r2, j);
    REAL u = 1 / (pr * m);
    REAL fr = c->if0 * m * SQRT(pr) * u;
    REAL fd = c->ifd0 / SQRT(bw_poly_real(pd * pd * rd2, j));
    REAL xl = j ? x : 1;
    REAL g = c->m0g * xl * xl * x * (c->if0 * c->if0 * u);
    REAL a = c->m02 - m * m;
    REAL ang = 1;
    if (j == 1) {
        REAL mac = m_ch[ang_ac[ch]][i], mbc = m_ch[ang_bc[ch]][i];
        ang = mac * mac - mbc * mbc + c->angc;
    }
    REAL w = fr * fd * ang / (a * a + g * g);
    REAL bre = a * w, bim = g * w;
    *are += c->cre * bre - c->cim * bim;
    *aim += c->cre * bim + c->cim * bre;
}

/* What the resonances need from the parameters (par, mass as in dz_density),
   computed once per call in double and rounded to the working precision: c[k]
   per resonance, the squared D radius *rd2r and the non-resonant term
   *nre + i *nim. */
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

/* The event fields (structure of arrays) by kind, per channel: invariant
   masses m, resonance breakup momenta q, D breakup momenta p. */
struct event_fields {
    const REAL *restrict m[3], *restrict q[3], *restrict p[3];
};

/* fields[9] in the order of model.EVENT_FIELDS, by kind. */
static inline struct event_fields by_kind(const REAL *const *fields)
{
    return (struct event_fields){{fields[0], fields[1], fields[2]},
                                 {fields[3], fields[4], fields[5]},
                                 {fields[6], fields[7], fields[8]}};
}

/* S = |A|^2 at event i of the fields f.  One call per resonance with
   constant channel and spin, so that each is inlined without branches and
   the event loop vectorizes. */
static inline __attribute__((always_inline)) REAL density_at(
    const struct res_const *c, const struct event_fields *f, REAL rd2r, REAL nre, REAL nim,
    long i)
{
    const REAL *restrict const *m_ch = f->m, *restrict const *q_ch = f->q;
    const REAL *restrict const *p_ch = f->p;
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

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)

/* out[i] = |A|^2 at event i; fields[9] in the order of model.EVENT_FIELDS. */
void CAT(dz_density, REAL)(REAL *restrict out, const REAL *const *fields, long n,
                           const double *par, const double *mass)
{
    struct res_const c[N_RES];
    REAL rd2r, nre, nim;
    constants(c, par, mass, &rd2r, &nre, &nim);
    struct event_fields f = by_kind(fields);
    for (long i = 0; i < n; i++)
        out[i] = density_at(c, &f, rd2r, nre, nim, i);
}
