// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer target: the AMQP 0-9-1 witness parser (fuzz_proto.h says what it checks). */
#define FUZZ_PROTO VP_PROTO_AMQP
#include "fuzz_proto.h"
