// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report page's script and style, kept as files of their own
 * (analyzer/out/report/) so that they read and lint as what they are, and
 * linked in whole, NUL-terminated.  Paths are from the top of the tree,
 * where make runs the compiler.
 */
#include "report.h"

__asm__(".pushsection .rodata\n"
	".global vp_report_js\n"
	".type vp_report_js, @object\n"
	"vp_report_js:\n"
	".incbin \"analyzer/out/report/report.js\"\n"
	".byte 0\n"
	".size vp_report_js, . - vp_report_js\n"
	".global vp_report_css\n"
	".type vp_report_css, @object\n"
	"vp_report_css:\n"
	".incbin \"analyzer/out/report/report.css\"\n"
	".byte 0\n"
	".size vp_report_css, . - vp_report_css\n"
	".popsection\n");
