// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer target: the pgsql witness parser (fuzz_proto.h says what it checks). */
#define FUZZ_PROTO VP_PROTO_PGSQL
#include "fuzz_proto.h"
