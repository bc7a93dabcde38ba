/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The recorder's lifecycle: load, attach, enumerate, drain the ring buffer into the output. */
#ifndef VPATH_RECORD_RECORDER_H
#define VPATH_RECORD_RECORDER_H

#include <signal.h>
#include "options.h"

/* Set by the signal handler: stop, drain and close cleanly. */
extern volatile sig_atomic_t recorder_exiting;

/* Record until recorder_exiting or the duration ends.  0, or -errno after a one-line error. */
int recorder_run(const struct record_opts *opts);

#endif
