/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The package version, for --version.  It is defined in one place, the
 * top-level VERSION file, which the Makefile passes as -DVPATH_VERSION to the
 * two objects that print it and to the recorder, which writes it into every
 * file (VPR_WRITER) (the Debian changelog's latest entry must name the same
 * version: `make deb` checks).  Alongside it --version names the recording
 * format a program writes or reads (VPR_VERSION, docs/format.md).
 */
#ifndef VPATH_VERSION_H
#define VPATH_VERSION_H

#ifndef VPATH_VERSION
#error "VPATH_VERSION comes from the VERSION file: build with the Makefile"
#endif

#define VPATH_STR_(x) #x
#define VPATH_STR(x) VPATH_STR_(x)

#endif /* VPATH_VERSION_H */
