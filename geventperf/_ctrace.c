/* geventperf._ctrace: the Tracer's per-switch hot path in C.
 *
 * It does exactly what Tracer._make_trace's Python closure does (tracer.py is the
 * reference and the fallback), on records whose fields are C doubles/ints so a switch
 * allocates nothing in the common case.  Everything rare (a greenlet seen for the
 * first time, a new stack, a death, a long slice, a switch inside a C section, an
 * error) calls back into the Python methods of the Tracer, so the two stay identical.
 *
 * Stack keys differ from the Python version on purpose: a 64-bit multiplicative hash of
 * the (code object address, instruction offset) pairs instead of a tuple, so no objects
 * are created per frame.  The code objects of every stored stack are kept alive by the
 * Tracer (_new_row), so an address cannot be reused by another code object while
 * tracing; a 64-bit collision between two live stacks is not a practical concern.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <frameobject.h>
#include <stdint.h>
#include <time.h>

/* Walking a stack through the public API (PyFrame_GetBack, PyFrame_GetCode) costs
   about 55 instructions per frame: new references, and a frame object materialised
   for every interpreter frame.  On CPython 3.11 the interpreter frames are walked
   directly instead (about 10 per frame), exactly as PyFrame_GetBack would, skipping
   incomplete frames; the layout is that version's, so every other version takes the
   public API.  tests/test_tracer_ctrace.py checks both walks agree. */
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define Py_BUILD_CORE
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE
#define FAST_FRAME_WALK 1
#else
#define FAST_FRAME_WALK 0
#endif

/* Ready-wait histogram buckets: the rule of geventperf/latency.py (bucket()), which
   checks at import that NBUCKETS agrees. */
#define NBUCKETS 26
#define BUCKET_UNIT_S 1e-6

static inline int ready_bucket(double seconds) {
    if (seconds < BUCKET_UNIT_S)
        return 0;
    if (seconds >= BUCKET_UNIT_S * (double)(1ULL << (NBUCKETS - 2)))
        return NBUCKETS - 1;
    /* the bit length of the whole microseconds is frexp's exponent for them: 1 us ->
       1, [2, 4) us -> 2, ... (a multiply and a count of leading zeros, no division) */
    unsigned long long us = (unsigned long long)(seconds * (1.0 / BUCKET_UNIT_S));
    return 64 - __builtin_clzll(us);
}

#if PY_VERSION_HEX < 0x030B0000
#error "geventperf._ctrace needs Python 3.11+ (PyFrame_GetLasti); 3.10 uses the Python path"
#endif

/* The clocks of time.perf_counter() and time.thread_time() on Linux. */
static inline double mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ wall clock ------ */

/* The hot path's wall clock is CLOCK_MONOTONIC, the clock of time.perf_counter(), which
   the Python parts of the Tracer read and compare with it.  Read through the vDSO it
   cost about a tenth of everything this file adds per switch: the vDSO orders its TSC
   read (lfence), so the switch waits for the clock before going on.
   Where the kernel itself keeps time from the TSC (clocksource "tsc": the kernel picks it
   only for an invariant TSC in step on every CPU, and drops it if its watchdog sees the
   TSC drift), the hot path reads the TSC and converts it at a rate measured against
   CLOCK_MONOTONIC.  At the first read ANCHOR_S or more after the last anchor it re-reads
   the kernel's clock and steers towards it, so the two part by no more than ANCHOR_S
   times the rate's error (nanoseconds: a switch, the shortest interval compared, takes
   over 100 ns); after an idle gap the next read is the kernel's clock itself.  It never
   steps back: found ahead of the kernel's clock at an anchor, it goes on from where it
   was, a little slower, to meet the kernel's clock at the next anchor (a slice ending
   after another began would show as overlapping events in a timeline).  Anywhere else, and when an
   anchor finds the TSC off the kernel's clock, every read is clock_gettime(). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define TSC_CLOCK 1
#else
#define TSC_CLOCK 0
#endif

/* Re-read the kernel clock this often: the error between anchors grows with it, the
   cost (one clock_gettime) shrinks; at 200 us it is about one read in a thousand
   switches. */
#define ANCHOR_S 200e-6
/* The TSC's rate is measured over this long, first (clock_gettime's jitter of tens of
   ns over 5 ms: a rate error of ~10 ppm, 2 ns over an anchor period) ... */
#define FIRST_RATE_S 5e-3
/* ... then again over every this long, to follow the kernel's slewing of its clock. */
#define RATE_S 0.1
/* An anchor finding the TSC further off than this from the kernel's clock (and further
   than twice the largest NTP slew, 500 ppm, allows over the interval) means the TSC does
   not keep the kernel's time here: the clock falls back to clock_gettime for good. */
#define TSC_MAX_ERROR_S 5e-6
#define TSC_MAX_RATE_ERROR 1e-3
/* The most an anchor period makes up of the clock's lead on the kernel's: half of it,
   so the clock still runs at half speed or more. */
#define MAX_LAG_S (ANCHOR_S / 2)

/* One clock for the process: the TSC is the machine's, and its rate measured once
   serves every Tracer.  Read and written under the GIL (the hot path and the Hot
   methods all hold it). */
static struct {
    uint64_t anchor_tsc;    /* the last anchor: the TSC, and the time it stands for */
    double anchor_s;
    uint64_t anchor_ticks;  /* ANCHOR_S in ticks; 0 until the rate is known, so that
                               every read takes an anchor */
    double per_tick;        /* seconds per tick, measured; 0 until measured */
    double slope;           /* seconds per tick until the next anchor: per_tick, less
                               what meets the kernel's clock there when ahead of it */
    double floor_s;         /* once the TSC is given up: the last time it read, which
                               clock_gettime's reads are kept from going back past */
    uint64_t rate_tsc;      /* the start of the rate's measurement */
    double rate_s;
    long long anchors;
    int started, dropped;   /* dropped: the TSC was found off the kernel's clock */
} tsc_clock;

#if TSC_CLOCK
/* The TSC and the kernel clock read together: the TSC on both sides of the kernel's
   read, the middle standing for its instant.  The tightest of PAIR_TRIES brackets is
   kept: a thread preempted inside one would put the pair milliseconds apart. */
#define PAIR_TRIES 3
static double tsc_pair(uint64_t *tsc) {  /* *tsc: the TSC of the tightest try */
    uint64_t best_width = UINT64_MAX;
    double best_s = 0.0;
    for (int i = 0; i < PAIR_TRIES; i++) {
        uint64_t before = __rdtsc();
        double s = mono_now();
        uint64_t width = __rdtsc() - before;
        if (width < best_width) {
            best_width = width;
            best_s = s;
            *tsc = before + (width >> 1);
        }
    }
    return best_s;
}

/* An anchor: the kernel's clock, checked against the TSC's reading of it, and the
   rate when its measurement has run long enough. */
static __attribute__((noinline)) double tsc_anchor(void) {
    if (tsc_clock.dropped) {
        double s = mono_now();
        return s > tsc_clock.floor_s ? s : tsc_clock.floor_s;
    }
    uint64_t t = 0;
    double s = tsc_pair(&t);
    double at = s;  /* the time this anchor stands for */
    if (!tsc_clock.started) {
        tsc_clock.started = 1;
        tsc_clock.rate_tsc = t;
        tsc_clock.rate_s = s;
    } else if (tsc_clock.per_tick > 0.0) {
        uint64_t since = t - tsc_clock.anchor_tsc;
        /* what the TSC reads now */
        double read = tsc_clock.anchor_s + (double)(int64_t)since * tsc_clock.slope;
        double off = read - s;
        double tolerance = (s - tsc_clock.anchor_s) * TSC_MAX_RATE_ERROR;
        if (tolerance < TSC_MAX_ERROR_S)
            tolerance = TSC_MAX_ERROR_S;
        /* No read since the last anchor was later than this: reads stop short of
           anchor_ticks (a read past it takes an anchor), and a TSC that leapt forward
           reads ahead of them. */
        double last = since < tsc_clock.anchor_ticks ? read : tsc_clock.anchor_s +
            (double)(int64_t)tsc_clock.anchor_ticks * tsc_clock.slope;
        if (off > tolerance || -off > tolerance) {
            tsc_clock.dropped = 1;
            tsc_clock.anchor_ticks = 0;
            tsc_clock.floor_s = last;
            return s > last ? s : last;
        }
        /* never back past that; after an idle gap it is far behind the kernel's clock,
           so a rate error over the gap is not carried on */
        if (last > at)
            at = last;
    }
    double measured = s - tsc_clock.rate_s;
    if (measured >= (tsc_clock.per_tick > 0.0 ? RATE_S : FIRST_RATE_S)
            && t > tsc_clock.rate_tsc) {
        tsc_clock.per_tick = measured / (double)(t - tsc_clock.rate_tsc);
        tsc_clock.anchor_ticks = (uint64_t)(ANCHOR_S / tsc_clock.per_tick);
        tsc_clock.rate_tsc = t;
        tsc_clock.rate_s = s;
    }
    /* ahead of the kernel's clock by at - s (what the rate's error made of one anchor
       period: nanoseconds): run that much slower until the next anchor; capped, so the
       clock always goes forward */
    double lag = at - s < MAX_LAG_S ? at - s : MAX_LAG_S;
    tsc_clock.slope = tsc_clock.per_tick * (1.0 - lag / ANCHOR_S);
    tsc_clock.anchor_tsc = t;
    tsc_clock.anchor_s = at;
    tsc_clock.anchors++;
    return at;
}
#endif

/* The wall clock of a tracer that may read the TSC (use_tsc: trace/wallclock.py). */
static inline double wall_now(int use_tsc) {
#if TSC_CLOCK
    if (use_tsc) {
        uint64_t ticks = __rdtsc() - tsc_clock.anchor_tsc;
        if (__builtin_expect(ticks < tsc_clock.anchor_ticks, 1))  /* then well below
                                                                     2^63: signed */
            return tsc_clock.anchor_s + (double)(int64_t)ticks * tsc_clock.slope;
        return tsc_anchor();
    }
#else
    (void)use_tsc;
#endif
    return mono_now();
}

static inline double thread_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static PyObject *str_gr_frame, *str_dead, *str_name, *str_t0;
static PyTypeObject *greenlet_type;  /* greenlet.greenlet, from its C API */

static inline int is_none(PyObject *o) { return o == NULL || o == Py_None; }

/* ---------------------------------------------------------------- Record ------ */

typedef struct {
    PyObject_HEAD
    long long gid;
    Py_ssize_t key;
    PyObject *name, *origin, *parent, *weak, *wait_row, *open, *c_pending;
    char is_hub;
    double run, cpu, wait, longest, t_in, cpu_in, t_out;
    int has_out; /* t_out is meaningful (the greenlet is switched out) */
    char finished; /* set by Tracer._finish: the greenlet is gone, its address may be reused */
    long long switches;
    int c_depth;
    /* the wait split (geventperf/trace/waits.py) */
    double event_wait, ready_wait, delayed, ready_in, ready_max;
    long long out_idx, polls_out;
    char ready_at_once;
    PyObject *sec_closed;  /* dict: sections closed in this slice -> time inside, or NULL */
    long long hist[NBUCKETS];
} RecordObject;

static int record_init(RecordObject *self, PyObject *args, PyObject *kw) {
    long long gid;
    Py_ssize_t key;
    if (!PyArg_ParseTuple(args, "Ln", &gid, &key))
        return -1;
    self->gid = gid;
    self->key = key;
    self->out_idx = self->polls_out = -1;
    Py_XSETREF(self->name, Py_NewRef(Py_None));
    Py_XSETREF(self->origin, PyUnicode_FromString(""));
    Py_XSETREF(self->parent, Py_NewRef(Py_None));
    Py_XSETREF(self->weak, Py_NewRef(Py_None));
    Py_XSETREF(self->wait_row, Py_NewRef(Py_None));
    Py_XSETREF(self->open, PyList_New(0));
    Py_XSETREF(self->c_pending, Py_NewRef(Py_None));
    if (self->origin == NULL || self->open == NULL)
        return -1;
    return 0;
}

static int record_traverse(RecordObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->name); Py_VISIT(self->origin); Py_VISIT(self->parent);
    Py_VISIT(self->weak); Py_VISIT(self->wait_row); Py_VISIT(self->open);
    Py_VISIT(self->c_pending); Py_VISIT(self->sec_closed);
    return 0;
}

static int record_clear(RecordObject *self) {
    Py_CLEAR(self->name); Py_CLEAR(self->origin); Py_CLEAR(self->parent);
    Py_CLEAR(self->weak); Py_CLEAR(self->wait_row); Py_CLEAR(self->open);
    Py_CLEAR(self->c_pending); Py_CLEAR(self->sec_closed);
    return 0;
}

static void record_dealloc(RecordObject *self) {
    PyObject_GC_UnTrack(self);
    record_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *record_get_t_out(RecordObject *self, void *closure) {
    if (!self->has_out)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(self->t_out);
}

static int record_set_t_out(RecordObject *self, PyObject *value, void *closure) {
    if (value == NULL || value == Py_None) {
        self->has_out = 0;
        return 0;
    }
    double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred())
        return -1;
    self->t_out = v;
    self->has_out = 1;
    return 0;
}

#define RM(n, t) {#n, t, offsetof(RecordObject, n), 0, NULL}
static PyMemberDef record_members[] = {
    RM(gid, T_LONGLONG), RM(key, T_PYSSIZET),
    RM(name, T_OBJECT), RM(origin, T_OBJECT), RM(parent, T_OBJECT), RM(weak, T_OBJECT),
    RM(wait_row, T_OBJECT), RM(open, T_OBJECT), RM(c_pending, T_OBJECT),
    RM(is_hub, T_BOOL), RM(finished, T_BOOL), RM(run, T_DOUBLE), RM(cpu, T_DOUBLE), RM(wait, T_DOUBLE),
    RM(longest, T_DOUBLE), RM(t_in, T_DOUBLE), RM(cpu_in, T_DOUBLE),
    RM(switches, T_LONGLONG), RM(c_depth, T_INT),
    RM(event_wait, T_DOUBLE), RM(ready_wait, T_DOUBLE), RM(delayed, T_DOUBLE),
    RM(ready_in, T_DOUBLE), RM(ready_max, T_DOUBLE), RM(out_idx, T_LONGLONG),
    RM(polls_out, T_LONGLONG), RM(ready_at_once, T_BOOL), RM(sec_closed, T_OBJECT),
    {NULL}
};

static PyObject *hist_list(const long long *hist) {
    PyObject *out = PyList_New(NBUCKETS);
    if (out == NULL)
        return NULL;
    for (int i = 0; i < NBUCKETS; i++) {
        PyObject *v = PyLong_FromLongLong(hist[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *record_get_hist(RecordObject *self, void *closure) {
    return hist_list(self->hist);
}

static PyGetSetDef record_getset[] = {
    {"t_out", (getter)record_get_t_out, (setter)record_set_t_out, NULL, NULL},
    {"hist", (getter)record_get_hist, NULL, "ready-wait histogram counts", NULL},
    {NULL}
};

static PyTypeObject RecordType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geventperf._ctrace.Record",
    .tp_doc = "Bookkeeping of one greenlet while tracing (see tracer._Record).",
    .tp_basicsize = sizeof(RecordObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)record_init,
    .tp_dealloc = (destructor)record_dealloc,
    .tp_traverse = (traverseproc)record_traverse,
    .tp_clear = (inquiry)record_clear,
    .tp_members = record_members,
    .tp_getset = record_getset,
};

/* ------------------------------------------------------------------- Row ------ */

typedef struct {
    PyObject_HEAD
    long long n_out, n_wait, gid;
    double run, cpu, wait, ev, rd, delayed;
    char self_ready;
} RowObject;

#define WM(n, t) {#n, t, offsetof(RowObject, n), 0, NULL}
static PyMemberDef row_members[] = {
    WM(n_out, T_LONGLONG), WM(n_wait, T_LONGLONG), WM(run, T_DOUBLE), WM(cpu, T_DOUBLE),
    WM(wait, T_DOUBLE), WM(ev, T_DOUBLE), WM(rd, T_DOUBLE), WM(delayed, T_DOUBLE),
    WM(self_ready, T_BOOL), WM(gid, T_LONGLONG), {NULL}
};

static PyTypeObject RowType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geventperf._ctrace.Row",
    .tp_doc = "Totals of one switch-out stack (see tracer._Row).",
    .tp_basicsize = sizeof(RowObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_members = row_members,
};

/* ----------------------------------------------------------- OpenSection ------ */

/* One open section of one greenlet, its counters at entry: records.OpenSection, made
   by Hot.section_enter so that entering and leaving a section touches no Python
   attribute (a wrapped json.loads of a small document cost 2.6 us more in Python). */
typedef struct {
    PyObject_HEAD
    PyObject *owner, *name, *parser_lock;
    char c, recursive;
    double t0, run0, cpu0, wait0, ev0, rd0;
    long long sw0;
} SectionObject;

static int section_traverse(SectionObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->owner); Py_VISIT(self->name); Py_VISIT(self->parser_lock);
    return 0;
}

static int section_clear(SectionObject *self) {
    Py_CLEAR(self->owner); Py_CLEAR(self->name); Py_CLEAR(self->parser_lock);
    return 0;
}

static void section_dealloc(SectionObject *self) {
    PyObject_GC_UnTrack(self);
    section_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* read-only: the C code reads name and owner without a check */
#define SM(n, t) {#n, t, offsetof(SectionObject, n), READONLY, NULL}
static PyMemberDef section_members[] = {
    SM(owner, T_OBJECT), SM(name, T_OBJECT), SM(parser_lock, T_OBJECT), SM(c, T_BOOL),
    SM(recursive, T_BOOL), SM(t0, T_DOUBLE), SM(run0, T_DOUBLE), SM(cpu0, T_DOUBLE),
    SM(wait0, T_DOUBLE), SM(ev0, T_DOUBLE), SM(rd0, T_DOUBLE), SM(sw0, T_LONGLONG), {NULL}
};

static PyTypeObject SectionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geventperf._ctrace.OpenSection",
    .tp_doc = "One open section of one greenlet (see records.OpenSection).",
    .tp_basicsize = sizeof(SectionObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_dealloc = (destructor)section_dealloc,
    .tp_traverse = (traverseproc)section_traverse,
    .tp_clear = (inquiry)section_clear,
    .tp_members = section_members,
};

/* ------------------------------------------------------------------- Hot ------ */

/* Cache sizes: powers of two, larger than the greenlets and stacks a loop usually
   cycles through; a miss only costs the dict lookup it replaces. */
#define TCACHE_SIZE 256
#define SCACHE_SIZE 1024

/* One slice in the blame log: 64 bytes, one cache line, so logging a slice touches
   one line (separate arrays touched eight). */
typedef struct {
    PyObject *rec, *row, *sec, *closed;  /* owned; NULL where empty */
    double start, end, secfrom;
    long long diff;
} BlameSlot;

/* A slice waiting for its share of the next read of the interval CPU clock
   (geventperf/trace/cpuclock.py): its record and stack row (owned), its busy wall. */
typedef struct {
    PyObject *rec, *row;
    double weight;
} CpuPending;

#define CPU_NONE 0
#define CPU_INTERVAL 1
#define CPU_SWITCH 2

/* One kept run slice (48 bytes, one cache line touched per switch; six separate
   arrays touched six). */
typedef struct {
    long long gid;
    double start, dur, ready;
    PyObject *sec;  /* owned */
    /* The key (stack hash) of the row the slice ended at, where its greenlet's next wait
       began (findings read what each waited on); 0: none.  A key, not a reference: a
       reference's count would touch another object's memory at every switch. */
    uint64_t stack;
} RingSlot;

typedef struct {
    PyObject_HEAD
    /* greenlet calls the trace function through vectorcall: without it, CPython builds
       (and frees) an argument tuple per switch, about 140 instructions of the ~900
       this object adds (callgrind) */
    vectorcallfunc vectorcall;
    PyObject *cur;  /* the running greenlet's Record, or None */
    int use_tsc;  /* the wall clock may come from the TSC (wall_now) */
    long long switches, errors;
    int on, cpu_clock, stacks, depth;  /* cpu_clock: CPU_NONE, _INTERVAL or _SWITCH */
    double threshold;
    PyObject *prev, *live, *table, *exit_key;
    PyObject *new_record, *new_row, *finish, *on_blocked, *on_c_switch, *on_c_resume,
             *on_error, *name_from_frames;
    /* Direct-mapped caches in front of the live and table dicts, so the common switch
       creates no int objects: greenlet address -> Record (valid while not finished)
       and stack hash -> Row (rows are never replaced). */
    RecordObject *tcache[TCACHE_SIZE];
    uint64_t skey[SCACHE_SIZE];
    PyObject *srow[SCACHE_SIZE];
    /* ring buffer of the most recent run slices */
    Py_ssize_t cap, count, r_pos;  /* r_pos: the slot of the next slice */
    long long total;
    RingSlot *ring;
    /* the wait split and blame: geventperf/trace/waits.py (WaitSplit) is the
       reference; names match its attributes */
    int poll_open, poll_pending, seen_begin;
    double poll_t0, idle, mark, last_check, unattributed, poll_blocked_min, hist_max,
           first_poll_blocked_min;
    long long polls, mark_idx, last_check_idx, b_total, fin, acc, pend;
    long long hist[NBUCKETS];
    Py_ssize_t window;
    BlameSlot *b;  /* the blame log, a ring of window slots */
    PyObject *section_blame, *long_charge, *long_span;  /* dicts, as in WaitSplit */
    PyObject *sections;  /* the Tracer's section table: name -> [c, calls, wall, ...] */
    /* the interval CPU clock: CpuSpread's attributes (trace/cpuclock.py) */
    double cpu_interval, cpu_last, cpu_read_at, slice_from, slice_idle0, slice_cpu,
           cpu_weight;
    CpuPending *cpu_pend;
    Py_ssize_t cpu_npend, cpu_cap;
    long long cpu_reads;
    /* get_gr_frame's cache: two greenlet types (raw and gevent's alternate) */
    PyTypeObject *gf_type[2];
    unsigned int gf_version[2];
    PyGetSetDef *gf_getset[2];
    int gf_next;
} HotObject;

static PyObject *hot_vectorcall(HotObject *self, PyObject *const *args, size_t nargsf,
                                 PyObject *kwnames);

/* The blame log's slot of slice index i: the window is a power of two (checked at
   init), so a mask instead of a division on every switch. */
#define BPOS(self, i) ((Py_ssize_t)((i) & ((self)->window - 1)))

static void caches_clear(HotObject *self) {
    for (int i = 0; i < TCACHE_SIZE; i++)
        Py_CLEAR(self->tcache[i]);
    for (int i = 0; i < SCACHE_SIZE; i++) {
        Py_CLEAR(self->srow[i]);
        self->skey[i] = 0;
    }
}

/* The record cache is two-way set-associative: a greenlet's set is two slots from a
   multiplicative hash of its address (shifts and xors of an allocator's addresses
   collided: the hub and a worker sharing a slot evicted each other at every switch,
   a dict lookup and an int object each time). */
static inline size_t tcache_set(PyObject *g) {
    uint64_t h = (uint64_t)(uintptr_t)g * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 56) & (TCACHE_SIZE - 2);  /* even: the set's first way */
}

static inline RecordObject *tcache_get(HotObject *self, size_t set, PyObject *g) {
    for (size_t way = set; way < set + 2; way++) {
        RecordObject *r = self->tcache[way];
        if (r != NULL && r->key == (Py_ssize_t)(uintptr_t)g && !r->finished)
            return r;
    }
    return NULL;
}

/* Make t the set's most recent way (the other one keeps the previous most recent). */
static inline void tcache_put(HotObject *self, size_t set, RecordObject *t) {
    if (self->tcache[set] == t)
        return;
    if (self->tcache[set + 1] == t) {  /* a swap: both references move */
        self->tcache[set + 1] = self->tcache[set];
        self->tcache[set] = t;
        return;
    }
    Py_XSETREF(self->tcache[set + 1], self->tcache[set]);  /* way 0's reference moves */
    self->tcache[set] = (RecordObject *)Py_NewRef(t);
}

static void ring_free(HotObject *self) {
    if (self->ring != NULL) {
        for (Py_ssize_t i = 0; i < self->cap; i++)
            Py_CLEAR(self->ring[i].sec);
    }
    PyMem_Free(self->ring);
    self->ring = NULL;
    self->cap = self->count = 0;
    self->total = 0;
    self->r_pos = 0;
}

static void blame_free(HotObject *self) {
    if (self->b != NULL) {
        for (Py_ssize_t i = 0; i < self->window; i++) {
            Py_CLEAR(self->b[i].rec); Py_CLEAR(self->b[i].row); Py_CLEAR(self->b[i].sec);
            Py_CLEAR(self->b[i].closed);
        }
    }
    PyMem_Free(self->b);
    self->b = NULL;
    self->window = 0;
}

static int blame_alloc(HotObject *self, Py_ssize_t window) {
    self->b = PyMem_Calloc(window, sizeof(BlameSlot));
    if (self->b == NULL) {
        blame_free(self);
        PyErr_NoMemory();
        return -1;
    }
    self->window = window;
    self->poll_open = 0;
    self->poll_t0 = self->idle = self->unattributed = self->hist_max = 0.0;
    self->mark = self->last_check = -1.0;
    self->polls = self->mark_idx = self->last_check_idx = 0;
    self->b_total = self->fin = self->acc = self->pend = 0;
    memset(self->hist, 0, sizeof(self->hist));
    return 0;
}

static int section_add(HotObject *self, PyObject *name, double seconds) {
    PyObject *old = PyDict_GetItemWithError(self->section_blame, name);
    if (old == NULL && PyErr_Occurred()) return -1;
    PyObject *v = PyFloat_FromDouble((old ? PyFloat_AsDouble(old) : 0.0) + seconds);
    if (v == NULL) return -1;
    int rc = PyDict_SetItem(self->section_blame, name, v);
    Py_DECREF(v);
    return rc;
}

/* Charge *seconds* of others' ready wait to the slice at global index idx; *span* is
   the longest any one of those waits lasted within the slice. */
static int blame_charge(HotObject *self, long long idx, double seconds, double span) {
    if (seconds <= 0.0)
        return 0;
    Py_ssize_t pos = BPOS(self, idx);
    if (self->b[pos].end - self->b[pos].start > self->threshold &&
        PyDict_GET_SIZE(self->long_charge) > 0) {  /* a watched slice is a long one */
        PyObject *k = PyLong_FromLongLong(idx);
        if (k == NULL) return -1;
        PyObject *old = PyDict_GetItemWithError(self->long_charge, k);
        int rc = 0;
        if (old != NULL) {
            PyObject *v = PyFloat_FromDouble(PyFloat_AsDouble(old) + seconds);
            rc = v == NULL ? -1 : PyDict_SetItem(self->long_charge, k, v);
            Py_XDECREF(v);
            PyObject *longest = rc < 0 ? NULL : PyDict_GetItemWithError(self->long_span, k);
            if (longest != NULL && span > PyFloat_AsDouble(longest)) {
                v = PyFloat_FromDouble(span);
                rc = v == NULL ? -1 : PyDict_SetItem(self->long_span, k, v);
                Py_XDECREF(v);
            } else if (longest == NULL && PyErr_Occurred()) {
                rc = -1;
            }
        } else if (PyErr_Occurred()) {
            rc = -1;
        }
        Py_DECREF(k);
        if (rc < 0) return -1;
    }
    RecordObject *rec = (RecordObject *)self->b[pos].rec;
    if (rec != NULL)
        rec->delayed += seconds;
    if (self->b[pos].row != NULL)
        ((RowObject *)self->b[pos].row)->delayed += seconds;
    /* sections, by the share of the slice spent in them (WaitSplit._charge) */
    double length = self->b[pos].end - self->b[pos].start;
    if (length <= 0.0)
        return 0;
    PyObject *sec = self->b[pos].sec;
    if (sec != NULL && section_add(self, sec, seconds * (self->b[pos].end -
                                                         self->b[pos].secfrom) / length) < 0)
        return -1;
    PyObject *closed = self->b[pos].closed;
    if (closed != NULL && PyDict_Check(closed)) {
        Py_ssize_t it = 0;
        PyObject *name, *inside;
        while (PyDict_Next(closed, &it, &name, &inside)) {
            double t = PyFloat_AsDouble(inside);
            if (t == -1.0 && PyErr_Occurred()) return -1;
            if (section_add(self, name, seconds * t / length) < 0)
                return -1;
        }
    }
    return 0;
}

/* Settle every slice before global index upto (no later ready interval reaches it). */
static int blame_settle(HotObject *self, long long upto) {
    if (upto > self->b_total)
        upto = self->b_total;
    while (self->fin < upto) {
        Py_ssize_t pos = BPOS(self, self->fin);
        self->acc += self->b[pos].diff;
        int rc = 0;
        if (self->acc > 0)
            rc = blame_charge(self, self->fin,
                              (double)self->acc * (self->b[pos].end - self->b[pos].start),
                              self->b[pos].end - self->b[pos].start);
        Py_CLEAR(self->b[pos].rec); Py_CLEAR(self->b[pos].row); Py_CLEAR(self->b[pos].sec);
        Py_CLEAR(self->b[pos].closed);
        self->fin++;
        if (rc < 0) return -1;
    }
    return 0;
}

/* A run slice of rec ended (it switches out). */
static int blame_log(HotObject *self, RecordObject *rec, PyObject *row, PyObject *section,
                     double section_t0, double start, double end) {
    long long idx = self->b_total;
    if (idx - self->fin >= self->window && blame_settle(self, self->fin + 1) < 0)
        return -1;
    Py_ssize_t pos = BPOS(self, idx);
    Py_XSETREF(self->b[pos].rec, Py_NewRef((PyObject *)rec));
    Py_XSETREF(self->b[pos].row, row ? Py_NewRef(row) : NULL);
    Py_XSETREF(self->b[pos].sec, section != Py_None ? Py_NewRef(section) : NULL);
    /* the sections closed during the slice move from the record to the log */
    if (is_none(rec->sec_closed)) {
        Py_CLEAR(rec->sec_closed);
        Py_CLEAR(self->b[pos].closed);
    } else {
        Py_XSETREF(self->b[pos].closed, rec->sec_closed);  /* steals the record's */
        rec->sec_closed = NULL;
    }
    self->b[pos].secfrom = section_t0 > start ? section_t0 : start;
    self->b[pos].start = start;
    self->b[pos].end = end;
    self->b[pos].diff = -self->pend;
    self->pend = 0;
    self->b_total = idx + 1;
    rec->polls_out = self->polls;
    rec->out_idx = idx;
    return 0;
}

static int poll_end_at(HotObject *self, double now) {
    if (!self->poll_open)
        return 0;
    self->poll_open = 0;
    double took = now - self->poll_t0;
    self->idle += took;
    self->polls++;
    if (took >= self->poll_blocked_min && !self->poll_pending) {
        self->mark = now;
        self->mark_idx = self->b_total;
    } else {
        self->mark = self->last_check;
        self->mark_idx = self->last_check_idx;
    }
    self->last_check = now;
    self->last_check_idx = self->b_total;
    return blame_settle(self, self->mark_idx);
}

/* t (not the hub) is switched in by origin's record after waiting since t->t_out;
   origin's slice is the latest logged.  Splits and blames the wait (WaitSplit.woke). */
static int blame_woke(HotObject *self, RecordObject *t, double now, RecordObject *origin,
                      double *ready_out) {
    double t_out = t->t_out, ready_from = now;
    long long first = self->b_total;
    RowObject *row = is_none(t->wait_row) ? NULL : (RowObject *)t->wait_row;
    if (t->ready_at_once || (row != NULL && row->self_ready)) {
        ready_from = t_out;
        first = t->out_idx + 1;
        t->ready_at_once = 0;
    } else if (self->polls != t->polls_out) {
        if (t_out < self->mark) {
            ready_from = self->mark;
            first = self->mark_idx + 1;
            if (self->mark_idx < self->b_total) {
                Py_ssize_t pos = BPOS(self, self->mark_idx);
                double part = self->b[pos].end - ready_from;
                if (blame_charge(self, self->mark_idx, part, part) < 0)
                    return -1;
            }
        } else {
            ready_from = t_out;
            first = t->out_idx + 1;
        }
    } else if (origin->is_hub) {
        if (origin->t_in >= t_out) {
            ready_from = origin->t_in;
            first = self->b_total - 1;
        } else {
            ready_from = t_out;
            first = t->out_idx + 1;
        }
    }
    if (first < self->fin) {
        double start = self->fin < self->b_total ?
            self->b[BPOS(self, self->fin)].start : now;
        if (start > ready_from)
            self->unattributed += start - ready_from;
        first = self->fin;
    }
    if (first < self->b_total) {
        self->b[BPOS(self, first)].diff += 1;
        self->pend += 1;
    }
    double ready = now - ready_from;
    t->event_wait += ready_from - t_out;
    t->ready_wait += ready;
    int b = ready_bucket(ready);
    self->hist[b]++;
    if (ready > self->hist_max)
        self->hist_max = ready;
    t->hist[b]++;
    if (ready > t->ready_max)
        t->ready_max = ready;
    *ready_out = ready;
    return 0;
}

/* ------------------------------------------------- the interval CPU clock ------ */

static void cpu_pending_clear(HotObject *self) {
    for (Py_ssize_t i = 0; i < self->cpu_npend; i++) {
        Py_CLEAR(self->cpu_pend[i].rec);
        Py_CLEAR(self->cpu_pend[i].row);
    }
    self->cpu_npend = 0;
    self->cpu_weight = 0.0;
}

static void cpu_free(HotObject *self) {
    if (self->cpu_pend != NULL) {
        cpu_pending_clear(self);
        PyMem_Free(self->cpu_pend);
        self->cpu_pend = NULL;
    }
    self->cpu_cap = 0;
}

static inline double cpu_current_weight(HotObject *self, double now) {
    double w = (now - self->slice_from) - (self->idle - self->slice_idle0);
    return w > 0.0 ? w : 0.0;
}

/* Read the clock; give every pending slice, and cur's current slice (weight of busy
   wall since slice_from), its share: by busy wall, or when the current slice is a long
   one, the pending ones their busy wall first (CpuSpread._read). */
static void cpu_read(HotObject *self, double now, RecordObject *cur, double weight,
                     int long_slice) {
    double cpu = thread_cpu_now(), spent = cpu - self->cpu_last;
    double per = 0.0, share = spent;
    if (long_slice && self->cpu_weight > 0.0) {
        per = spent / self->cpu_weight;
        if (per > 1.0)
            per = 1.0;
        share = spent - self->cpu_weight * per;
    } else if (self->cpu_weight + weight > 0.0) {
        per = spent / (self->cpu_weight + weight);
        share = weight * per;
    }
    for (Py_ssize_t i = 0; i < self->cpu_npend; i++) {
        CpuPending *p = &self->cpu_pend[i];
        ((RecordObject *)p->rec)->cpu += p->weight * per;
        if (p->row != NULL)
            ((RowObject *)p->row)->cpu += p->weight * per;
    }
    if (cur != NULL) {
        cur->cpu += share;
        self->slice_cpu += share;
    }
    cpu_pending_clear(self);
    self->cpu_last = cpu;
    self->cpu_read_at = now;
    self->cpu_reads++;
}

static inline void cpu_begin_slice(HotObject *self, double now) {
    self->slice_from = now;
    self->slice_idle0 = self->idle;
    self->slice_cpu = 0.0;
}

/* rec's slice of ran seconds ends at now, at stack row (borrowed, may be NULL).
   Returns its CPU when the clock was read (a long slice, or force), else -1: its
   share comes with a later read (CpuSpread.end_slice). */
static double cpu_end_slice(HotObject *self, RecordObject *rec, PyObject *row, double now,
                            double ran, int force) {
    double weight = cpu_current_weight(self, now), ran_cpu = -1.0;
    int long_slice = force || ran >= self->cpu_interval;
    if (long_slice || now - self->cpu_read_at >= self->cpu_interval
            || self->cpu_npend >= self->cpu_cap) {
        cpu_read(self, now, rec, weight, long_slice);
        ran_cpu = self->slice_cpu;
        if (row != NULL)
            ((RowObject *)row)->cpu += ran_cpu;
    } else {
        if (row != NULL)
            ((RowObject *)row)->cpu += self->slice_cpu;
        CpuPending *p = &self->cpu_pend[self->cpu_npend++];
        p->rec = Py_NewRef((PyObject *)rec);
        p->row = Py_XNewRef(row);
        p->weight = weight;
        self->cpu_weight += weight;
    }
    cpu_begin_slice(self, now);
    return ran_cpu;
}

static int hot_init(HotObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"prev", "live", "table", "new_record", "new_row", "finish",
                             "on_blocked", "on_c_switch", "on_c_resume", "on_error",
                             "name_from_frames", "exit_key", "cpu_clock", "stacks",
                             "depth", "threshold", "max_slices", "poll_blocked_min",
                             "first_poll_blocked_min", "window", "cpu_interval",
                             "cpu_pending_max", "tsc", "sections", NULL};
    PyObject *prev, *live, *table, *nr, *nrow, *fin, *ob, *ocs, *ocr, *oe, *nff, *ek, *secs;
    int cpu_clock, stacks, depth, tsc = 0;
    double threshold, poll_blocked_min, first_poll_blocked_min, cpu_interval;
    Py_ssize_t max_slices, window, cpu_pending_max;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "$OO!O!OOOOOOOOOipidnddndnpO!", kwlist, &prev,
                                     &PyDict_Type, &live, &PyDict_Type, &table, &nr, &nrow,
                                     &fin, &ob, &ocs, &ocr, &oe, &nff, &ek, &cpu_clock,
                                     &stacks, &depth, &threshold, &max_slices,
                                     &poll_blocked_min, &first_poll_blocked_min, &window,
                                     &cpu_interval, &cpu_pending_max, &tsc, &PyDict_Type,
                                     &secs))
        return -1;
    if (max_slices < 0 || depth < 1 || window < 1 || (window & (window - 1)) != 0
            || cpu_pending_max < 1
            || cpu_clock < CPU_NONE || cpu_clock > CPU_SWITCH) {
        PyErr_SetString(PyExc_ValueError,
                        "max_slices must be >= 0, depth and cpu_pending_max >= 1, window a power "
                        "of two, "
                        "cpu_clock 0, 1 or 2");
        return -1;
    }
    self->vectorcall = (vectorcallfunc)hot_vectorcall;
    Py_XSETREF(self->cur, Py_NewRef(Py_None));
    Py_XSETREF(self->prev, Py_NewRef(prev));
    Py_XSETREF(self->live, Py_NewRef(live));
    Py_XSETREF(self->table, Py_NewRef(table));
    Py_XSETREF(self->new_record, Py_NewRef(nr));
    Py_XSETREF(self->new_row, Py_NewRef(nrow));
    Py_XSETREF(self->finish, Py_NewRef(fin));
    Py_XSETREF(self->on_blocked, Py_NewRef(ob));
    Py_XSETREF(self->on_c_switch, Py_NewRef(ocs));
    Py_XSETREF(self->on_c_resume, Py_NewRef(ocr));
    Py_XSETREF(self->on_error, Py_NewRef(oe));
    Py_XSETREF(self->name_from_frames, Py_NewRef(nff));
    Py_XSETREF(self->exit_key, Py_NewRef(ek));
    Py_XSETREF(self->sections, Py_NewRef(secs));
    self->cpu_clock = cpu_clock;
    self->stacks = stacks;
    self->depth = depth;
    self->threshold = threshold;
    self->switches = self->errors = 0;
    self->on = 0;
    self->poll_blocked_min = poll_blocked_min;
    self->first_poll_blocked_min = first_poll_blocked_min;
    ring_free(self);
    blame_free(self);
    caches_clear(self);
    cpu_free(self);
    self->cpu_interval = cpu_interval;
    self->cpu_pend = PyMem_Calloc(cpu_pending_max, sizeof(CpuPending));
    if (self->cpu_pend == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->cpu_cap = cpu_pending_max;
    self->use_tsc = TSC_CLOCK && tsc;
    self->cpu_last = thread_cpu_now();
    self->cpu_read_at = wall_now(self->use_tsc);
    cpu_begin_slice(self, self->cpu_read_at);
    Py_XSETREF(self->section_blame, PyDict_New());
    Py_XSETREF(self->long_charge, PyDict_New());
    Py_XSETREF(self->long_span, PyDict_New());
    if (self->section_blame == NULL || self->long_charge == NULL || self->long_span == NULL)
        return -1;
    if (blame_alloc(self, window) < 0)
        return -1;
    if (max_slices > 0) {
        self->ring = PyMem_Calloc(max_slices, sizeof(RingSlot));
        if (self->ring == NULL) {
            ring_free(self);
            PyErr_NoMemory();
            return -1;
        }
        self->cap = max_slices;
    }
    return 0;
}

static int hot_traverse(HotObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->cur); Py_VISIT(self->prev); Py_VISIT(self->live); Py_VISIT(self->table);
    Py_VISIT(self->exit_key); Py_VISIT(self->new_record); Py_VISIT(self->new_row);
    Py_VISIT(self->finish); Py_VISIT(self->on_blocked); Py_VISIT(self->on_c_switch);
    Py_VISIT(self->on_c_resume); Py_VISIT(self->on_error);
    Py_VISIT(self->name_from_frames); Py_VISIT(self->sections);
    for (int i = 0; i < TCACHE_SIZE; i++)
        Py_VISIT(self->tcache[i]);
    for (int i = 0; i < SCACHE_SIZE; i++)
        Py_VISIT(self->srow[i]);
    Py_VISIT(self->section_blame); Py_VISIT(self->long_charge); Py_VISIT(self->long_span);
    for (Py_ssize_t i = 0; i < self->cpu_npend; i++) {
        Py_VISIT(self->cpu_pend[i].rec);
        Py_VISIT(self->cpu_pend[i].row);
    }
    if (self->b != NULL) {  /* only the unsettled window holds references */
        for (long long i = self->fin; i < self->b_total; i++) {
            Py_ssize_t pos = BPOS(self, i);
            Py_VISIT(self->b[pos].rec); Py_VISIT(self->b[pos].row); Py_VISIT(self->b[pos].sec);
            Py_VISIT(self->b[pos].closed);
        }
    }
    return 0;
}

/* Everything but prev: what release() drops once the profile is built. */
static void hot_clear_tables(HotObject *self) {
    self->on = 0;
    Py_CLEAR(self->cur); Py_CLEAR(self->live); Py_CLEAR(self->table);
    Py_CLEAR(self->exit_key); Py_CLEAR(self->new_record); Py_CLEAR(self->new_row);
    Py_CLEAR(self->finish); Py_CLEAR(self->on_blocked); Py_CLEAR(self->on_c_switch);
    Py_CLEAR(self->on_c_resume); Py_CLEAR(self->on_error); Py_CLEAR(self->name_from_frames);
    Py_CLEAR(self->sections);
    ring_free(self);
    blame_free(self);
    caches_clear(self);
    cpu_free(self);
    Py_CLEAR(self->section_blame); Py_CLEAR(self->long_charge); Py_CLEAR(self->long_span);
}

static int hot_clear(HotObject *self) {
    hot_clear_tables(self);
    Py_CLEAR(self->prev);
    return 0;
}

static void hot_dealloc(HotObject *self) {
    PyObject_GC_UnTrack(self);
    hot_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline void ring_append(HotObject *self, long long gid, double start, double dur,
                               PyObject *section, double ready, uint64_t stack) {
    if (self->cap == 0)
        return;
    Py_ssize_t pos = self->r_pos;
    self->r_pos = pos + 1 == self->cap ? 0 : pos + 1;  /* no division per switch */
    RingSlot *slot = &self->ring[pos];
    slot->gid = gid;
    slot->start = start;
    slot->dur = dur;
    slot->ready = ready;
    Py_XSETREF(slot->sec, Py_NewRef(section));
    slot->stack = stack;
    self->total++;
    if (self->count < self->cap)
        self->count++;
}


#define STACK_HASH_SEED 1469598103934665603ULL
#define MIX_PRIME 0x9E3779B97F4A7C15ULL  /* 2^64 / golden ratio, odd */

/* The walk's one dependent chain, per frame: an xor and a multiply by an odd constant
   with well-spread bits (the order of the frames matters to it).  The fold of the high
   half back down, which spreads the bits again, is done once at the end. */
static inline uint64_t stack_mix(uint64_t h, uint64_t v) {
    return (h ^ v) * MIX_PRIME;
}

static inline uint64_t stack_final(uint64_t h) {
    return h ^ (h >> 32);
}

#if FAST_FRAME_WALK
/* One frame's part of the hash: the address of the instruction it is at.  On CPython
   3.11 a code object's instructions live inside it, so that address names the code
   and the offset at once (while the code object lives, as its address alone did), and
   the fast walk reads it straight from the frame: half the instructions per frame of
   mixing the code's address and the offset.  The API walk rebuilds the same address
   (a frame not started yet is one unit before the first instruction). */
static inline uint64_t frame_key(PyCodeObject *code, int lasti) {
    return (uint64_t)(uintptr_t)_PyCode_CODE(code)
        + (lasti < 0 ? -(int64_t)sizeof(_Py_CODEUNIT) : (int64_t)lasti);
}
#else
/* One frame's part of the hash: the code object's address (user space: under 2^48)
   with the instruction offset in the bits above it. */
static inline uint64_t frame_key(PyCodeObject *code, int lasti) {
    return (uint64_t)(uintptr_t)code ^ ((uint64_t)(uint32_t)lasti << 48);
}
#endif

/* The stack hash of *frame*, walking at most depth frames, through the public API. */
static uint64_t stack_hash_api(PyFrameObject *frame, int depth) {
    uint64_t h = STACK_HASH_SEED;
    PyFrameObject *f = (PyFrameObject *)Py_NewRef(frame);
    int n = 0;
    while (f != NULL && n < depth) {
        PyCodeObject *code = PyFrame_GetCode(f);
        h = stack_mix(h, frame_key(code, PyFrame_GetLasti(f)));
        Py_DECREF(code);
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
        n++;
    }
    Py_XDECREF(f);
    return stack_final(h);
}

#if FAST_FRAME_WALK
/* The same hash from the interpreter frames (see FAST_FRAME_WALK): no references are
   taken and nothing is allocated; the frames are the suspended greenlet's and stay
   put while we read them.  A function of its own, on a cache-line boundary: inlined,
   its loop landed wherever the rest of hot_switch put it, and the same loop cost up to
   ~10 ns more at 20 frames in one build than in another (measured 2026-11-24); here
   it starts on a line in every build.  The first frame is the greenlet's own top
   frame, never an incomplete one (PyFrame_GetBack skips those only below it). */
static __attribute__((noinline, aligned(64)))
uint64_t stack_hash_fast(PyFrameObject *frame, int depth) {
    if (frame->f_back != NULL)  /* a frame that outlived its execution: rare */
        return stack_hash_api(frame, depth);
    _PyInterpreterFrame *f = frame->f_frame;
    if (f == NULL || depth < 1)
        return stack_final(STACK_HASH_SEED);
    uint64_t h = stack_mix(STACK_HASH_SEED, (uint64_t)(uintptr_t)f->prev_instr);
    int n = 1;
    for (f = f->previous; f != NULL && n < depth; f = f->previous) {
        if (_PyFrame_IsIncomplete(f))
            continue;
        h = stack_mix(h, (uint64_t)(uintptr_t)f->prev_instr);
        n++;
    }
    return stack_final(h);
}
#define stack_hash(self, frame) stack_hash_fast((frame), (self)->depth)
#else
#define stack_hash(self, frame) stack_hash_api((frame), (self)->depth)
#endif

/* greenlet's C API (greenlet.h, greenlet >= 2): whether a greenlet started and is
   still running, without an attribute lookup.  The slots' numbers are greenlet.h's
   PyGreenlet_STARTED_NUM and PyGreenlet_ACTIVE_NUM; not included from the header,
   which is not there when pip builds this in an isolated environment. */
#define GREENLET_STARTED_NUM 9
#define GREENLET_ACTIVE_NUM 10
static int (*greenlet_started)(PyObject *), (*greenlet_active)(PyObject *);

/* g.dead: started and no longer active (greenlet's own rule); 1, 0, or -1 on error. */
static int greenlet_dead(PyObject *g) {
    if (greenlet_started != NULL && greenlet_active != NULL
            && PyObject_TypeCheck(g, greenlet_type))
        return greenlet_started(g) && !greenlet_active(g);
    PyObject *dead = PyObject_GetAttr(g, str_dead);
    if (dead == NULL)
        return -1;
    int r = PyObject_IsTrue(dead);
    Py_DECREF(dead);
    return r;
}

/* origin.gr_frame without the generic attribute lookup: the getter of the type's
   gr_frame descriptor, found once per greenlet type (and again if the type changes:
   its version tag moves).  A subclass overriding gr_frame with something other than
   a C getter takes the generic path. */
static PyObject *get_gr_frame(HotObject *self, PyObject *g) {
    PyTypeObject *tp = Py_TYPE(g);
    int slot = self->gf_type[0] == tp ? 0 : 1;
    if (self->gf_type[slot] != tp || self->gf_version[slot] != tp->tp_version_tag
            || !(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
        PyObject *descr = _PyType_Lookup(tp, str_gr_frame);  /* borrowed */
        if (descr == NULL || !Py_IS_TYPE(descr, &PyGetSetDescr_Type)
                || ((PyGetSetDescrObject *)descr)->d_getset->get == NULL
                || !(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG))
            return PyObject_GetAttr(g, str_gr_frame);
        slot = self->gf_next;
        self->gf_next ^= 1;
        self->gf_type[slot] = tp;  /* compared only, never dereferenced when stale */
        self->gf_version[slot] = tp->tp_version_tag;
        self->gf_getset[slot] = ((PyGetSetDescrObject *)descr)->d_getset;
    }
    PyGetSetDef *gs = self->gf_getset[slot];
    return gs->get(g, gs->closure);
}

/* The accounting of one switch; -1 with an exception set on failure. */
static int hot_switch(HotObject *self, PyObject *args) {
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != 2) {
        PyErr_SetString(PyExc_TypeError, "trace args must be (origin, target)");
        return -1;
    }
    PyObject *origin = PyTuple_GET_ITEM(args, 0), *target = PyTuple_GET_ITEM(args, 1);
    double now = wall_now(self->use_tsc);
    double cpu = self->cpu_clock == CPU_SWITCH ? thread_cpu_now() : 0.0;
    /* nothing switches during a poll: it has ended */
    if (self->poll_open && poll_end_at(self, now) < 0)
        return -1;
    PyObject *key = NULL, *frame = NULL, *section = NULL, *tkey = NULL, *tmp = NULL;
    RecordObject *rec = NULL, *t = NULL;
    int result = -1;
    int has_frame = 0;  /* a greenlet with a frame is not dead: saves the "dead" lookup */
    uint64_t hash = 0;
    int have_hash = 0;  /* key is then made from hash only when a callback needs it */

    if (!is_none(self->cur) && ((RecordObject *)self->cur)->key == (Py_ssize_t)(uintptr_t)origin) {
        rec = (RecordObject *)Py_NewRef(self->cur);
    } else {  /* a switch we did not see (only after an error): its slice starts now */
        PyObject *okey = PyLong_FromVoidPtr(origin);
        if (okey == NULL) goto done;
        PyObject *found = PyDict_GetItemWithError(self->live, okey);
        Py_DECREF(okey);
        if (found != NULL)
            rec = (RecordObject *)Py_NewRef(found);
        else if (PyErr_Occurred())
            goto done;
        else {
            rec = (RecordObject *)PyObject_CallFunctionObjArgs(self->new_record, origin,
                                                               Py_None, Py_None, NULL);
            if (rec == NULL) goto done;
        }
        if (!PyObject_TypeCheck(rec, &RecordType)) {
            PyErr_SetString(PyExc_TypeError, "new_record must return a _ctrace.Record");
            goto done;
        }
        rec->t_in = now; rec->cpu_in = cpu; rec->has_out = 0;
    }

    double ran = now - rec->t_in, ran_cpu = 0.0;
    rec->run += ran;
    if (self->cpu_clock == CPU_SWITCH) {
        ran_cpu = cpu - rec->cpu_in;
        rec->cpu += ran_cpu;
    }
    rec->switches++;
    if (ran > rec->longest)
        rec->longest = ran;
    double section_t0 = now;
    if (PyList_Check(rec->open) && PyList_GET_SIZE(rec->open) > 0) {
        PyObject *inner = PyList_GET_ITEM(rec->open, PyList_GET_SIZE(rec->open) - 1);
        if (Py_IS_TYPE(inner, &SectionType)) {
            section = Py_NewRef(((SectionObject *)inner)->name);
            section_t0 = ((SectionObject *)inner)->t0;
        } else {  /* one the Python path made (records.OpenSection) */
            section = PyObject_GetAttr(inner, str_name);
            if (section == NULL) goto done;
            PyObject *t0 = PyObject_GetAttr(inner, str_t0);
            if (t0 == NULL) goto done;
            section_t0 = PyFloat_AsDouble(t0);
            Py_DECREF(t0);
            if (section_t0 == -1.0 && PyErr_Occurred()) goto done;
        }
    } else {
        section = Py_NewRef(Py_None);
    }
    PyObject *slice_row = NULL;  /* borrowed: the stack row this slice ended at */

    if (self->stacks && !rec->is_hub) {
        frame = get_gr_frame(self, origin);
        if (frame == NULL) goto done;
        if (frame == Py_None) {
            key = Py_NewRef(self->exit_key);
        } else {
            has_frame = 1;
            if (!PyFrame_Check(frame)) {
                PyErr_SetString(PyExc_TypeError, "gr_frame is not a frame");
                goto done;
            }
            if (is_none(rec->name)) {
                tmp = PyObject_CallFunctionObjArgs(self->name_from_frames, rec, frame, NULL);
                if (tmp == NULL) goto done;
                Py_CLEAR(tmp);
            }
            hash = stack_hash(self, (PyFrameObject *)frame);
            have_hash = 1;
        }
        size_t si = (size_t)(hash & (SCACHE_SIZE - 1));
        PyObject *row = NULL;
        if (have_hash && self->srow[si] != NULL && self->skey[si] == hash) {
            row = Py_NewRef(self->srow[si]);
        } else {
            if (key == NULL && (key = PyLong_FromUnsignedLongLong(hash)) == NULL) goto done;
            row = PyDict_GetItemWithError(self->table, key);
            if (row != NULL) {
                Py_INCREF(row);
            } else {
                if (PyErr_Occurred()) goto done;
                row = PyObject_CallFunctionObjArgs(self->new_row, key,
                                                   frame == Py_None ? Py_None : frame, NULL);
                if (row == NULL) goto done;
            }
            if (!PyObject_TypeCheck(row, &RowType)) {
                Py_DECREF(row);
                PyErr_SetString(PyExc_TypeError, "new_row must return a _ctrace.Row");
                goto done;
            }
            if (have_hash) {
                Py_XSETREF(self->srow[si], Py_NewRef(row));
                self->skey[si] = hash;
            }
        }
        RowObject *r = (RowObject *)row;
        r->n_out++;
        r->gid = rec->gid;
        r->run += ran;
        if (self->cpu_clock == CPU_SWITCH)
            r->cpu += ran_cpu;
        Py_XSETREF(rec->wait_row, row);  /* steals */
        slice_row = row;
    }
    ring_append(self, rec->gid, rec->t_in, ran, section, rec->ready_in,
                slice_row != NULL && have_hash ? hash : 0);
    if (blame_log(self, rec, slice_row, section, section_t0, rec->t_in, now) < 0)
        goto done;
    /* a greenlet with a frame is alive; the hub outlives tracing (its death, if it
       comes, is seen by the Tracer's weakref callback) */
    int is_dead = has_frame || rec->is_hub ? 0 : greenlet_dead(origin);
    if (is_dead < 0) goto done;
    if (self->cpu_clock == CPU_INTERVAL)  /* read at once for a loop-blocking slice and
                                             before a death (trace/cpuclock.py) */
        ran_cpu = cpu_end_slice(self, rec, slice_row, now, ran,
                                is_dead || ran > self->threshold);
    if (have_hash && key == NULL && ((ran > self->threshold && !rec->is_hub) || rec->c_depth)) {
        if ((key = PyLong_FromUnsignedLongLong(hash)) == NULL) goto done;
    }
    if (ran > self->threshold && !rec->is_hub) {
        PyObject *pran = PyFloat_FromDouble(ran);
        PyObject *pcpu = self->cpu_clock ? PyFloat_FromDouble(ran_cpu) : Py_NewRef(Py_None);
        if (pran != NULL && pcpu != NULL)
            tmp = PyObject_CallFunctionObjArgs(self->on_blocked, rec, pran, pcpu,
                                               key ? key : Py_None, NULL);
        Py_XDECREF(pran);
        Py_XDECREF(pcpu);
        if (tmp == NULL) goto done;
        Py_CLEAR(tmp);
    }
    if (rec->c_depth) {
        tmp = PyObject_CallFunctionObjArgs(self->on_c_switch, rec, key ? key : Py_None, NULL);
        if (tmp == NULL) goto done;
        Py_CLEAR(tmp);
    }
    if (is_dead) {
        tmp = PyObject_CallOneArg(self->finish, (PyObject *)rec);
        if (tmp == NULL) goto done;
        Py_CLEAR(tmp);
    } else {
        rec->t_out = now;
        rec->has_out = 1;
    }

    size_t ti = tcache_set(target);
    PyObject *found = (PyObject *)tcache_get(self, ti, target);
    if (found == NULL) {
        tkey = PyLong_FromVoidPtr(target);
        if (tkey == NULL) goto done;
        found = PyDict_GetItemWithError(self->live, tkey);
    }
    if (found != NULL) {
        t = (RecordObject *)Py_NewRef(found);
    } else {
        if (PyErr_Occurred()) goto done;
        /* The frame *target* resumes (we run on its stack, below no Python frame of
           ours), None if it is new. */
        PyFrameObject *resumed = PyEval_GetFrame();
        t = (RecordObject *)PyObject_CallFunctionObjArgs(
            self->new_record, target, origin, resumed ? (PyObject *)resumed : Py_None, NULL);
        if (t == NULL) goto done;
    }
    if (!PyObject_TypeCheck(t, &RecordType)) {
        PyErr_SetString(PyExc_TypeError, "new_record must return a _ctrace.Record");
        goto done;
    }
    tcache_put(self, ti, t);
    if (t->has_out) {
        double waited = now - t->t_out, ready = 0.0;
        t->wait += waited;
        if (!t->is_hub && blame_woke(self, t, now, rec, &ready) < 0)
            goto done;
        if (!is_none(t->wait_row)) {
            RowObject *r = (RowObject *)t->wait_row;
            r->n_wait++;
            r->wait += waited;
            r->ev += waited - ready;
            r->rd += ready;
            Py_XSETREF(t->wait_row, Py_NewRef(Py_None));
        }
        t->ready_in = ready;
        if (!is_none(t->c_pending)) {
            PyObject *pw = PyFloat_FromDouble(waited);
            if (pw == NULL) goto done;
            tmp = PyObject_CallFunctionObjArgs(self->on_c_resume, t, pw, NULL);
            Py_DECREF(pw);
            if (tmp == NULL) goto done;
            Py_CLEAR(tmp);
        }
        t->has_out = 0;
    } else {
        t->ready_in = 0.0;
    }
    t->t_in = now;
    t->cpu_in = cpu;
    Py_XSETREF(self->cur, (PyObject *)t);
    t = NULL;  /* now owned by self->cur */
    self->switches++;
    result = 0;
done:
    Py_XDECREF(rec);
    Py_XDECREF(t);
    Py_XDECREF(key);
    Py_XDECREF(frame);
    Py_XDECREF(section);
    Py_XDECREF(tkey);
    return result;
}

/* Never raise into the traced program: hand the exception set to on_error. */
static void hand_error(HotObject *self) {
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc != NULL && tb != NULL)
        PyException_SetTraceback(exc, tb);
    if (self->on_error != NULL && exc != NULL) {
        PyObject *r = PyObject_CallOneArg(self->on_error, exc);
        if (r == NULL)
            PyErr_Clear();
        Py_XDECREF(r);
    }
    Py_XDECREF(type);
    Py_XDECREF(exc);
    Py_XDECREF(tb);
}

static PyObject *hot_vectorcall(HotObject *self, PyObject *const *args, size_t nargsf,
                                 PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 2 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "trace takes (event, args)");
        return NULL;
    }
    PyObject *targs = args[1];
    if (self->on && self->live != NULL) {
        if (hot_switch(self, targs) < 0)
            hand_error(self);
    }
    if (!is_none(self->prev))
        return PyObject_Vectorcall(self->prev, args, nargsf, kwnames);
    Py_RETURN_NONE;
}

static PyObject *hot_slices(HotObject *self, PyObject *unused) {
    PyObject *out = PyList_New(self->count);
    if (out == NULL)
        return NULL;
    long long first = self->total - self->count;
    for (Py_ssize_t i = 0; i < self->count; i++) {
        Py_ssize_t pos = (Py_ssize_t)((first + i) % self->cap);
        RingSlot *slot = &self->ring[pos];
        PyObject *stack = slot->stack ? PyLong_FromUnsignedLongLong(slot->stack)
                                      : Py_NewRef(Py_None);
        if (stack == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyObject *item = Py_BuildValue("(LddOdN)", slot->gid, slot->start, slot->dur,
                                       slot->sec ? slot->sec : Py_None, slot->ready, stack);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

static PyObject *hot_release(HotObject *self, PyObject *unused) {
    hot_clear_tables(self);
    Py_RETURN_NONE;
}

/* The loop watchers' callbacks (trace/loopwatch.py): they run in the hub, must never
   raise into it, and count a failure as a trace error instead. */
static PyObject *hot_poll_begin(HotObject *self, PyObject *unused) {
    self->seen_begin = 1;
    self->poll_open = 1;
    self->poll_pending = 0;
    self->poll_t0 = wall_now(self->use_tsc);
    Py_RETURN_NONE;
}

static PyObject *hot_poll_begin_pending(HotObject *self, PyObject *unused) {
    self->seen_begin = 1;
    self->poll_open = 1;
    self->poll_pending = 1;
    self->poll_t0 = wall_now(self->use_tsc);
    Py_RETURN_NONE;
}

static PyObject *hot_poll_end(HotObject *self, PyObject *unused) {
    double now = wall_now(self->use_tsc);
    if (!self->seen_begin && !is_none(self->cur)) {
        /* watchers started mid-iteration miss the first poll's beginning: it began
           after the hub's current slice did (Tracer's _State.poll_end) */
        self->seen_begin = self->poll_open = 1;
        self->poll_t0 = ((RecordObject *)self->cur)->t_in;
        self->poll_pending = now - self->poll_t0 < self->first_poll_blocked_min;
    }
    if (self->b != NULL && poll_end_at(self, now) < 0) {
        PyErr_Clear();
        self->errors++;
    }
    Py_RETURN_NONE;
}

static PyObject *hot_settle_all(HotObject *self, PyObject *unused) {
    if (self->b != NULL && blame_settle(self, self->b_total) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *hot_watch(HotObject *self, PyObject *idx) {
    PyObject *zero = PyFloat_FromDouble(0.0);
    if (zero == NULL) return NULL;
    int rc = PyDict_SetItem(self->long_charge, idx, zero);
    if (rc == 0)
        rc = PyDict_SetItem(self->long_span, idx, zero);
    Py_DECREF(zero);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

/* WaitSplit.slice_sections: seconds slice idx spent in each section (the one open when
   it ended, and those closed during it); {} once settled. */
static PyObject *hot_slice_sections(HotObject *self, PyObject *arg) {
    long long idx = PyLong_AsLongLong(arg);
    if (idx == -1 && PyErr_Occurred()) return NULL;
    PyObject *out = PyDict_New();
    if (out == NULL || self->b == NULL || idx < self->fin || idx >= self->b_total)
        return out;
    BlameSlot *slot = &self->b[BPOS(self, idx)];
    if (slot->closed != NULL && PyDict_Check(slot->closed) && PyDict_Update(out, slot->closed) < 0)
        goto fail;
    if (slot->sec != NULL) {
        PyObject *old = PyDict_GetItemWithError(out, slot->sec);
        if (old == NULL && PyErr_Occurred()) goto fail;
        double before = old == NULL ? 0.0 : PyFloat_AsDouble(old);
        if (before == -1.0 && PyErr_Occurred()) goto fail;
        PyObject *v = PyFloat_FromDouble(before + slot->end - slot->secfrom);
        if (v == NULL || PyDict_SetItem(out, slot->sec, v) < 0) {
            Py_XDECREF(v);
            goto fail;
        }
        Py_DECREF(v);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *hot_unwatch(HotObject *self, PyObject *idx) {
    PyObject *tables[2] = {self->long_charge, self->long_span};
    for (int i = 0; i < 2; i++) {
        if (PyDict_DelItem(tables[i], idx) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError)) return NULL;
            PyErr_Clear();
        }
    }
    Py_RETURN_NONE;
}

static PyObject *hot_charge_slice(HotObject *self, PyObject *args) {
    long long idx;
    double seconds;
    if (!PyArg_ParseTuple(args, "Ld", &idx, &seconds))
        return NULL;
    if (self->b != NULL && idx >= self->fin && idx < self->b_total) {
        if (blame_charge(self, idx, seconds, seconds) < 0)
            return NULL;
    } else if (seconds > 0.0) {
        self->unattributed += seconds;
    }
    Py_RETURN_NONE;
}

/* The interval CPU clock from Python (State.cpu_start / cpu_sync in records.py). */
static PyObject *hot_cpu_start(HotObject *self, PyObject *unused) {
    cpu_pending_clear(self);
    self->cpu_last = thread_cpu_now();
    self->cpu_read_at = wall_now(self->use_tsc);
    cpu_begin_slice(self, self->cpu_read_at);
    Py_RETURN_NONE;
}

/* Credit the running greenlet's CPU up to now (CpuSpread.sync). */
static void cpu_sync_at(HotObject *self, double now) {
    if (self->cpu_pend == NULL)  /* released */
        return;
    RecordObject *cur = is_none(self->cur) ? NULL : (RecordObject *)self->cur;
    cpu_read(self, now, cur, cpu_current_weight(self, now), 0);
    self->slice_from = now;
    self->slice_idle0 = self->idle;
}

static PyObject *hot_cpu_sync(HotObject *self, PyObject *unused) {
    cpu_sync_at(self, wall_now(self->use_tsc));
    Py_RETURN_NONE;
}

/* ------------------------------------------------- section enter and exit ----- */
/* Called from the traced program's wrapped calls (sections.py), in the traced
   thread; SectionAccounting._section_enter / _section_exit is the reference. */

/* The running greenlet rec's CPU time up to now, exact in every clock mode
   (SectionAccounting._cpu_now). */
static double section_cpu_now(HotObject *self, RecordObject *rec, double now) {
    if (self->cpu_clock == CPU_INTERVAL) {
        cpu_sync_at(self, now);
        return rec->cpu;
    }
    if (self->cpu_clock == CPU_SWITCH)
        return rec->cpu + (thread_cpu_now() - rec->cpu_in);
    return 0.0;
}

/* row[i] += v for a float or int item of a section table row. */
static int row_add(PyObject *row, Py_ssize_t i, double v, int as_int) {
    PyObject *old = PyList_GET_ITEM(row, i), *sum;
    if (as_int) {
        long long n = PyLong_AsLongLong(old);
        if (n == -1 && PyErr_Occurred())
            return -1;
        sum = PyLong_FromLongLong(n + (long long)v);
    } else {
        double x = PyFloat_AsDouble(old);
        if (x == -1.0 && PyErr_Occurred())
            return -1;
        sum = PyFloat_FromDouble(x + v);
    }
    if (sum == NULL)
        return -1;
    return PyList_SetItem(row, i, sum);  /* steals sum, drops old */
}

#define SECTION_ROW_LEN 9  /* [c, calls, wall, run, cpu, wait, switches, event, ready] */

/* One closed call of section o to the table (SectionAccounting._account_section). */
static int section_account(HotObject *self, RecordObject *rec, SectionObject *o, double now,
                           double run_now, double cpu_now) {
    PyObject *row = PyDict_GetItemWithError(self->sections, o->name);
    if (row == NULL) {
        if (PyErr_Occurred())
            return -1;
        row = Py_BuildValue("[OiddddLdd]", o->c ? Py_True : Py_False, 0, 0.0, 0.0, 0.0, 0.0,
                            0LL, 0.0, 0.0);
        if (row == NULL)
            return -1;
        int err = PyDict_SetItem(self->sections, o->name, row);
        Py_DECREF(row);  /* the table holds it */
        if (err < 0)
            return -1;
    }
    if (!PyList_Check(row) || PyList_GET_SIZE(row) != SECTION_ROW_LEN) {
        PyErr_SetString(PyExc_TypeError, "a section table row must be a list of 9");
        return -1;
    }
    if (o->c && PyList_GET_ITEM(row, 0) != Py_True
            && PyList_SetItem(row, 0, Py_NewRef(Py_True)) < 0)
        return -1;
    if (row_add(row, 1, 1, 1) < 0)
        return -1;
    if (o->recursive)  /* the outer call of the same name already counts this time */
        return 0;
    if (row_add(row, 2, now - o->t0, 0) < 0 || row_add(row, 3, run_now - o->run0, 0) < 0
            || (self->cpu_clock && row_add(row, 4, cpu_now - o->cpu0, 0) < 0)
            || row_add(row, 5, rec->wait - o->wait0, 0) < 0
            || row_add(row, 6, (double)(rec->switches - o->sw0), 1) < 0
            || row_add(row, 7, rec->event_wait - o->ev0, 0) < 0
            || row_add(row, 8, rec->ready_wait - o->rd0, 0) < 0)
        return -1;
    return 0;
}

static int section_enter(HotObject *self, PyObject *const *args, Py_ssize_t nargs) {
    RecordObject *rec = (RecordObject *)self->cur;
    if (!PyList_Check(rec->open)) {
        PyErr_SetString(PyExc_TypeError, "Record.open must be a list");
        return -1;
    }
    int c = PyObject_IsTrue(args[1]);
    if (c < 0)
        return -1;
    double now = wall_now(self->use_tsc);
    SectionObject *o = PyObject_GC_New(SectionObject, &SectionType);
    if (o == NULL)
        return -1;
    o->name = Py_NewRef(args[0]);
    o->owner = Py_NewRef(args[2]);
    o->parser_lock = Py_NewRef(nargs > 3 ? args[3] : Py_None);
    o->c = (char)c;
    o->t0 = now;
    o->run0 = rec->run + (now - rec->t_in);
    o->cpu0 = section_cpu_now(self, rec, now);
    o->wait0 = rec->wait;
    o->sw0 = rec->switches;
    o->ev0 = rec->event_wait;
    o->rd0 = rec->ready_wait;
    o->recursive = 0;
    PyObject_GC_Track(o);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(rec->open) && !o->recursive; i++) {
        PyObject *item = PyList_GET_ITEM(rec->open, i);
        PyObject *name = Py_IS_TYPE(item, &SectionType)
            ? Py_NewRef(((SectionObject *)item)->name) : PyObject_GetAttr(item, str_name);
        int same = name == NULL ? -1 : PyObject_RichCompareBool(name, o->name, Py_EQ);
        Py_XDECREF(name);
        if (same < 0) {
            Py_DECREF(o);
            return -1;
        }
        o->recursive = (char)same;
    }
    int err = PyList_Append(rec->open, (PyObject *)o);
    Py_DECREF(o);
    if (err < 0)
        return -1;
    if (c)
        rec->c_depth++;
    return 0;
}

static int section_exit(HotObject *self, PyObject *owner) {
    RecordObject *rec = (RecordObject *)self->cur;
    if (!PyList_Check(rec->open))
        return 0;
    /* innermost first: exits out of order come from generator-held sections */
    Py_ssize_t i = PyList_GET_SIZE(rec->open) - 1;
    while (i >= 0 && !(Py_IS_TYPE(PyList_GET_ITEM(rec->open, i), &SectionType)
                       && ((SectionObject *)PyList_GET_ITEM(rec->open, i))->owner == owner))
        i--;
    if (i < 0)
        return 0;
    SectionObject *o = (SectionObject *)Py_NewRef(PyList_GET_ITEM(rec->open, i));
    int result = -1;
    if (PyList_SetSlice(rec->open, i, i + 1, NULL) < 0)
        goto done;
    if (o->c)
        rec->c_depth--;
    double now = wall_now(self->use_tsc);
    double run_now = rec->run + (now - rec->t_in), cpu_now = section_cpu_now(self, rec, now);
    if (section_account(self, rec, o, now, run_now, cpu_now) < 0)
        goto done;
    if (!o->recursive) {  /* the part of the call in this slice */
        if (is_none(rec->sec_closed)) {
            Py_XSETREF(rec->sec_closed, PyDict_New());
            if (rec->sec_closed == NULL)
                goto done;
        }
        double inside = now - (o->t0 > rec->t_in ? o->t0 : rec->t_in);
        PyObject *had = PyDict_GetItemWithError(rec->sec_closed, o->name);
        double before = had == NULL ? 0.0 : PyFloat_AsDouble(had);
        if ((had == NULL || before == -1.0) && PyErr_Occurred())
            goto done;
        PyObject *sum = PyFloat_FromDouble(before + inside);
        if (sum == NULL)
            goto done;
        int err = PyDict_SetItem(rec->sec_closed, o->name, sum);
        Py_DECREF(sum);
        if (err < 0)
            goto done;
    }
    result = 0;
done:
    Py_DECREF(o);
    return result;
}

/* section_enter(name, c, owner[, parser_lock]) and section_exit(owner): a no-op when
   tracing is off; an error goes to on_error, never into the traced program, unless it
   is no Exception (KeyboardInterrupt, SystemExit), as in the Python reference. */
static int section_tracing(HotObject *self) {
    return self->on && self->sections != NULL && !is_none(self->cur)
        && Py_IS_TYPE(self->cur, &RecordType);
}

static PyObject *section_failed(HotObject *self) {
    if (!PyErr_ExceptionMatches(PyExc_Exception))
        return NULL;
    hand_error(self);
    Py_RETURN_NONE;
}

static PyObject *hot_section_enter(HotObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 3 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "section_enter(name, c, owner[, parser_lock])");
        return NULL;
    }
    if (section_tracing(self) && section_enter(self, args, nargs) < 0)
        return section_failed(self);
    Py_RETURN_NONE;
}

static PyObject *hot_section_exit(HotObject *self, PyObject *owner) {
    if (section_tracing(self) && section_exit(self, owner) < 0)
        return section_failed(self);
    Py_RETURN_NONE;
}

static PyObject *hot_get_hist(HotObject *self, void *closure) {
    return hist_list(self->hist);
}

static PyObject *hot_get_unsettled(HotObject *self, void *closure) {
    return PyLong_FromLongLong(self->b_total - self->fin);
}

/* Which wall clock the hot path reads, for the profile's meta. */
static PyObject *hot_get_wall_clock(HotObject *self, void *closure) {
    int tsc = self->use_tsc && !tsc_clock.dropped;
    return Py_BuildValue("{s:s,s:L,s:O}", "source", tsc ? "tsc" : "clock_gettime",
                         "anchors", tsc_clock.anchors,
                         "tsc_dropped", self->use_tsc && tsc_clock.dropped ? Py_True : Py_False);
}

static PyGetSetDef hot_getset[] = {
    {"wall_clock", (getter)hot_get_wall_clock, NULL,
     "the hot path's wall clock: its source, anchors taken, whether the TSC was dropped",
     NULL},
    {"hist", (getter)hot_get_hist, NULL, "ready-wait histogram counts", NULL},
    {"unsettled", (getter)hot_get_unsettled, NULL, "slices awaiting their blame", NULL},
    {NULL}
};

static PyMethodDef hot_methods[] = {
    {"slices", (PyCFunction)hot_slices, METH_NOARGS,
     "The kept run slices, oldest first: [(gid, start, duration, section), ...]."},
    {"release", (PyCFunction)hot_release, METH_NOARGS,
     "Drop the tables and callbacks (tracing is over); keep chaining to prev."},
    {"poll_begin", (PyCFunction)hot_poll_begin, METH_NOARGS, "The hub starts to poll."},
    {"poll_begin_pending", (PyCFunction)hot_poll_begin_pending, METH_NOARGS,
     "The hub starts to poll with wake-ups already queued."},
    {"poll_end", (PyCFunction)hot_poll_end, METH_NOARGS, "The hub's poll returned."},
    {"settle_all", (PyCFunction)hot_settle_all, METH_NOARGS, "Charge every slice logged."},
    {"watch", (PyCFunction)hot_watch, METH_O, "Learn the blame of this slice index."},
    {"slice_sections", (PyCFunction)hot_slice_sections, METH_O,
     "Seconds this slice index spent in each section; {} once settled."},
    {"charge_slice", (PyCFunction)hot_charge_slice, METH_VARARGS,
     "Charge part of a logged slice directly (WaitSplit.charge_slice)."},
    {"unwatch", (PyCFunction)hot_unwatch, METH_O, "Forget a watched slice index."},
    {"cpu_start", (PyCFunction)hot_cpu_start, METH_NOARGS,
     "Start the interval CPU clock (tracing starts)."},
    {"cpu_sync", (PyCFunction)hot_cpu_sync, METH_NOARGS,
     "Credit the running greenlet's CPU up to now (the interval clock)."},
    {"section_enter", (PyCFunction)(void (*)(void))hot_section_enter, METH_FASTCALL,
     "section_enter(name, c, owner[, parser_lock]): the running greenlet enters a "
     "section (SectionAccounting._section_enter)."},
    {"section_exit", (PyCFunction)hot_section_exit, METH_O,
     "section_exit(owner): it leaves the section owner entered."},
    {NULL}
};

#define HM(n, t) {#n, t, offsetof(HotObject, n), 0, NULL}
static PyMemberDef hot_members[] = {
    HM(cur, T_OBJECT), HM(switches, T_LONGLONG), HM(errors, T_LONGLONG), HM(on, T_INT),
    HM(idle, T_DOUBLE), HM(polls, T_LONGLONG), HM(unattributed, T_DOUBLE),
    HM(hist_max, T_DOUBLE), HM(poll_open, T_INT),
    {"cpu_reads", T_LONGLONG, offsetof(HotObject, cpu_reads), READONLY, NULL},
    {"slice_count", T_PYSSIZET, offsetof(HotObject, count), READONLY,
     "run slices kept in the ring"},
    {"fin", T_LONGLONG, offsetof(HotObject, fin), READONLY,
     "the first slice whose blame is not settled (WaitSplit.fin)"},
    {"section_blame", T_OBJECT, offsetof(HotObject, section_blame), READONLY, NULL},
    {"long_charge", T_OBJECT, offsetof(HotObject, long_charge), READONLY, NULL},
    {"long_span", T_OBJECT, offsetof(HotObject, long_span), READONLY, NULL},
    {NULL}
};

static PyTypeObject HotType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geventperf._ctrace.Hot",
    .tp_doc = "The greenlet.settrace callback and its state (see Tracer._make_trace).",
    .tp_basicsize = sizeof(HotObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(HotObject, vectorcall),
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)hot_init,
    .tp_dealloc = (destructor)hot_dealloc,
    .tp_traverse = (traverseproc)hot_traverse,
    .tp_clear = (inquiry)hot_clear,
    .tp_call = PyVectorcall_Call,
    .tp_methods = hot_methods,
    .tp_members = hot_members,
    .tp_getset = hot_getset,
};

/* ---------------------------------------------------------------- module ------ */

static PyObject *mod_monotonic(PyObject *m, PyObject *unused) {
    return PyFloat_FromDouble(mono_now());
}

static PyObject *mod_wall_clock_state(PyObject *m, PyObject *unused) {
    return Py_BuildValue("{s:O,s:L,s:O,s:d}",
                         "tsc", TSC_CLOCK ? Py_True : Py_False, "anchors", tsc_clock.anchors,
                         "dropped", tsc_clock.dropped ? Py_True : Py_False,
                         "per_tick", tsc_clock.per_tick);
}

static PyObject *mod_wall_time(PyObject *m, PyObject *arg) {
    int use_tsc = PyObject_IsTrue(arg);
    if (use_tsc < 0)
        return NULL;
    return PyFloat_FromDouble(wall_now(use_tsc));
}

/* For tests only: make the measured TSC rate wrong by *factor*, as a TSC that stopped
   keeping the kernel's time would be; the next anchor must give the TSC up. */
static PyObject *mod_skew_tsc_rate(PyObject *m, PyObject *arg) {
    double factor = PyFloat_AsDouble(arg);
    if (factor == -1.0 && PyErr_Occurred())
        return NULL;
    tsc_clock.per_tick *= factor;
    Py_RETURN_NONE;
}

static PyObject *mod_thread_time(PyObject *m, PyObject *unused) {
    return PyFloat_FromDouble(thread_cpu_now());
}

/* For tests: the stack hash of a frame by both walks, (fast, public API). */
static PyObject *mod_stack_hashes(PyObject *m, PyObject *args) {
    PyObject *frame;
    int depth;
    if (!PyArg_ParseTuple(args, "O!i", &PyFrame_Type, &frame, &depth))
        return NULL;
#if FAST_FRAME_WALK
    uint64_t fast = stack_hash_fast((PyFrameObject *)frame, depth);
#else
    uint64_t fast = stack_hash_api((PyFrameObject *)frame, depth);
#endif
    return Py_BuildValue("(KK)", (unsigned long long)fast,
                         (unsigned long long)stack_hash_api((PyFrameObject *)frame, depth));
}

static PyMethodDef module_methods[] = {
    {"stack_hashes", mod_stack_hashes, METH_VARARGS,
     "(fast walk, public-API walk) stack hashes of a frame, for tests."},
    {"monotonic", mod_monotonic, METH_NOARGS, "The clock of the hot path (perf_counter)."},
    {"thread_time", mod_thread_time, METH_NOARGS, "The CPU clock of the hot path."},
    {"wall_time", mod_wall_time, METH_O,
     "The hot path's wall clock: read from the TSC if the argument is true (and the TSC "
     "was not given up), else clock_gettime; both are CLOCK_MONOTONIC (perf_counter)."},
    {"wall_clock_state", mod_wall_clock_state, METH_NOARGS,
     "The TSC clock's state: built in, anchors taken, dropped, seconds per tick."},
    {"_skew_tsc_rate", mod_skew_tsc_rate, METH_O,
     "For tests: multiply the TSC's measured rate (the next anchor must drop the TSC)."},
    {NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "geventperf._ctrace",
    "The Tracer's per-switch hot path in C (optional; tracer.py falls back to Python).",
    -1, module_methods,
};

PyMODINIT_FUNC PyInit__ctrace(void) {
    str_gr_frame = PyUnicode_InternFromString("gr_frame");
    str_dead = PyUnicode_InternFromString("dead");
    str_name = PyUnicode_InternFromString("name");
    str_t0 = PyUnicode_InternFromString("t0");
    if (!str_gr_frame || !str_dead || !str_name || !str_t0)
        return NULL;
    void **api = (void **)PyCapsule_Import("greenlet._C_API", 0);
    if (api != NULL) {
        greenlet_type = (PyTypeObject *)api[0];  /* PyGreenlet_Type_NUM */
        greenlet_started = (int (*)(PyObject *))api[GREENLET_STARTED_NUM];
        greenlet_active = (int (*)(PyObject *))api[GREENLET_ACTIVE_NUM];
    } else {
        PyErr_Clear();  /* the attribute lookup then */
    }
    if (PyType_Ready(&RecordType) < 0 || PyType_Ready(&RowType) < 0 ||
        PyType_Ready(&SectionType) < 0 || PyType_Ready(&HotType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "NBUCKETS", NBUCKETS) < 0 ||
        PyModule_AddIntConstant(m, "FAST_FRAME_WALK", FAST_FRAME_WALK) < 0 ||
        PyModule_AddObjectRef(m, "Record", (PyObject *)&RecordType) < 0 ||
        PyModule_AddObjectRef(m, "Row", (PyObject *)&RowType) < 0 ||
        PyModule_AddObjectRef(m, "OpenSection", (PyObject *)&SectionType) < 0 ||
        PyModule_AddObjectRef(m, "Hot", (PyObject *)&HotType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
