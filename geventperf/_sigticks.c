/* geventperf._sigticks: counts the SIGPROF signals the kernel delivers, so the CPU
 * sampler can tell the two reasons a gap between two runs of its Python handler is
 * long (geventperf/sampling/sampler.py, CpuSampler._weigh):
 *
 * - ticks collapsed in a C call: Python runs signal handlers only between bytecodes,
 *   so every tick during a long C call is delivered (counted here) and handled once,
 *   when the call returns: the gap is that call's CPU;
 * - ticks the kernel never delivered: on a busy machine the process may run for tens
 *   of milliseconds of CPU without being on a CPU at a tick (measured: gaps of 50-250
 *   ms of CPU, one delivery each, with two CPU hogs on 2 cores).  The gap is then CPU
 *   of whatever ran in it, not of the code the late sample lands in.
 *
 * It wraps the C handler Python installed (signal.signal) in one that adds one to a
 * counter and calls it; take() reads and resets the counter.  Both are async-signal
 * safe (an atomic add; the kernel may deliver the signal to any thread).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <signal.h>
#include <string.h>

static int deliveries;              /* since the last take(); atomic */
static struct sigaction chained;    /* the handler found at install(): Python's */
static int installed;

static void counting_handler(int sig, siginfo_t *info, void *context) {
    __atomic_fetch_add(&deliveries, 1, __ATOMIC_RELAXED);
    if (chained.sa_flags & SA_SIGINFO)
        chained.sa_sigaction(sig, info, context);
    else
        chained.sa_handler(sig);
}

static int is_ours(const struct sigaction *action) {
    return (action->sa_flags & SA_SIGINFO) && action->sa_sigaction == counting_handler;
}

static PyObject *install(PyObject *m, PyObject *unused) {
    struct sigaction found, wrapped;
    if (sigaction(SIGPROF, NULL, &found) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    if (is_ours(&found))
        Py_RETURN_TRUE;
    /* Only a real handler is wrapped: the default action (terminate) and "ignore"
       must stay what they are. */
    if (!(found.sa_flags & SA_SIGINFO)
            && (found.sa_handler == SIG_DFL || found.sa_handler == SIG_IGN))
        Py_RETURN_FALSE;
    chained = found;
    wrapped = found;  /* same mask and flags (SA_RESTART, SA_ONSTACK), plus siginfo */
    wrapped.sa_flags |= SA_SIGINFO;
    wrapped.sa_sigaction = counting_handler;
    __atomic_store_n(&deliveries, 0, __ATOMIC_RELAXED);
    if (sigaction(SIGPROF, &wrapped, NULL) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    installed = 1;
    Py_RETURN_TRUE;
}

static PyObject *remove_handler(PyObject *m, PyObject *unused) {
    struct sigaction found;
    if (!installed)
        Py_RETURN_FALSE;
    installed = 0;
    if (sigaction(SIGPROF, NULL, &found) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    if (!is_ours(&found))  /* replaced since (signal.signal again): theirs stays */
        Py_RETURN_FALSE;
    if (sigaction(SIGPROF, &chained, NULL) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_TRUE;
}

static PyObject *take(PyObject *m, PyObject *unused) {
    return PyLong_FromLong(__atomic_exchange_n(&deliveries, 0, __ATOMIC_RELAXED));
}

static PyObject *is_installed(PyObject *m, PyObject *unused) {
    struct sigaction found;
    if (sigaction(SIGPROF, NULL, &found) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    return PyBool_FromLong(is_ours(&found));
}

static PyMethodDef methods[] = {
    {"install", install, METH_NOARGS,
     "Count SIGPROF deliveries, wrapping the handler installed now (Python's); False "
     "when there is none to wrap."},
    {"remove", remove_handler, METH_NOARGS,
     "Put back the wrapped handler, unless SIGPROF's handler was replaced since."},
    {"take", take, METH_NOARGS, "The deliveries counted since the last take()."},
    {"installed", is_installed, METH_NOARGS, "Whether the counting handler is in place."},
    {NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "geventperf._sigticks",
    "Counts SIGPROF deliveries for the CPU sampler (optional: without it the sampler "
    "guesses collapsed ticks from the gap's size).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__sigticks(void) {
    return PyModule_Create(&moduledef);
}
