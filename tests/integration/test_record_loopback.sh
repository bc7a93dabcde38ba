#!/usr/bin/env bash
# A known loopback exchange (tcpmsg) is in the recording exactly: every
# operation with its thread, size and stream range, the 4-tuple from the
# connection records, thread names (set after the thread started), and the
# client's send ranges equal to the server's receive ranges.  Over IPv4 and
# IPv6.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record loopback"
record_exchange_test "record loopback" 127.0.0.1 ""
record_exchange_test "record loopback ipv6" ::1 ""
