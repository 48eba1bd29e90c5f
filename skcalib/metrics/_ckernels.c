/*
 * Compiled kernels of skcalib's binning core (skcalib/metrics/_binning.py).
 *
 * Each kernel reads its input once, in one pass, and does there what the numpy path of
 * _binning.py does in several: the value check of the probabilities, the bin index under
 * the right-closed rule (the same rule, exactly: an arithmetic candidate, then one
 * comparison with each neighbouring float64 edge), and the per-bin sums.  They are an accelerator
 * only: _binning.py falls back to its numpy implementation when this module is missing
 * (no C compiler at install time) or disabled (SKCALIB_DISABLE_COMPILED=1), and the test
 * suite asserts that both give the same numbers.
 *
 * Arrays come in through the buffer protocol (any strides, float32 or float64
 * probabilities, labels of any integer or bool dtype); no numpy header is needed.  The
 * kernels never validate labels (the Python side passes validated class indices) beyond
 * a bounds check that keeps a bad index from reading outside the array.  A value check
 * that fails returns the index of the first bad sample; the Python side then builds the
 * error message.  The GIL is released while a kernel runs.
 *
 * Sums are accumulated per chunk of values in local arrays that are then added to the
 * totals (the two-level summation of the numpy path's per-chunk bincounts).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* SSE2 is part of every x86-64 CPU; other platforms (and builds with -DSKCALIB_NO_SIMD)
   use the portable scalar code, which gives the same bins and sums (row sums of the
   value check are added in another order) */
#if (defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)) && !defined(SKCALIB_NO_SIMD)
#include <emmintrin.h>
#define SKCALIB_SSE2 1
#endif

#if defined(_MSC_VER)
#define FORCE_INLINE static __forceinline
#elif defined(__GNUC__) || defined(__clang__)
#define FORCE_INLINE static inline __attribute__((always_inline))
#else
#define FORCE_INLINE static inline
#endif

/* values whose labels are converted at once (a few KiB, in L1) */
#define BLOCK 2048
/* values summed in local accumulators before they are added to the totals */
#define CHUNK 65536

enum { T_F32, T_F64, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_I64, T_U64 };

static int
host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* Element type of a buffer, or -1 for a type the kernels do not read. */
static int
type_code(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=') {
        f++;
    }
    else if (*f == '<') {
        if (!host_little_endian()) return -1;
        f++;
    }
    else if (*f == '>' || *f == '!') {
        if (host_little_endian()) return -1;
        f++;
    }
    if (f[0] == '\0' || f[1] != '\0') return -1;
    switch (f[0]) {
        case 'd':
            return v->itemsize == 8 ? T_F64 : -1;
        case 'f':
            return v->itemsize == 4 ? T_F32 : -1;
        case '?': case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
            switch (v->itemsize) {
                case 1: return T_U8;
                case 2: return T_U16;
                case 4: return T_U32;
                case 8: return T_U64;
            }
            return -1;
        case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
            switch (v->itemsize) {
                case 1: return T_I8;
                case 2: return T_I16;
                case 4: return T_I32;
                case 8: return T_I64;
            }
            return -1;
    }
    return -1;
}

/* ------------------------------------------------------------------------------------ */
/* argument handling                                                                    */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    Py_buffer view;
    int held;
    int type;
} Arg;

static void
release(Arg *a)
{
    if (a->held) {
        PyBuffer_Release(&a->view);
        a->held = 0;
    }
}

/* A read-only input of ndim dimensions; float (floats=1) or integer/bool (floats=0). */
static int
get_input(PyObject *o, Arg *a, int ndim, int floats, const char *name)
{
    if (PyObject_GetBuffer(o, &a->view, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return -1;
    a->held = 1;
    a->type = type_code(&a->view);
    if (a->view.ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "%s must be %d-D, got %d-D", name, ndim, a->view.ndim);
        return -1;
    }
    if (a->type < 0 || (floats ? a->type > T_F64 : a->type < T_I8)) {
        PyErr_Format(PyExc_TypeError, "%s has an unsupported dtype (buffer format '%s')", name,
                     a->view.format ? a->view.format : "B");
        return -1;
    }
    return 0;
}

/* A C-contiguous float64 vector of n values (n < 0: any length), read-only or writable. */
static int
get_f64(PyObject *o, Arg *a, Py_ssize_t n, int writable, const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, &a->view, flags) < 0) return -1;
    a->held = 1;
    a->type = type_code(&a->view);
    if (a->type != T_F64 || a->view.ndim != 1 || (n >= 0 && a->view.shape[0] != n)) {
        PyErr_Format(PyExc_ValueError, "%s must be a contiguous float64 vector of %zd values",
                     name, n);
        return -1;
    }
    return 0;
}

static int
get_optional_f64(PyObject *o, Arg *a, Py_ssize_t n, int writable, const char *name)
{
    if (o == Py_None) return 0;
    return get_f64(o, a, n, writable, name);
}

/* Optional 1-D float64 weights of n values, any stride. */
static int
get_weights(PyObject *o, Arg *a, Py_ssize_t n)
{
    if (o == Py_None) return 0;
    if (get_input(o, a, 1, 1, "sample_weight") < 0) return -1;
    if (a->type != T_F64 || a->view.shape[0] != n) {
        PyErr_Format(PyExc_ValueError, "sample_weight must be float64 of %zd values", n);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* element access                                                                       */
/* ------------------------------------------------------------------------------------ */

FORCE_INLINE double
load_p(const char *base, Py_ssize_t off, int t)
{
    return t == T_F64 ? *(const double *)(base + off) : (double)*(const float *)(base + off);
}

/* n integers (labels, outcomes) at base + i * stride, converted to int64. */
static void
load_ints(int64_t *dst, const char *src, Py_ssize_t stride, Py_ssize_t n, int t)
{
    Py_ssize_t i;
#define LOAD_INTS(T)                                                                       \
    for (i = 0; i < n; i++) dst[i] = (int64_t)(*(const T *)(src + i * stride));           \
    break;
    switch (t) {
        case T_I8: LOAD_INTS(int8_t)
        case T_U8: LOAD_INTS(uint8_t)
        case T_I16: LOAD_INTS(int16_t)
        case T_U16: LOAD_INTS(uint16_t)
        case T_I32: LOAD_INTS(int32_t)
        case T_U32: LOAD_INTS(uint32_t)
        case T_I64: LOAD_INTS(int64_t)
        default: /* T_U64: validated indices are small, so the conversion is exact */
            for (i = 0; i < n; i++) {
                uint64_t v = *(const uint64_t *)(src + i * stride);
                dst[i] = v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
            }
            break;
    }
#undef LOAD_INTS
}

/* ------------------------------------------------------------------------------------ */
/* the bin index                                                                        */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    double *el; /* a copy of the n_bins + 1 edges with el[0] = -inf (owned) */
    Py_ssize_t nb;
    double dnb, top; /* n_bins and n_bins - 1 as doubles */
    int uniform;     /* the edges are np.linspace(0, 1, nb + 1) */
} Bins;

/*
 * Number of edges e[1..nb] strictly below p, in [0, nb]: the bin of p under the
 * right-closed rule (bin m holds e[m] < p <= e[m + 1], bin 0 also holds p <= e[1]), and
 * nb for a value above e[nb] (a 2-D probability within the tolerance above 1), the
 * extra slot the callers fold into the last bin.  This is exactly
 * np.searchsorted(e[1:], p, side="left"); NaN gives 0.
 *
 * Equal-width edges: c = floor(p * nb), clipped to [0, nb - 1], is within one bin of the
 * answer (the product and the linspace edges are both within a few ulps of the exact
 * values, and the edges are 1 / nb apart), so one comparison with each of its two edges
 * moves it to the exact bin; el[0] = -inf keeps bin 0 from moving down.  Other edges:
 * a branch-free binary search.
 */
FORCE_INLINE Py_ssize_t
uniform_bin(const double *el, double dnb, double top, double p)
{
    double t = p * dnb;
    Py_ssize_t c;
#ifdef SKCALIB_SSE2
    /* maxsd and minsd: the same as the portable lines below, without branches */
    t = _mm_cvtsd_f64(_mm_min_sd(_mm_max_sd(_mm_set_sd(t), _mm_setzero_pd()), _mm_set_sd(top)));
#else
    t = t > 0.0 ? t : 0.0; /* also NaN -> 0 */
    t = t < top ? t : top;
#endif
    c = (Py_ssize_t)t;
    c -= p <= el[c];
    c += el[c + 1] < p;
    return c;
}

FORCE_INLINE Py_ssize_t
search_bin(const double *el, Py_ssize_t nb, double p)
{
    const double *base = el + 1; /* lower bound of p in el[1..nb] */
    Py_ssize_t len = nb;
    while (len > 1) {
        const Py_ssize_t half = len >> 1;
        base += (Py_ssize_t)(base[half - 1] < p) * half; /* no branch */
        len -= half;
    }
    return (base - (el + 1)) + (*base < p);
}

FORCE_INLINE Py_ssize_t
bin_of(const Bins *B, double p)
{
    return B->uniform ? uniform_bin(B->el, B->dnb, B->top, p) : search_bin(B->el, B->nb, p);
}

static int
get_bins(Bins *B, Arg *edges, int uniform)
{
    B->nb = edges->view.shape[0] - 1;
    B->el = NULL;
    if (B->nb < 1) {
        PyErr_SetString(PyExc_ValueError, "need at least 2 bin edges");
        return -1;
    }
    B->el = (double *)malloc((size_t)(B->nb + 1) * sizeof(double));
    if (B->el == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(B->el, edges->view.buf, (size_t)(B->nb + 1) * sizeof(double));
    B->el[0] = -HUGE_VAL;
    B->dnb = (double)B->nb;
    B->top = (double)(B->nb - 1);
    B->uniform = uniform;
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* one group of (probability, outcome) pairs                                            */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    double *count, *sp, *st, *sq; /* any may be NULL (not accumulated) */
} Sums;

/*
 * Add the local sums (`copies` interleaved copies of `size` slots each) to the totals
 * and clear them.
 */
static void
flush_one(double *tot, double *loc, Py_ssize_t size, Py_ssize_t copies)
{
    Py_ssize_t i, c;
    if (tot == NULL) return;
    for (c = 0; c < copies; c++) {
        for (i = 0; i < size; i++) tot[i] += loc[c * size + i];
    }
    memset(loc, 0, (size_t)(copies * size) * sizeof(double));
}

static void
flush(Sums *tot, Sums *loc, Py_ssize_t size, Py_ssize_t copies)
{
    flush_one(tot->count, loc->count, size, copies);
    flush_one(tot->sp, loc->sp, size, copies);
    flush_one(tot->st, loc->st, size, copies);
    flush_one(tot->sq, loc->sq, size, copies);
}

/* Local accumulators shaped as the totals (NULL where the total is NULL), one block. */
static double *
alloc_local(Sums *loc, const Sums *tot, Py_ssize_t size, Py_ssize_t copies)
{
    const Py_ssize_t len = copies * size;
    const int used = !!tot->count + !!tot->sp + !!tot->st + !!tot->sq;
    double *mem = (double *)calloc((size_t)(used > 0 ? used * len : 1), sizeof(double));
    double *next = mem;
    if (mem == NULL) return NULL;
    loc->count = tot->count ? (next += len) - len : NULL;
    loc->sp = tot->sp ? (next += len) - len : NULL;
    loc->st = tot->st ? (next += len) - len : NULL;
    loc->sq = tot->sq ? (next += len) - len : NULL;
    return mem;
}

/* Interleaved copies of the 1-D accumulators: consecutive values in the same bin then
   update different memory, so that the additions do not wait for each other. */
#define COPIES 4
/* the same for the class-wise accumulators, k times larger: two copies keep them in L1
   for a hundred classes (four would spill, and cost more than they save) */
#define CW_COPIES 2

/* Whether the values x[0..m) lie in [0, 1] (NaN fails). */
FORCE_INLINE int
all_unit(const char *x, Py_ssize_t sx, const int t, Py_ssize_t m)
{
    Py_ssize_t i = 0;
#ifdef SKCALIB_SSE2
    if (t == T_F64 && sx == 8) {
        const double *v = (const double *)x;
        const __m128d zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0);
        __m128d bad0 = _mm_setzero_pd(), bad1 = _mm_setzero_pd();
        for (; i + 4 <= m; i += 4) {
            const __m128d a = _mm_loadu_pd(v + i), b = _mm_loadu_pd(v + i + 2);
            /* "not >=" and "not <=" are also true for NaN */
            bad0 = _mm_or_pd(bad0, _mm_or_pd(_mm_cmpnge_pd(a, zero), _mm_cmpnle_pd(a, one)));
            bad1 = _mm_or_pd(bad1, _mm_or_pd(_mm_cmpnge_pd(b, zero), _mm_cmpnle_pd(b, one)));
        }
        if (_mm_movemask_pd(_mm_or_pd(bad0, bad1))) return 0;
    }
    else if (t == T_F32 && sx == 4) {
        const float *v = (const float *)x;
        const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
        __m128 bad0 = _mm_setzero_ps(), bad1 = _mm_setzero_ps();
        for (; i + 8 <= m; i += 8) {
            const __m128 a = _mm_loadu_ps(v + i), b = _mm_loadu_ps(v + i + 4);
            bad0 = _mm_or_ps(bad0, _mm_or_ps(_mm_cmpnge_ps(a, zero), _mm_cmpnle_ps(a, one)));
            bad1 = _mm_or_ps(bad1, _mm_or_ps(_mm_cmpnge_ps(b, zero), _mm_cmpnle_ps(b, one)));
        }
        if (_mm_movemask_ps(_mm_or_ps(bad0, bad1))) return 0;
    }
#endif
    for (; i < m; i++) {
        const double p = load_p(x, i * sx, t);
        if (!(p >= 0.0 && p <= 1.0)) return 0;
    }
    return 1;
}

/*
 * The fast path of one group: equal-width edges, no weights, no threshold.  Counts and
 * outcome sums are integers (exact); outcomes must be 0 or 1 and are read as integers of
 * `osize` bytes.  Four values per step, each in its own copy of the accumulators.
 */
FORCE_INLINE void
acc1d_fast(const char *pc, Py_ssize_t sc, const int tc, const char *po, Py_ssize_t so,
           const int osize, Py_ssize_t m, const Bins *B, const int with_count, int64_t *cnt,
           int64_t *pos, double *sp)
{
    const double *el = B->el;
    const double dnb = B->dnb, top = B->top;
    const Py_ssize_t size = B->nb + 1;
    Py_ssize_t i = 0;
#define LOAD_O(j)                                                                          \
    (osize == 1   ? (int64_t) * (const uint8_t *)(po + (j) * so)                           \
     : osize == 8 ? *(const int64_t *)(po + (j) * so)                                       \
     : osize == 4 ? (int64_t) * (const uint32_t *)(po + (j) * so)                          \
                  : (int64_t) * (const uint16_t *)(po + (j) * so))
#define LANE(L)                                                                            \
    {                                                                                      \
        const double p = load_p(pc, (i + L) * sc, tc);                                     \
        const Py_ssize_t c = uniform_bin(el, dnb, top, p) + L * size;                      \
        sp[c] += p;                                                                        \
        pos[c] += LOAD_O(i + L);                                                           \
        if (with_count) cnt[c] += 1;                                                       \
    }
    for (; i + 4 <= m; i += 4) {
        LANE(0) LANE(1) LANE(2) LANE(3)
    }
    for (; i < m; i++) LANE(0)
#undef LANE
#undef LOAD_O
}

/*
 * The general path: any edges, weights, a threshold; gap: accumulate only sum_true, of
 * w * (outcome - p).  The outcomes of a block are converted to 0.0 / 1.0 first.
 */
FORCE_INLINE void
acc1d_general(const char *pc, Py_ssize_t sc, const int tc, const double *ob, const char *pw,
              Py_ssize_t sw, Py_ssize_t m, const Bins *B, double thr, int gap, Sums *loc)
{
    const Py_ssize_t size = B->nb + 1;
    double *const lcount = loc->count, *const lsp = loc->sp, *const lst = loc->st;
    double *const lsq = loc->sq;
    Py_ssize_t i;
    for (i = 0; i < m; i++) {
        const double p = load_p(pc, i * sc, tc);
        const double o = ob[i];
        const double w = pw ? *(const double *)(pw + i * sw) : 1.0;
        Py_ssize_t b;
        if (thr > 0 && !(p > thr)) continue;
        b = bin_of(B, p) + (i & (COPIES - 1)) * size;
        if (gap) {
            lst[b] += w * (o - p);
        }
        else {
            lsp[b] += w * p;
            lst[b] += w * o;
            if (lcount) lcount[b] += w;
            if (lsq) lsq[b] += w * w;
        }
    }
}

typedef struct {
    int64_t *cnt, *pos; /* integer sums of the fast path, COPIES * size each */
    int64_t *ib;        /* a block of labels */
    double *ob;         /* a block of outcomes as 0.0 / 1.0 */
} Scratch;

/* Add the integer sums of the fast path to the double local sums and clear them. */
static void
flush_ints(Sums *loc, Scratch *S, Py_ssize_t len)
{
    Py_ssize_t i;
    for (i = 0; i < len; i++) {
        if (loc->count) loc->count[i] += (double)S->cnt[i];
        loc->st[i] += (double)S->pos[i];
    }
    memset(S->cnt, 0, (size_t)len * sizeof(int64_t));
    memset(S->pos, 0, (size_t)len * sizeof(int64_t));
}

FORCE_INLINE Py_ssize_t
acc1d_impl(const char *pc, Py_ssize_t sc, const int tc, const char *po, Py_ssize_t so, int to,
           Py_ssize_t osize, const char *pw, Py_ssize_t sw, Py_ssize_t n, const Bins *B,
           double thr, int check, int gap, Sums *loc, Sums *tot, Scratch *S)
{
    const Py_ssize_t size = B->nb + 1;
    const int fast = B->uniform && pw == NULL && !(thr > 0) && !gap &&
                     (osize == 1 || osize == 2 || osize == 4 || osize == 8);
    Py_ssize_t start, i, since_flush = 0;
    for (start = 0; start < n; start += BLOCK) {
        const Py_ssize_t m = n - start < BLOCK ? n - start : BLOCK;
        const char *c = pc + start * sc;
        if (check && !all_unit(c, sc, tc, m)) {
            for (i = 0; i < m; i++) {
                const double p = load_p(c, i * sc, tc);
                if (!(p >= 0 && p <= 1)) return start + i;
            }
        }
        if (fast) {
            const char *o = po + start * so;
#define FAST(OSIZE)                                                                        \
    if (loc->count) acc1d_fast(c, sc, tc, o, so, OSIZE, m, B, 1, S->cnt, S->pos, loc->sp);  \
    else acc1d_fast(c, sc, tc, o, so, OSIZE, m, B, 0, S->cnt, S->pos, loc->sp);
            if (osize == 8) {
                FAST(8)
            }
            else if (osize == 1) {
                FAST(1)
            }
            else if (osize == 4) {
                FAST(4)
            }
            else {
                FAST(2)
            }
#undef FAST
        }
        else {
            load_ints(S->ib, po + start * so, so, m, to);
            for (i = 0; i < m; i++) {
                /* 1.0 for a nonzero outcome, without a branch (outcomes are random bits) */
                const uint64_t v = (uint64_t)S->ib[i];
                S->ob[i] = (double)((v | (0 - v)) >> 63);
            }
            acc1d_general(c, sc, tc, S->ob, pw ? pw + start * sw : NULL, sw, m, B, thr, gap, loc);
        }
        since_flush += m;
        if (since_flush >= CHUNK) {
            if (fast) flush_ints(loc, S, COPIES * size);
            flush(tot, loc, size, COPIES);
            since_flush = 0;
        }
    }
    if (fast) flush_ints(loc, S, COPIES * size);
    flush(tot, loc, size, COPIES);
    return -1;
}

/*
 * accumulate_1d(conf, outcome, weight, edges, uniform, threshold, check, gap,
 *               count, sum_proba, sum_true, sum_weight_sq) -> int
 *
 * Adds each pair's weight, weighted probability and weighted outcome (0 or 1) to
 * its bin of the n_bins + 1 slots of the output vectors (count, sum_proba and
 * sum_weight_sq may be None).  With gap, sum_true receives the weighted sums of
 * outcome - probability and nothing else is accumulated.  Values not above a positive
 * threshold are skipped.  With check, the values must lie in [0, 1]: the index of the
 * first that does not is returned (the outputs are then incomplete), else -1.
 */
static PyObject *
accumulate_1d(PyObject *self, PyObject *args)
{
    PyObject *oc, *oo, *ow, *oe, *ocount, *osp, *ost, *osq;
    int uniform, check, gap;
    double thr;
    Arg c = {0}, o = {0}, w = {0}, e = {0}, acount = {0}, asp = {0}, ast = {0}, asq = {0};
    Bins B = {0};
    Sums tot, loc;
    Scratch S = {0};
    Py_ssize_t n, size, i, bad = -1;
    double *mem = NULL, *gap_sp = NULL;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "OOOOpdppOOOO:accumulate_1d", &oc, &oo, &ow, &oe, &uniform,
                          &thr, &check, &gap, &ocount, &osp, &ost, &osq))
        return NULL;
    if (get_input(oc, &c, 1, 1, "conf") < 0) goto done;
    n = c.view.shape[0];
    if (get_input(oo, &o, 1, 0, "outcome") < 0) goto done;
    if (o.view.shape[0] != n) {
        PyErr_SetString(PyExc_ValueError, "conf and outcome differ in length");
        goto done;
    }
    if (get_weights(ow, &w, n) < 0) goto done;
    if (get_f64(oe, &e, -1, 0, "edges") < 0) goto done;
    if (get_bins(&B, &e, uniform) < 0) goto done;
    size = B.nb + 1;
    if (get_optional_f64(ocount, &acount, size, 1, "count") < 0) goto done;
    if (get_optional_f64(osp, &asp, size, 1, "sum_proba") < 0) goto done;
    if (get_f64(ost, &ast, size, 1, "sum_true") < 0) goto done;
    if (get_optional_f64(osq, &asq, size, 1, "sum_weight_sq") < 0) goto done;
    if (!gap && !asp.held) {
        PyErr_SetString(PyExc_ValueError, "sum_proba is required unless gap");
        goto done;
    }
    tot.count = acount.held && !gap ? (double *)acount.view.buf : NULL;
    tot.sp = asp.held && !gap ? (double *)asp.view.buf : NULL;
    tot.st = (double *)ast.view.buf;
    tot.sq = asq.held && w.held && !gap ? (double *)asq.view.buf : NULL;
    if (gap && uniform && !w.held && !(thr > 0)) {
        /* the fast path sums outcomes and probabilities apart; their difference is
           taken at the end */
        gap_sp = (double *)calloc((size_t)size, sizeof(double));
        if (gap_sp == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        tot.sp = gap_sp;
        gap = 0;
    }
    mem = alloc_local(&loc, &tot, size, COPIES);
    S.cnt = (int64_t *)calloc((size_t)(COPIES * size), sizeof(int64_t));
    S.pos = (int64_t *)calloc((size_t)(COPIES * size), sizeof(int64_t));
    S.ib = (int64_t *)malloc(BLOCK * sizeof(int64_t));
    S.ob = (double *)malloc(BLOCK * sizeof(double));
    if (mem == NULL || S.cnt == NULL || S.pos == NULL || S.ib == NULL || S.ob == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const char *pc = (const char *)c.view.buf, *po = (const char *)o.view.buf;
        const char *pw = w.held ? (const char *)w.view.buf : NULL;
        const Py_ssize_t sc = c.view.strides[0], so = o.view.strides[0];
        const Py_ssize_t sw = w.held ? w.view.strides[0] : 0, osize = o.view.itemsize;
        const int to = o.type;
        Py_BEGIN_ALLOW_THREADS
        if (c.type == T_F64)
            bad = acc1d_impl(pc, sc, T_F64, po, so, to, osize, pw, sw, n, &B, thr, check, gap,
                             &loc, &tot, &S);
        else
            bad = acc1d_impl(pc, sc, T_F32, po, so, to, osize, pw, sw, n, &B, thr, check, gap,
                             &loc, &tot, &S);
        Py_END_ALLOW_THREADS
    }
    if (gap_sp != NULL) {
        for (i = 0; i < size; i++) tot.st[i] -= gap_sp[i];
    }
    result = PyLong_FromSsize_t(bad);
done:
    free(mem);
    free(gap_sp);
    free(S.cnt), free(S.pos), free(S.ib), free(S.ob);
    free(B.el);
    release(&c), release(&o), release(&w), release(&e);
    release(&acount), release(&asp), release(&ast), release(&asq);
    return result;
}

/* ------------------------------------------------------------------------------------ */
/* rows of a 2-D array                                                                  */
/* ------------------------------------------------------------------------------------ */

/*
 * Rows i0 .. i0 + m of P with unit column stride: the rows themselves when the columns
 * are contiguous, else a C-ordered copy in buf (read column by column, which is
 * sequential for a Fortran-ordered array).  Sets *row_stride.
 */
static const char *
rows_of(const char *P, Py_ssize_t s0, Py_ssize_t s1, Py_ssize_t itemsize, Py_ssize_t k,
        Py_ssize_t i0, Py_ssize_t m, char *buf, Py_ssize_t *row_stride)
{
    Py_ssize_t i, j;
    if (s1 == itemsize) {
        *row_stride = s0;
        return P + i0 * s0;
    }
    for (j = 0; j < k; j++) {
        const char *col = P + i0 * s0 + j * s1;
        if (itemsize == 8) {
            for (i = 0; i < m; i++) ((double *)buf)[i * k + j] = *(const double *)(col + i * s0);
        }
        else {
            for (i = 0; i < m; i++) ((float *)buf)[i * k + j] = *(const float *)(col + i * s0);
        }
    }
    *row_stride = k * itemsize;
    return buf;
}

/*
 * Rows per block of a 2-D kernel: about max(CHUNK, min_values) values, at least one row,
 * and at most 8 MiB of rows (the size of the copy of a block of a non-C-ordered array).
 */
static Py_ssize_t
block_rows(Py_ssize_t k, Py_ssize_t itemsize, Py_ssize_t min_values)
{
    const Py_ssize_t v = CHUNK > min_values ? CHUNK : min_values;
    const Py_ssize_t cap = ((Py_ssize_t)8 << 20) / (k * itemsize);
    Py_ssize_t r = v / k;
    r = r < cap ? r : cap;
    return r > 0 ? r : 1;
}

/* Whether a row's sum is within tol of 1 (False for NaN). */
FORCE_INLINE int
sum_ok(double s, double tol)
{
    return s >= 1.0 - tol && s <= 1.0 + tol;
}

/*
 * Maximum, first index of the maximum, and (with check) the row check of one row:
 * entries >= 0 and a sum within tol of 1 (NaN and infinity fail).  Four independent
 * lanes keep the loop free of one long chain of dependent operations.
 */
#ifndef SKCALIB_SSE2
/*
 * The portable versions of the row kernels below, in the row's own type T (float32 rows
 * are summed in float32, as with SSE2 and as numpy's float32 row sums): four
 * independent lanes keep the loops free of one long chain of dependent operations.
 */
#define SCALAR_ROW_KERNELS(SUFFIX, T)                                                      \
    static int row_max_##SUFFIX(const T *r, Py_ssize_t k, int check, double tol,           \
                                double *vmax, Py_ssize_t *amax)                            \
    {                                                                                      \
        T m0 = r[0], m1 = r[0], m2 = r[0], m3 = r[0], s0 = 0, s1 = 0, s2 = 0, s3 = 0, m;   \
        int neg = 0;                                                                       \
        Py_ssize_t j;                                                                      \
        for (j = 0; j + 4 <= k; j += 4) {                                                  \
            const T a = r[j], b = r[j + 1], c = r[j + 2], d = r[j + 3];                    \
            m0 = a > m0 ? a : m0;                                                          \
            m1 = b > m1 ? b : m1;                                                          \
            m2 = c > m2 ? c : m2;                                                          \
            m3 = d > m3 ? d : m3;                                                          \
            if (check) {                                                                   \
                s0 += a, s1 += b, s2 += c, s3 += d;                                        \
                neg |= (a < 0) | (b < 0) | (c < 0) | (d < 0);                              \
            }                                                                              \
        }                                                                                  \
        for (; j < k; j++) {                                                               \
            m0 = r[j] > m0 ? r[j] : m0;                                                    \
            s0 += r[j];                                                                    \
            neg |= r[j] < 0;                                                               \
        }                                                                                  \
        m = m0;                                                                            \
        m = m1 > m ? m1 : m;                                                               \
        m = m2 > m ? m2 : m;                                                               \
        m = m3 > m ? m3 : m;                                                               \
        /* the first column holding the maximum (numpy's argmax), read again from L1 */    \
        for (j = 0; j < k; j++) {                                                          \
            if (r[j] == m) break;                                                          \
        }                                                                                  \
        if (j == k) j = 0; /* NaN: only reachable without check */                         \
        *amax = j;                                                                         \
        *vmax = (double)r[j];                                                              \
        return !check || (!neg && sum_ok((double)((s0 + s1) + (s2 + s3)), tol));           \
    }                                                                                      \
    static int row_ok_##SUFFIX(const T *r, Py_ssize_t k, double tol)                       \
    {                                                                                      \
        T s0 = 0, s1 = 0;                                                                  \
        int neg = 0;                                                                       \
        Py_ssize_t j;                                                                      \
        for (j = 0; j + 2 <= k; j += 2) {                                                  \
            s0 += r[j], s1 += r[j + 1];                                                    \
            neg |= (r[j] < 0) | (r[j + 1] < 0);                                            \
        }                                                                                  \
        for (; j < k; j++) {                                                               \
            s0 += r[j];                                                                    \
            neg |= r[j] < 0;                                                               \
        }                                                                                  \
        return !neg && sum_ok((double)(s0 + s1), tol);                                     \
    }
SCALAR_ROW_KERNELS(f64, double)
SCALAR_ROW_KERNELS(f32, float)
#undef SCALAR_ROW_KERNELS
#endif

#ifdef SKCALIB_SSE2
/*
 * The same for contiguous float64 / float32 rows, two / four entries per instruction:
 * four vectors of maxima, of sums and of sign tests per step, then the first column of
 * the maximum found by comparisons of whole vectors (the row is in L1 by then).
 * Maxima are taken as max(x, m), which keeps m when x is NaN; NaN fails the sum.
 */
static inline int
first_equal_f64(const double *r, Py_ssize_t k, double m)
{
    const __m128d mv = _mm_set1_pd(m);
    Py_ssize_t j = 0;
    for (; j + 4 <= k; j += 4) {
        const int mask = _mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(r + j), mv)) |
                         (_mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(r + j + 2), mv)) << 2);
        if (mask) {
            int b = 0;
            while (!(mask >> b & 1)) b++;
            return (int)j + b;
        }
    }
    for (; j < k; j++) {
        if (r[j] == m) return (int)j;
    }
    return 0;
}

static inline int
row_max_f64(const double *r, Py_ssize_t k, int check, double tol, double *vmax, Py_ssize_t *amax)
{
    const __m128d zero = _mm_setzero_pd();
    __m128d m0 = _mm_set1_pd(-HUGE_VAL), m1 = m0, m2 = m0, m3 = m0;
    __m128d s0 = zero, s1 = zero, s2 = zero, s3 = zero, neg = zero;
    double m, tail_sum = 0, lanes[2];
    int tail_neg = 0;
    Py_ssize_t j = 0;
    for (; j + 8 <= k; j += 8) {
        const __m128d a = _mm_loadu_pd(r + j), b = _mm_loadu_pd(r + j + 2);
        const __m128d c = _mm_loadu_pd(r + j + 4), d = _mm_loadu_pd(r + j + 6);
        m0 = _mm_max_pd(a, m0), m1 = _mm_max_pd(b, m1);
        m2 = _mm_max_pd(c, m2), m3 = _mm_max_pd(d, m3);
        if (check) {
            s0 = _mm_add_pd(s0, a), s1 = _mm_add_pd(s1, b);
            s2 = _mm_add_pd(s2, c), s3 = _mm_add_pd(s3, d);
            neg = _mm_or_pd(neg, _mm_or_pd(_mm_or_pd(_mm_cmplt_pd(a, zero), _mm_cmplt_pd(b, zero)),
                                           _mm_or_pd(_mm_cmplt_pd(c, zero), _mm_cmplt_pd(d, zero))));
        }
    }
    m0 = _mm_max_pd(_mm_max_pd(m0, m1), _mm_max_pd(m2, m3));
    _mm_storeu_pd(lanes, m0);
    m = lanes[0] > lanes[1] ? lanes[0] : lanes[1];
    for (; j < k; j++) {
        m = r[j] > m ? r[j] : m;
        tail_sum += r[j];
        tail_neg |= r[j] < 0;
    }
    j = first_equal_f64(r, k, m);
    *amax = j;
    *vmax = r[j];
    if (!check) return 1;
    s0 = _mm_add_pd(_mm_add_pd(s0, s1), _mm_add_pd(s2, s3));
    _mm_storeu_pd(lanes, s0);
    return !tail_neg && !_mm_movemask_pd(neg) && sum_ok(lanes[0] + lanes[1] + tail_sum, tol);
}

static inline int
first_equal_f32(const float *r, Py_ssize_t k, float m)
{
    const __m128 mv = _mm_set1_ps(m);
    Py_ssize_t j = 0;
    for (; j + 8 <= k; j += 8) {
        const int mask = _mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(r + j), mv)) |
                         (_mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(r + j + 4), mv)) << 4);
        if (mask) {
            int b = 0;
            while (!(mask >> b & 1)) b++;
            return (int)j + b;
        }
    }
    for (; j < k; j++) {
        if (r[j] == m) return (int)j;
    }
    return 0;
}

/* float32 rows: maxima and sums in float32, as numpy's float32 row sums */
static inline int
row_max_f32(const float *r, Py_ssize_t k, int check, double tol, double *vmax, Py_ssize_t *amax)
{
    const __m128 zero = _mm_setzero_ps();
    __m128 m0 = _mm_set1_ps(-HUGE_VALF), m1 = m0, m2 = m0, m3 = m0;
    __m128 s0 = zero, s1 = zero, s2 = zero, s3 = zero, neg = zero;
    float m, tail_sum = 0, lanes[4];
    int tail_neg = 0;
    Py_ssize_t j = 0;
    for (; j + 16 <= k; j += 16) {
        const __m128 a = _mm_loadu_ps(r + j), b = _mm_loadu_ps(r + j + 4);
        const __m128 c = _mm_loadu_ps(r + j + 8), d = _mm_loadu_ps(r + j + 12);
        m0 = _mm_max_ps(a, m0), m1 = _mm_max_ps(b, m1);
        m2 = _mm_max_ps(c, m2), m3 = _mm_max_ps(d, m3);
        if (check) {
            s0 = _mm_add_ps(s0, a), s1 = _mm_add_ps(s1, b);
            s2 = _mm_add_ps(s2, c), s3 = _mm_add_ps(s3, d);
            neg = _mm_or_ps(neg, _mm_or_ps(_mm_or_ps(_mm_cmplt_ps(a, zero), _mm_cmplt_ps(b, zero)),
                                           _mm_or_ps(_mm_cmplt_ps(c, zero), _mm_cmplt_ps(d, zero))));
        }
    }
    m0 = _mm_max_ps(_mm_max_ps(m0, m1), _mm_max_ps(m2, m3));
    _mm_storeu_ps(lanes, m0);
    m = lanes[0];
    m = lanes[1] > m ? lanes[1] : m;
    m = lanes[2] > m ? lanes[2] : m;
    m = lanes[3] > m ? lanes[3] : m;
    for (; j < k; j++) {
        m = r[j] > m ? r[j] : m;
        tail_sum += r[j];
        tail_neg |= r[j] < 0;
    }
    j = first_equal_f32(r, k, m);
    *amax = j;
    *vmax = r[j];
    if (!check) return 1;
    s0 = _mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3));
    _mm_storeu_ps(lanes, s0);
    return !tail_neg && !_mm_movemask_ps(neg) &&
           sum_ok((double)((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail_sum), tol);
}
#endif

FORCE_INLINE int
row_top(const char *r, Py_ssize_t k, const int t, int check, double tol, double *vmax,
        Py_ssize_t *amax)
{
#ifdef SKCALIB_SSE2
    if (t == T_F64) return row_max_f64((const double *)r, k, check, tol, vmax, amax);
    return row_max_f32((const float *)r, k, check, tol, vmax, amax);
#else
    if (t == T_F64) return row_max_f64((const double *)r, k, check, tol, vmax, amax);
    return row_max_f32((const float *)r, k, check, tol, vmax, amax);
#endif
}

#ifdef SKCALIB_SSE2
/*
 * The top-label pass over a Fortran-ordered array (each column contiguous, as pandas
 * DataFrames and OneVsRestClassifier give): a block of rows is read column by column,
 * each column a contiguous run, two (float64) or four (float32) rows per instruction,
 * keeping per row in L1 the maximum, its first column (as a float: exact below 2**24
 * columns) and the row sum (in the array's type, as the row kernels).  A negative
 * entry turns the sum into NaN, which fails the check as NaN does.
 */
static Py_ssize_t
top_label_columns_f64(const char *P, Py_ssize_t s1, Py_ssize_t n, Py_ssize_t k, const char *py,
                      Py_ssize_t sy, int ty, int check, double tol, double *conf,
                      uint8_t *outcome, int64_t *yb, Py_ssize_t R, double *vm, double *am,
                      double *sm)
{
    const __m128d zero = _mm_setzero_pd();
    const __m128d nanv = _mm_castsi128_pd(_mm_set1_epi64x(0x7ff8000000000000LL));
    Py_ssize_t i0, i, j;
    for (i0 = 0; i0 < n; i0 += R) {
        const Py_ssize_t m = n - i0 < R ? n - i0 : R;
        const double *first = (const double *)P + i0;
        for (i = 0; i < m; i++) {
            vm[i] = first[i];
            am[i] = 0;
            sm[i] = first[i] < 0 ? NAN : first[i];
        }
        /* four columns per pass over the per-row state, which then moves a quarter as
           often between the cache and the registers */
        for (j = 1; j + 4 <= k; j += 4) {
            const double *c0 = (const double *)(P + j * s1) + i0;
            const double *c1 = (const double *)(P + (j + 1) * s1) + i0;
            const double *c2 = (const double *)(P + (j + 2) * s1) + i0;
            const double *c3 = (const double *)(P + (j + 3) * s1) + i0;
            const __m128d j0 = _mm_set1_pd((double)j), j1 = _mm_set1_pd((double)(j + 1));
            const __m128d j2 = _mm_set1_pd((double)(j + 2)), j3 = _mm_set1_pd((double)(j + 3));
            for (i = 0; i + 2 <= m; i += 2) {
                __m128d cur = _mm_loadu_pd(vm + i), a = _mm_loadu_pd(am + i), v, up;
                __m128d sum = _mm_loadu_pd(sm + i);
#define STEP_PD(C, JV)                                                                     \
    v = _mm_loadu_pd(C + i);                                                               \
    up = _mm_cmpgt_pd(v, cur);                                                             \
    cur = _mm_max_pd(v, cur);                                                              \
    a = _mm_or_pd(_mm_and_pd(up, JV), _mm_andnot_pd(up, a));                               \
    if (check) sum = _mm_add_pd(sum, _mm_or_pd(v, _mm_and_pd(_mm_cmplt_pd(v, zero), nanv)));
                STEP_PD(c0, j0) STEP_PD(c1, j1) STEP_PD(c2, j2) STEP_PD(c3, j3)
#undef STEP_PD
                _mm_storeu_pd(vm + i, cur);
                _mm_storeu_pd(am + i, a);
                _mm_storeu_pd(sm + i, sum);
            }
            for (; i < m; i++) {
                const double *cs[4] = {c0, c1, c2, c3};
                int q;
                for (q = 0; q < 4; q++) {
                    const double v = cs[q][i];
                    if (v > vm[i]) vm[i] = v, am[i] = (double)(j + q);
                    sm[i] += v < 0 ? NAN : v;
                }
            }
        }
        for (; j < k; j++) {
            const double *col = (const double *)(P + j * s1) + i0;
            const __m128d jv = _mm_set1_pd((double)j);
            for (i = 0; i + 2 <= m; i += 2) {
                const __m128d v = _mm_loadu_pd(col + i), cur = _mm_loadu_pd(vm + i);
                const __m128d up = _mm_cmpgt_pd(v, cur);
                _mm_storeu_pd(vm + i, _mm_max_pd(v, cur));
                _mm_storeu_pd(am + i, _mm_or_pd(_mm_and_pd(up, jv),
                                                _mm_andnot_pd(up, _mm_loadu_pd(am + i))));
                if (check) {
                    const __m128d vn = _mm_or_pd(v, _mm_and_pd(_mm_cmplt_pd(v, zero), nanv));
                    _mm_storeu_pd(sm + i, _mm_add_pd(_mm_loadu_pd(sm + i), vn));
                }
            }
            for (; i < m; i++) {
                const double v = col[i];
                if (v > vm[i]) vm[i] = v, am[i] = (double)j;
                sm[i] += v < 0 ? NAN : v;
            }
        }
        load_ints(yb, py + i0 * sy, sy, m, ty);
        for (i = 0; i < m; i++) {
            const Py_ssize_t a = (Py_ssize_t)am[i];
            if (check && !sum_ok(sm[i], tol)) return i0 + i;
            conf[i0 + i] = *((const double *)(P + a * s1) + i0 + i);
            outcome[i0 + i] = (uint8_t)(a == yb[i]);
        }
    }
    return -1;
}

static Py_ssize_t
top_label_columns_f32(const char *P, Py_ssize_t s1, Py_ssize_t n, Py_ssize_t k, const char *py,
                      Py_ssize_t sy, int ty, int check, double tol, float *conf,
                      uint8_t *outcome, int64_t *yb, Py_ssize_t R, float *vm, float *am,
                      float *sm)
{
    const __m128 zero = _mm_setzero_ps();
    const __m128 nanv = _mm_castsi128_ps(_mm_set1_epi32(0x7fc00000));
    Py_ssize_t i0, i, j;
    for (i0 = 0; i0 < n; i0 += R) {
        const Py_ssize_t m = n - i0 < R ? n - i0 : R;
        const float *first = (const float *)P + i0;
        for (i = 0; i < m; i++) {
            vm[i] = first[i];
            am[i] = 0;
            sm[i] = first[i] < 0 ? NAN : first[i];
        }
        for (j = 1; j + 4 <= k; j += 4) {
            const float *c0 = (const float *)(P + j * s1) + i0;
            const float *c1 = (const float *)(P + (j + 1) * s1) + i0;
            const float *c2 = (const float *)(P + (j + 2) * s1) + i0;
            const float *c3 = (const float *)(P + (j + 3) * s1) + i0;
            const __m128 j0 = _mm_set1_ps((float)j), j1 = _mm_set1_ps((float)(j + 1));
            const __m128 j2 = _mm_set1_ps((float)(j + 2)), j3 = _mm_set1_ps((float)(j + 3));
            for (i = 0; i + 4 <= m; i += 4) {
                __m128 cur = _mm_loadu_ps(vm + i), a = _mm_loadu_ps(am + i), v, up;
                __m128 sum = _mm_loadu_ps(sm + i);
#define STEP_PS(C, JV)                                                                     \
    v = _mm_loadu_ps(C + i);                                                               \
    up = _mm_cmpgt_ps(v, cur);                                                             \
    cur = _mm_max_ps(v, cur);                                                              \
    a = _mm_or_ps(_mm_and_ps(up, JV), _mm_andnot_ps(up, a));                               \
    if (check) sum = _mm_add_ps(sum, _mm_or_ps(v, _mm_and_ps(_mm_cmplt_ps(v, zero), nanv)));
                STEP_PS(c0, j0) STEP_PS(c1, j1) STEP_PS(c2, j2) STEP_PS(c3, j3)
#undef STEP_PS
                _mm_storeu_ps(vm + i, cur);
                _mm_storeu_ps(am + i, a);
                _mm_storeu_ps(sm + i, sum);
            }
            for (; i < m; i++) {
                const float *cs[4] = {c0, c1, c2, c3};
                int q;
                for (q = 0; q < 4; q++) {
                    const float v = cs[q][i];
                    if (v > vm[i]) vm[i] = v, am[i] = (float)(j + q);
                    sm[i] += v < 0 ? NAN : v;
                }
            }
        }
        for (; j < k; j++) {
            const float *col = (const float *)(P + j * s1) + i0;
            const __m128 jv = _mm_set1_ps((float)j);
            for (i = 0; i + 4 <= m; i += 4) {
                const __m128 v = _mm_loadu_ps(col + i), cur = _mm_loadu_ps(vm + i);
                const __m128 up = _mm_cmpgt_ps(v, cur);
                _mm_storeu_ps(vm + i, _mm_max_ps(v, cur));
                _mm_storeu_ps(am + i, _mm_or_ps(_mm_and_ps(up, jv),
                                               _mm_andnot_ps(up, _mm_loadu_ps(am + i))));
                if (check) {
                    const __m128 vn = _mm_or_ps(v, _mm_and_ps(_mm_cmplt_ps(v, zero), nanv));
                    _mm_storeu_ps(sm + i, _mm_add_ps(_mm_loadu_ps(sm + i), vn));
                }
            }
            for (; i < m; i++) {
                const float v = col[i];
                if (v > vm[i]) vm[i] = v, am[i] = (float)j;
                sm[i] += v < 0 ? NAN : v;
            }
        }
        load_ints(yb, py + i0 * sy, sy, m, ty);
        for (i = 0; i < m; i++) {
            const Py_ssize_t a = (Py_ssize_t)am[i];
            if (check && !sum_ok((double)sm[i], tol)) return i0 + i;
            conf[i0 + i] = *((const float *)(P + a * s1) + i0 + i);
            outcome[i0 + i] = (uint8_t)(a == yb[i]);
        }
    }
    return -1;
}
#endif

/* rows per block of the column-wise pass */
#define COLUMN_BLOCK 8192

FORCE_INLINE Py_ssize_t
top_label_impl(const char *P, Py_ssize_t s0, Py_ssize_t s1, const int t, Py_ssize_t n,
               Py_ssize_t k, const char *py, Py_ssize_t sy, int ty, int check, double tol,
               char *conf, uint8_t *outcome, char *buf, int64_t *yb, Py_ssize_t R)
{
    const Py_ssize_t itemsize = t == T_F64 ? 8 : 4;
    Py_ssize_t i0, i;
    for (i0 = 0; i0 < n; i0 += R) {
        const Py_ssize_t m = n - i0 < R ? n - i0 : R;
        Py_ssize_t rs;
        const char *rows = rows_of(P, s0, s1, itemsize, k, i0, m, buf, &rs);
        load_ints(yb, py + i0 * sy, sy, m, ty);
        for (i = 0; i < m; i++) {
            double v;
            Py_ssize_t a;
            if (!row_top(rows + i * rs, k, t, check, tol, &v, &a)) return i0 + i;
            if (t == T_F64) ((double *)conf)[i0 + i] = v;
            else ((float *)conf)[i0 + i] = (float)v;
            outcome[i0 + i] = (uint8_t)(a == yb[i]);
        }
    }
    return -1;
}

/*
 * top_label(P, y, check, tol, conf, outcome) -> int
 *
 * For each row of P (n, k): conf[i] = the maximum, outcome[i] = (first column of the
 * maximum == y[i]); conf is a contiguous vector of P's dtype, outcome of bool.  With
 * check, each row must hold entries >= 0 summing to 1 within tol (summed in P's dtype):
 * the first failing row is returned, else -1.
 */
static PyObject *
top_label(PyObject *self, PyObject *args)
{
    PyObject *oP, *oy, *oconf, *oout;
    int check;
    double tol;
    Arg P = {0}, y = {0}, cf = {0}, out = {0};
    Py_ssize_t n, k, R, bad = -1;
    char *buf = NULL;
    int64_t *yb = NULL;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "OOpdOO:top_label", &oP, &oy, &check, &tol, &oconf, &oout))
        return NULL;
    if (get_input(oP, &P, 2, 1, "P") < 0) goto done;
    n = P.view.shape[0];
    k = P.view.shape[1];
    if (get_input(oy, &y, 1, 0, "y") < 0) goto done;
    if (y.view.shape[0] != n || k < 1) {
        PyErr_SetString(PyExc_ValueError, "y must have one label per row of P, P a column");
        goto done;
    }
    if (PyObject_GetBuffer(oconf, &cf.view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        goto done;
    cf.held = 1;
    if (type_code(&cf.view) != P.type || cf.view.ndim != 1 || cf.view.shape[0] != n) {
        PyErr_SetString(PyExc_ValueError, "conf must be a contiguous vector of P's dtype");
        goto done;
    }
    if (PyObject_GetBuffer(oout, &out.view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto done;
    out.held = 1;
    if (out.view.itemsize != 1 || out.view.ndim != 1 || out.view.shape[0] != n) {
        PyErr_SetString(PyExc_ValueError, "outcome must be a contiguous bool vector");
        goto done;
    }
#ifdef SKCALIB_SSE2
    if (P.view.strides[0] == P.view.itemsize && P.view.strides[1] != P.view.itemsize && n > 1 &&
        k < (1 << 24)) {
        /* Fortran order: column by column */
        const Py_ssize_t Rc = COLUMN_BLOCK;
        char *scratch = (char *)malloc((size_t)Rc * 3 * sizeof(double));
        yb = (int64_t *)malloc((size_t)Rc * sizeof(int64_t));
        if (scratch == NULL || yb == NULL) {
            free(scratch);
            PyErr_NoMemory();
            goto done;
        }
        {
            const char *pP = (const char *)P.view.buf, *py = (const char *)y.view.buf;
            const Py_ssize_t s1 = P.view.strides[1], sy = y.view.strides[0];
            const int ty = y.type;
            char *vm = scratch, *am = scratch + Rc * sizeof(double);
            char *sm = am + Rc * sizeof(double);
            Py_BEGIN_ALLOW_THREADS
            if (P.type == T_F64)
                bad = top_label_columns_f64(pP, s1, n, k, py, sy, ty, check, tol,
                                            (double *)cf.view.buf, (uint8_t *)out.view.buf, yb,
                                            Rc, (double *)vm, (double *)am, (double *)sm);
            else
                bad = top_label_columns_f32(pP, s1, n, k, py, sy, ty, check, tol,
                                            (float *)cf.view.buf, (uint8_t *)out.view.buf, yb,
                                            Rc, (float *)vm, (float *)am, (float *)sm);
            Py_END_ALLOW_THREADS
        }
        free(scratch);
        result = PyLong_FromSsize_t(bad);
        goto done;
    }
#endif
    R = block_rows(k, P.view.itemsize, 0);
    yb = (int64_t *)malloc((size_t)R * sizeof(int64_t));
    buf = P.view.strides[1] == P.view.itemsize ? NULL
                                                : (char *)malloc((size_t)(R * k) * P.view.itemsize);
    if (yb == NULL || (buf == NULL && P.view.strides[1] != P.view.itemsize)) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const char *pP = (const char *)P.view.buf, *py = (const char *)y.view.buf;
        const Py_ssize_t s0 = P.view.strides[0], s1 = P.view.strides[1], sy = y.view.strides[0];
        const int ty = y.type;
        char *pc = (char *)cf.view.buf;
        uint8_t *po = (uint8_t *)out.view.buf;
        Py_BEGIN_ALLOW_THREADS
        if (P.type == T_F64)
            bad = top_label_impl(pP, s0, s1, T_F64, n, k, py, sy, ty, check, tol, pc, po, buf, yb, R);
        else
            bad = top_label_impl(pP, s0, s1, T_F32, n, k, py, sy, ty, check, tol, pc, po, buf, yb, R);
        Py_END_ALLOW_THREADS
    }
    result = PyLong_FromSsize_t(bad);
done:
    free(buf);
    free(yb);
    release(&P), release(&y), release(&cf), release(&out);
    return result;
}

/*
 * Whether a row holds entries >= 0 that sum to 1 within tol (NaN and infinity fail);
 * float32 rows are summed in float32, as numpy's row sums of the numpy path.
 */
FORCE_INLINE int
row_ok(const char *r, Py_ssize_t k, const int t, double tol)
{
    Py_ssize_t j = 0;
    int neg = 0;
#ifdef SKCALIB_SSE2
    if (t == T_F64) {
        const double *v = (const double *)r;
        const __m128d zero = _mm_setzero_pd();
        __m128d s0 = zero, s1 = zero, bad = zero;
        double lanes[2], sum;
        for (; j + 4 <= k; j += 4) {
            const __m128d a = _mm_loadu_pd(v + j), b = _mm_loadu_pd(v + j + 2);
            s0 = _mm_add_pd(s0, a), s1 = _mm_add_pd(s1, b);
            bad = _mm_or_pd(bad, _mm_or_pd(_mm_cmplt_pd(a, zero), _mm_cmplt_pd(b, zero)));
        }
        _mm_storeu_pd(lanes, _mm_add_pd(s0, s1));
        sum = lanes[0] + lanes[1];
        for (; j < k; j++) {
            sum += v[j];
            neg |= v[j] < 0;
        }
        return !neg && !_mm_movemask_pd(bad) && sum_ok(sum, tol);
    }
    else {
        const float *v = (const float *)r;
        const __m128 zero = _mm_setzero_ps();
        __m128 s0 = zero, s1 = zero, bad = zero;
        float lanes[4], sum;
        for (; j + 8 <= k; j += 8) {
            const __m128 a = _mm_loadu_ps(v + j), b = _mm_loadu_ps(v + j + 4);
            s0 = _mm_add_ps(s0, a), s1 = _mm_add_ps(s1, b);
            bad = _mm_or_ps(bad, _mm_or_ps(_mm_cmplt_ps(a, zero), _mm_cmplt_ps(b, zero)));
        }
        _mm_storeu_ps(lanes, _mm_add_ps(s0, s1));
        sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
        for (; j < k; j++) {
            sum += v[j];
            neg |= v[j] < 0;
        }
        return !neg && !_mm_movemask_ps(bad) && sum_ok((double)sum, tol);
    }
#else
    (void)neg, (void)j;
    if (t == T_F64) return row_ok_f64((const double *)r, k, tol);
    return row_ok_f32((const float *)r, k, tol);
#endif
}

/*
 * Class-wise sums with the same edges for every class: per row, every entry goes to its
 * class's bin (count, sum_proba), and the row's true-class entry adds the weight to the
 * sum_true of its bin.  Without weights and threshold and with equal-width edges, the
 * counts are integers (S->cnt, S->pos: the true-class counts) and row i adds its
 * probabilities to copy i % CW_COPIES of the accumulators, which are added to the totals
 * every RB rows: the column pass below does the same, so that C- and Fortran-ordered
 * arrays give the same sums to the last bit.  Returns the first row that fails the
 * check, -2 - row for a label outside [0, k), else -1.
 */
FORCE_INLINE Py_ssize_t
classwise_impl(const char *P, Py_ssize_t s0, Py_ssize_t s1, const int t, Py_ssize_t n,
               Py_ssize_t k, const char *py, Py_ssize_t sy, int ty, const char *pw,
               Py_ssize_t sw, const Bins *B, double thr, int check, double tol, Sums *loc,
               Sums *tot, char *buf, int64_t *yb, Py_ssize_t R, Py_ssize_t RB, Scratch *S)
{
    const Py_ssize_t itemsize = t == T_F64 ? 8 : 4, stride = B->nb + 1, size = k * stride;
    const int fast = B->uniform && pw == NULL && !(thr > 0);
    const double *el = B->el;
    const double dnb = B->dnb, top = B->top;
    Py_ssize_t f0, i0, i, j;
    /* the sums are added to the totals every RB rows; the rows are read R at a time */
    for (f0 = 0; f0 < n; f0 += RB) {
        const Py_ssize_t fend = n - f0 < RB ? n : f0 + RB;
        for (i0 = f0; i0 < fend; i0 += R) {
            const Py_ssize_t m = fend - i0 < R ? fend - i0 : R;
            Py_ssize_t rs;
            const char *rows = rows_of(P, s0, s1, itemsize, k, i0, m, buf, &rs);
            load_ints(yb, py + i0 * sy, sy, m, ty);
            for (i = 0; i < m; i++) {
                const char *r = rows + i * rs;
                const int64_t yi = yb[i];
                if (yi < 0 || yi >= k) return -2 - (i0 + i);
                if (check && !row_ok(r, k, t, tol)) return i0 + i;
                if (fast) {
                    /* the copy of the accumulators of this row (as in the column pass) */
                    double *const sp = loc->sp + ((i0 + i) & (CW_COPIES - 1)) * size;
                    int64_t *const cnt = S->cnt + ((i0 + i) & (CW_COPIES - 1)) * size;
                    const int with_count = loc->count != NULL;
                    Py_ssize_t off = 0;
                    for (j = 0; j < k; j++, off += stride) {
                        const double p = load_p(r, j * itemsize, t);
                        const Py_ssize_t c = uniform_bin(el, dnb, top, p) + off;
                        sp[c] += p;
                        if (with_count) cnt[c] += 1;
                    }
                    S->pos[yi * stride + uniform_bin(el, dnb, top, load_p(r, yi * itemsize, t))] +=
                        1;
                    continue;
                }
                {
                    const double w = pw ? *(const double *)(pw + (i0 + i) * sw) : 1.0;
                    double p;
                    for (j = 0; j < k; j++) {
                        Py_ssize_t b;
                        p = load_p(r, j * itemsize, t);
                        if (thr > 0 && !(p > thr)) continue;
                        b = j * stride + bin_of(B, p);
                        loc->sp[b] += w * p;
                        if (loc->count) loc->count[b] += w;
                        if (loc->sq) loc->sq[b] += w * w;
                    }
                    p = load_p(r, yi * itemsize, t);
                    if (!(thr > 0 && !(p > thr))) loc->st[yi * stride + bin_of(B, p)] += w;
                }
            }
        }
        if (fast) {
            flush_ints(loc, S, CW_COPIES * size);
            flush(tot, loc, size, CW_COPIES);
        }
        else {
            flush(tot, loc, size, 1);
        }
    }
    return -1;
}

#ifdef SKCALIB_SSE2
/* rs[i] += col[i], or NaN for a negative entry (the row then fails the check) */
static void
add_column_f64(double *rs, const double *col, Py_ssize_t m)
{
    const __m128d zero = _mm_setzero_pd();
    const __m128d nanv = _mm_castsi128_pd(_mm_set1_epi64x(0x7ff8000000000000LL));
    Py_ssize_t i = 0;
    for (; i + 2 <= m; i += 2) {
        const __m128d v = _mm_loadu_pd(col + i);
        const __m128d vn = _mm_or_pd(v, _mm_and_pd(_mm_cmplt_pd(v, zero), nanv));
        _mm_storeu_pd(rs + i, _mm_add_pd(_mm_loadu_pd(rs + i), vn));
    }
    for (; i < m; i++) rs[i] += col[i] < 0 ? NAN : col[i];
}

static void
add_column_f32(float *rs, const float *col, Py_ssize_t m)
{
    const __m128 zero = _mm_setzero_ps();
    const __m128 nanv = _mm_castsi128_ps(_mm_set1_epi32(0x7fc00000));
    Py_ssize_t i = 0;
    for (; i + 4 <= m; i += 4) {
        const __m128 v = _mm_loadu_ps(col + i);
        const __m128 vn = _mm_or_ps(v, _mm_and_ps(_mm_cmplt_ps(v, zero), nanv));
        _mm_storeu_ps(rs + i, _mm_add_ps(_mm_loadu_ps(rs + i), vn));
    }
    for (; i < m; i++) rs[i] += col[i] < 0 ? NAN : col[i];
}

/*
 * The class-wise fast path (equal-width edges, no weights, no threshold) over a
 * Fortran-ordered array: each column is one class, read as a contiguous run and binned
 * into that class's bins (four interleaved copies of the accumulators, as the 1-D
 * kernel: a column's values often share a bin); the row sums of the check are added
 * column by column; then each row's true-class entry.  Same results and return values
 * as classwise_impl.
 */
FORCE_INLINE Py_ssize_t
classwise_columns_impl(const char *P, Py_ssize_t s1, const int t, Py_ssize_t n, Py_ssize_t k,
                       const char *py, Py_ssize_t sy, int ty, const Bins *B, int check,
                       double tol, Sums *loc, Sums *tot, int64_t *yb, Py_ssize_t R, Scratch *S,
                       char *rs)
{
    const Py_ssize_t itemsize = t == T_F64 ? 8 : 4, stride = B->nb + 1, size = k * stride;
    const double *el = B->el;
    const double dnb = B->dnb, top = B->top;
    double *const sp = loc->sp;
    int64_t *const cnt = S->cnt;
    const int with_count = loc->count != NULL;
    Py_ssize_t i0, i, j;
    for (i0 = 0; i0 < n; i0 += R) {
        const Py_ssize_t m = n - i0 < R ? n - i0 : R;
        if (check) memset(rs, 0, (size_t)m * (size_t)itemsize);
        for (j = 0; j < k; j++) {
            const char *col = P + j * s1 + i0 * itemsize;
            const Py_ssize_t off = j * stride;
            i = 0;
            /* row i0 + i goes to copy (i0 + i) % CW_COPIES, as in classwise_impl (R, and so
               i0, is a multiple of CW_COPIES) */
#define LANE(L, COPY)                                                                      \
    {                                                                                      \
        const double p = load_p(col, (i + L) * itemsize, t);                               \
        const Py_ssize_t c = uniform_bin(el, dnb, top, p) + off + (COPY) * size;           \
        sp[c] += p;                                                                        \
        if (with_count) cnt[c] += 1;                                                       \
    }
            for (; i + 4 <= m; i += 4) {
                LANE(0, 0)
                LANE(1, 1 & (CW_COPIES - 1))
                LANE(2, 2 & (CW_COPIES - 1))
                LANE(3, 3 & (CW_COPIES - 1))
            }
            for (; i < m; i++) LANE(0, i & (CW_COPIES - 1))
#undef LANE
            if (check) {
                if (t == T_F64) add_column_f64((double *)rs, (const double *)col, m);
                else add_column_f32((float *)rs, (const float *)col, m);
            }
        }
        load_ints(yb, py + i0 * sy, sy, m, ty);
        for (i = 0; i < m; i++) {
            const int64_t yi = yb[i];
            double p;
            if (yi < 0 || yi >= k) return -2 - (i0 + i);
            if (check) {
                const double sum = t == T_F64 ? ((double *)rs)[i] : (double)((float *)rs)[i];
                if (!sum_ok(sum, tol)) return i0 + i;
            }
            p = load_p(P + yi * s1, (i0 + i) * itemsize, t);
            S->pos[yi * stride + uniform_bin(el, dnb, top, p)] += 1;
        }
        flush_ints(loc, S, CW_COPIES * size);
        flush(tot, loc, size, CW_COPIES);
    }
    return -1;
}
#endif

/*
 * accumulate_classwise(P, y, weight, edges, uniform, threshold, check, tol,
 *                      count, sum_proba, sum_true, sum_weight_sq) -> int
 *
 * Outputs of k * (n_bins + 1) values, class-major (slot n_bins of each class holds the
 * values above the last edge); count and sum_weight_sq may be None.  Returns the first
 * row failing the check (entries >= 0, sum within tol of 1), else -1.
 */
static PyObject *
accumulate_classwise(PyObject *self, PyObject *args)
{
    PyObject *oP, *oy, *ow, *oe, *ocount, *osp, *ost, *osq;
    int uniform, check;
    double thr, tol;
    Arg P = {0}, y = {0}, w = {0}, e = {0}, acount = {0}, asp = {0}, ast = {0}, asq = {0};
    Bins B = {0};
    Sums tot, loc;
    Scratch S = {0};
    Py_ssize_t n, k, size, R, RB, bad = -1;
    int fast;
    double *mem = NULL;
    char *buf = NULL;
    int64_t *yb = NULL;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "OOOOpdpdOOOO:accumulate_classwise", &oP, &oy, &ow, &oe,
                          &uniform, &thr, &check, &tol, &ocount, &osp, &ost, &osq))
        return NULL;
    if (get_input(oP, &P, 2, 1, "P") < 0) goto done;
    n = P.view.shape[0];
    k = P.view.shape[1];
    if (get_input(oy, &y, 1, 0, "y") < 0) goto done;
    if (y.view.shape[0] != n || k < 1) {
        PyErr_SetString(PyExc_ValueError, "y must have one label per row of P, P a column");
        goto done;
    }
    if (get_weights(ow, &w, n) < 0) goto done;
    if (get_f64(oe, &e, -1, 0, "edges") < 0) goto done;
    if (get_bins(&B, &e, uniform) < 0) goto done;
    size = k * (B.nb + 1);
    if (get_optional_f64(ocount, &acount, size, 1, "count") < 0) goto done;
    if (get_f64(osp, &asp, size, 1, "sum_proba") < 0) goto done;
    if (get_f64(ost, &ast, size, 1, "sum_true") < 0) goto done;
    if (get_optional_f64(osq, &asq, size, 1, "sum_weight_sq") < 0) goto done;
    tot.count = acount.held ? (double *)acount.view.buf : NULL;
    tot.sp = (double *)asp.view.buf;
    tot.st = (double *)ast.view.buf;
    tot.sq = asq.held && w.held ? (double *)asq.view.buf : NULL;
    /* the fast path's flush blocks: the same for every memory layout */
    fast = uniform && !w.held && !(thr > 0);
    RB = COLUMN_BLOCK > 4 * (B.nb + 1) ? COLUMN_BLOCK : 4 * (B.nb + 1);
#ifdef SKCALIB_SSE2
    if (P.view.strides[0] == P.view.itemsize && P.view.strides[1] != P.view.itemsize && n > 1 &&
        fast) {
        /* Fortran order: column by column */
        char *rs = NULL;
        R = RB;
        mem = alloc_local(&loc, &tot, size, CW_COPIES);
        S.cnt = (int64_t *)calloc((size_t)(CW_COPIES * size), sizeof(int64_t));
        S.pos = (int64_t *)calloc((size_t)(CW_COPIES * size), sizeof(int64_t));
        yb = (int64_t *)malloc((size_t)R * sizeof(int64_t));
        rs = (char *)malloc((size_t)R * sizeof(double));
        if (mem == NULL || yb == NULL || S.cnt == NULL || S.pos == NULL || rs == NULL) {
            free(rs);
            PyErr_NoMemory();
            goto done;
        }
        {
            const char *pP = (const char *)P.view.buf, *py = (const char *)y.view.buf;
            const Py_ssize_t s1 = P.view.strides[1], sy = y.view.strides[0];
            const int ty = y.type;
            Py_BEGIN_ALLOW_THREADS
            if (P.type == T_F64)
                bad = classwise_columns_impl(pP, s1, T_F64, n, k, py, sy, ty, &B, check, tol, &loc,
                                             &tot, yb, R, &S, rs);
            else
                bad = classwise_columns_impl(pP, s1, T_F32, n, k, py, sy, ty, &B, check, tol, &loc,
                                             &tot, yb, R, &S, rs);
            Py_END_ALLOW_THREADS
        }
        free(rs);
        goto finish;
    }
#endif
    /* blocks large enough that adding the local sums to the totals costs little */
    R = block_rows(k, P.view.itemsize, 4 * size);
    if (!fast) RB = R;
    mem = alloc_local(&loc, &tot, size, fast ? CW_COPIES : 1);
    S.cnt = (int64_t *)calloc((size_t)((fast ? CW_COPIES : 1) * size), sizeof(int64_t));
    S.pos = (int64_t *)calloc((size_t)((fast ? CW_COPIES : 1) * size), sizeof(int64_t));
    yb = (int64_t *)malloc((size_t)R * sizeof(int64_t));
    buf = P.view.strides[1] == P.view.itemsize ? NULL
                                                : (char *)malloc((size_t)(R * k) * P.view.itemsize);
    if (mem == NULL || yb == NULL || S.cnt == NULL || S.pos == NULL ||
        (buf == NULL && P.view.strides[1] != P.view.itemsize)) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const char *pP = (const char *)P.view.buf, *py = (const char *)y.view.buf;
        const char *pw = w.held ? (const char *)w.view.buf : NULL;
        const Py_ssize_t s0 = P.view.strides[0], s1 = P.view.strides[1];
        const Py_ssize_t sy = y.view.strides[0], sw = w.held ? w.view.strides[0] : 0;
        const int ty = y.type;
        Py_BEGIN_ALLOW_THREADS
        if (P.type == T_F64)
            bad = classwise_impl(pP, s0, s1, T_F64, n, k, py, sy, ty, pw, sw, &B, thr, check, tol,
                                 &loc, &tot, buf, yb, R, RB, &S);
        else
            bad = classwise_impl(pP, s0, s1, T_F32, n, k, py, sy, ty, pw, sw, &B, thr, check, tol,
                                 &loc, &tot, buf, yb, R, RB, &S);
        Py_END_ALLOW_THREADS
    }
#ifdef SKCALIB_SSE2
finish:
#endif
    if (bad <= -2) {
        PyErr_Format(PyExc_ValueError, "y[%zd] is not a class index in [0, %zd)", -2 - bad, k);
        goto done;
    }
    result = PyLong_FromSsize_t(bad);
done:
    free(mem);
    free(buf);
    free(yb);
    free(S.cnt), free(S.pos);
    free(B.el);
    release(&P), release(&y), release(&w), release(&e);
    release(&acount), release(&asp), release(&ast), release(&asq);
    return result;
}

/*
 * bin_index(x, edges, uniform, out) -> None
 *
 * out[i] = the bin of x[i] in [0, n_bins] (n_bins for values above the last edge):
 * np.searchsorted(edges[1:], x, side="left").  x: 1-D float32/float64, any stride; out:
 * a contiguous intp vector.
 */
static PyObject *
bin_index(PyObject *self, PyObject *args)
{
    PyObject *ox, *oe, *oout;
    int uniform;
    Arg x = {0}, e = {0}, out = {0};
    Bins B = {0};
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "OOpO:bin_index", &ox, &oe, &uniform, &oout)) return NULL;
    if (get_input(ox, &x, 1, 1, "x") < 0) goto done;
    if (get_f64(oe, &e, -1, 0, "edges") < 0) goto done;
    if (get_bins(&B, &e, uniform) < 0) goto done;
    if (PyObject_GetBuffer(oout, &out.view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto done;
    out.held = 1;
    if (out.view.itemsize != sizeof(Py_ssize_t) || out.view.ndim != 1 ||
        out.view.shape[0] != x.view.shape[0]) {
        PyErr_SetString(PyExc_ValueError, "out must be a contiguous intp vector as long as x");
        goto done;
    }
    {
        const char *px = (const char *)x.view.buf;
        const Py_ssize_t sx = x.view.strides[0], n = x.view.shape[0];
        Py_ssize_t *po = (Py_ssize_t *)out.view.buf, i;
        Py_BEGIN_ALLOW_THREADS
        if (x.type == T_F64) {
            for (i = 0; i < n; i++) po[i] = bin_of(&B, load_p(px, i * sx, T_F64));
        }
        else {
            for (i = 0; i < n; i++) po[i] = bin_of(&B, load_p(px, i * sx, T_F32));
        }
        Py_END_ALLOW_THREADS
    }
    result = Py_NewRef(Py_None);
done:
    free(B.el);
    release(&x), release(&e), release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"accumulate_1d", accumulate_1d, METH_VARARGS,
     "Per-bin sums of one group of (probability, outcome) pairs."},
    {"accumulate_classwise", accumulate_classwise, METH_VARARGS,
     "Class-wise per-bin sums of a 2-D probability array."},
    {"top_label", top_label, METH_VARARGS, "Row maxima and top-label correctness."},
    {"bin_index", bin_index, METH_VARARGS, "Bin index of each value (right-closed rule)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ckernels",
    "Compiled kernels of skcalib's binning core (an accelerator of the numpy path).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__ckernels(void)
{
    return PyModule_Create(&module);
}
