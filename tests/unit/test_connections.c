// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Connections: pairing the two ends of each connection across hosts and
 * within one host, with port reuse, connections opened before the
 * recording (with and without a record), and ends whose peer is external.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../lib/twohosts.h"
#include "socktab.h"

#define US(x) ((uint64_t)(x)*1000)

static int setup(void **state)
{
	*state = two_hosts__new("cli", "10.0.0.9", "srv", "10.0.0.1");
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	two_hosts__free(*state);
	return 0;
}

static const char *analyze(struct two_hosts *t, int nfiles)
{
	assert_int_equal(two_hosts__close(t), 0);
	assert_int_equal(collect_run(&t->c, t->files, nfiles, NULL), 0);
	return collected_sigs(&t->c);
}

/*
 * The same 4-tuple twice: the client closes and reconnects from the same
 * port.  Each call must pair with its own server end (other threads serve
 * the two connections, so a wrong pairing shows in the signature).
 */
static void test_port_reuse(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l1, *l2;

	l1 = synth_link__open(t->a, 1, 90, t->b, 11, 30, "10.0.0.9:40000", "10.0.0.1:80", US(10));
	synth_req(l1, 100, 91, US(100), 31);
	synth_rep(l1, 200, 31, US(110), 91);
	synth_link__close(l1, US(120));
	l2 = synth_link__open(t->a, 2, 90, t->b, 12, 30, "10.0.0.9:40000", "10.0.0.1:80", US(130));
	synth_req(l2, 100, 92, US(140), 32);
	synth_rep(l2, 300, 32, US(150), 92);
	synth_link__close(l2, US(160));

	assert_string_equal(analyze(t, 2), "cli/91>srv/31 | cli/92>srv/32");
	assert_int_equal(t->c.reqs[1]->root->reply_bytes, 300);
	assert_int_equal(t->c.reqs[1]->root->conn_index, 0);
}

/*
 * A keep-alive connection open before the recording started: preexisting
 * records of unknown role, and the first thing seen at the server is the
 * tail of a reply whose request came before.  Roles come from the ports.
 */
static void test_preexisting_unknown_role(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l;

	l = synth_link__open_as(t->a, 1, 90, t->b, 11, 30, "10.0.0.9:45000", "10.0.0.1:80", US(1),
				VPR_CONN_PREEXISTING, false);
	synth_rep(l, 50, 31, US(5), 91); /* reply tail: no request seen */
	synth_req(l, 100, 91, US(100), 31);
	synth_rep(l, 200, 31, US(110), 91);

	assert_string_equal(analyze(t, 2), "cli/91>srv/31");
	assert_int_equal(t->c.reqs[0]->root->request_bytes, 100);
	assert_int_equal(t->c.reqs[0]->root->conn_index, 0);
	synth_link__free(l);
}

/*
 * A connection the recorder never saw open and has no record of: only its
 * operations.  The ends still pair by stream position, the client is the
 * end that sent first.
 */
static void test_connection_without_records(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = synth_link__open_silent(t->a, 1, 90, t->b, 11, 30);

	synth_req(l, 100, 91, US(100), 31);
	synth_rep(l, 200, 31, US(110), 91);
	synth_req(l, 100, 91, US(200), 31);
	synth_rep(l, 200, 31, US(210), 91);

	assert_string_equal(analyze(t, 2), "cli/91>srv/31 | cli/91>srv/31");
	assert_int_equal(t->c.reqs[1]->root->conn_index, 1);
	assert_true(t->c.reqs[0]->root->client.recorded && t->c.reqs[0]->root->server.recorded);
	synth_link__free(l);
}

/* Client and server on one host over loopback: both ends in one recording. */
static void test_loopback_one_host(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = synth_link__open(t->a, 1, 90, t->a, 2, 70, "127.0.0.1:40000",
						"127.0.0.1:6379", US(1));

	synth_req(l, 10, 91, US(100), 71);
	synth_rep(l, 20, 71, US(110), 91);

	assert_string_equal(analyze(t, 1), "cli/91>cli/71");
	synth_link__free(l);
}

/* Peers not recorded: an external client, and a call to an external service. */
static void test_external_ends(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *in, *out;
	char buf[64];

	in = synth_link__open(NULL, 0, 0, t->b, 11, 30, "192.168.7.7:51000", "10.0.0.1:80", US(1));
	out = synth_link__open(t->b, 12, 30, NULL, 0, 0, "10.0.0.1:52000", "172.16.0.5:443", US(1));
	synth_req(in, 100, 0, US(100), 31);
	synth_req(out, 10, 31, US(110), 0);
	synth_rep(out, 10, 0, US(120), 31);
	synth_rep(in, 100, 31, US(130), 0);

	assert_string_equal(analyze(t, 2), "192.168.7.7:51000>srv/31(srv/31>172.16.0.5:443)");
	assert_false(t->c.reqs[0]->root->client.recorded);
	assert_string_equal(vp_endpoint__format(&t->c.reqs[0]->root->client.addr, buf, sizeof(buf)),
			    "192.168.7.7:51000");
	/* An external peer is not missing data: the request is complete. */
	assert_true(t->c.reqs[0]->complete);
	synth_link__free(in);
	synth_link__free(out);
}

/*
 * One recorder for every namespace of a machine (header netns 0): its file
 * lists the addresses of its own namespace (100) only, and holds both ends of
 * connections between the others.
 */
static int setup_machine(void **state)
{
	struct two_hosts *t = calloc(1, sizeof(*t));

	if (!t || synth_tmpdir(t->dir, sizeof(t->dir))) {
		free(t);
		return -1;
	}
	snprintf(t->pa, sizeof(t->pa), "%s/m.vpr", t->dir);
	t->files[0] = t->pa;
	t->a = synth_host__new(t->pa, "m", NULL, 0);
	if (!t->a) {
		two_hosts__free(t);
		return -1;
	}
	synth_host__set_netns(t->a, 100);
	synth_addr(t->a, "192.0.2.2");
	*state = t;
	return 0;
}

/* Client (tid 91) to web (tid 31) in namespace 201 of the machine's one recording. */
static struct synth_link *open_web(struct two_hosts *t)
{
	synth_host__set_netns(t->a, 201);
	return synth_link__open(t->a, 1, 90, t->a, 11, 30, "10.0.0.9:40000", "10.0.0.1:80", US(10));
}

/* A request to web at t, during which web makes one call on out (answered by otid). */
static void web_request(struct synth_link *web, struct synth_link *out, uint32_t otid, uint64_t t)
{
	synth_req(web, 100, 91, t, 31);
	synth_req(out, 10, 31, t + US(10), otid);
	synth_rep(out, 10, otid, t + US(20), 31);
	synth_rep(web, 100, 31, t + US(30), 91);
}

/* client -> web -> db, each in a namespace of its own: every call pairs within the one file. */
static void test_namespaces_one_recording(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l1 = open_web(t), *l2;

	synth_host__set_netns(t->a, 202);
	l2 = synth_link__open(t->a, 12, 30, t->a, 21, 70, "10.0.0.1:50000", "10.0.0.3:5432",
			      US(20));
	web_request(l1, l2, 71, US(100));

	assert_string_equal(analyze(t, 1), "m/91>m/31(m/31>m/71)");
	assert_true(t->c.reqs[0]->complete);
	assert_true(t->c.reqs[0]->exact);
	synth_link__free(l1);
	synth_link__free(l2);
}

/*
 * In such a file an address is external only when nothing of it was seen: a
 * call out of the machine is complete, a call to a namespace whose end is
 * missing (its records lost, its process gone) is not.
 */
static void test_namespaces_external_and_missing(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *in = open_web(t), *out, *gone;

	out = synth_link__open(t->a, 12, 30, NULL, 0, 0, "10.0.0.1:52000", "172.16.0.5:443",
			       US(20));
	synth_host__set_netns(t->a, 203);
	gone = synth_link__open(t->a, 13, 30, t->a, 22, 70, "10.0.0.1:50001", "10.0.0.3:5432",
				US(20));
	web_request(in, out, 0, US(100));
	synth_req(in, 100, 91, US(200), 31);
	synth_xfer_half(gone, SYNTH_C2S, false, 10, 31, US(210), true);
	synth_xfer_half(gone, SYNTH_S2C, true, 10, 31, US(220), true);
	synth_rep(in, 100, 31, US(230), 91);

	assert_string_equal(analyze(t, 1),
			    "m/91>m/31(m/31>172.16.0.5:443) | m/91>m/31(m/31>10.0.0.3:5432)");
	assert_true(t->c.reqs[0]->complete);
	assert_false(t->c.reqs[1]->complete);
	synth_link__free(in);
	synth_link__free(out);
	synth_link__free(gone);
}

/* The socket table infers roles from ports when the recorder could not tell. */
static void test_role_inference(void **state)
{
	struct vp_socktab tab = {0};
	struct vpr_conn c = {0};
	struct vp_sock *s;

	c.h.type = VPR_CONN;
	c.family = 2;
	c.cookie = 5;
	c.sport = 8080;
	c.dport = 51234;
	s = vp_socktab__conn(&tab, &c);
	vp_socktab__infer_role(&tab, s, VPR_DIR_SEND);
	assert_int_equal(s->role, VPR_ROLE_ACCEPTED); /* sends first, but 8080 <- ephemeral port */
	c.cookie = 6;
	c.sport = 51000;
	c.dport = 5432;
	s = vp_socktab__conn(&tab, &c);
	vp_socktab__infer_role(&tab, s, VPR_DIR_RECV);
	assert_int_equal(s->role, VPR_ROLE_CONNECTED);
	s = vp_socktab__get(&tab, 7, 0); /* no record at all */
	vp_socktab__infer_role(&tab, s, VPR_DIR_SEND);
	assert_int_equal(s->role, VPR_ROLE_CONNECTED);
	assert_int_equal(s->role_source, VP_ROLE_BY_FIRST_SEND);
	vp_socktab__free(&tab);
	(void)state;
}

/*
 * A socket closed long before one more operation of its (a damaged
 * recording): the look-ahead has that operation waiting, tagged with the
 * socket, when the socket is reaped under it (some 42 ms after its close,
 * while other traffic moves the analysis on: it advances every 1024 records).  The operation then looks its
 * socket up afresh, as before the tag, instead of using the freed one
 * (ASan's build catches the latter).
 */
static void test_operation_after_reaped_socket(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l1, *l2;
	char sig[256];

	l1 = synth_link__open(t->a, 1, 90, t->b, 11, 30, "10.0.0.9:40000", "10.0.0.1:80", US(10));
	synth_req(l1, 100, 91, US(100), 31);
	synth_rep(l1, 200, 31, US(110), 91);
	synth_link__close(l1, US(1000));
	l2 = synth_link__open(t->a, 2, 90, t->b, 12, 30, "10.0.0.9:40001", "10.0.0.1:80", US(1500));
	for (uint64_t us = 2000; us < 100000; us += 10) {
		synth_req(l2, 100, 92, US(us), 32);
		synth_rep(l2, 200, 32, US(us + 5), 92);
		if (us == 51000)
			synth_op(t->a, US(us + 1), 90, 93, 1, VPR_DIR_SEND, 10, 12345);
	}
	synth_link__close(l2, US(100100));

	analyze(t, 2);
	assert_true(t->c.n >= 9801);
	assert_string_equal(call_sig(&t->c, t->c.reqs[0]->root, sig, sizeof(sig)), "cli/91>srv/31");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_port_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preexisting_unknown_role, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connection_without_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loopback_one_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_external_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_namespaces_one_recording, setup_machine,
						teardown),
		cmocka_unit_test_setup_teardown(test_namespaces_external_and_missing, setup_machine,
						teardown),
		cmocka_unit_test(test_role_inference),
		cmocka_unit_test_setup_teardown(test_operation_after_reaped_socket, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
