/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cJSON's memory for fuzz_analyze: the JSON output builds a tree of a
 * dozen cJSON items per call, and under AddressSanitizer every one of those
 * small allocations (a stack trace stored, a quarantine slot, poisoning) cost
 * more than the analysis of the input.  The items come from chunks instead,
 * still watched: each item is unpoisoned while it lives and poisoned when
 * freed, with a poisoned gap between items, and an input that leaves an item
 * unfreed, or frees one twice, aborts (a leak LeakSanitizer would otherwise
 * have reported).
 */
#ifndef VPATH_FUZZ_JSON_ARENA_H
#define VPATH_FUZZ_JSON_ARENA_H

/* Make cJSON allocate from the arena (cJSON_InitHooks). */
void json_arena__install(void);
/* At the end of an input: abort if an item is still live, then reuse the chunks. */
void json_arena__reset(void);

#endif
