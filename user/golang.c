// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Go processes: recognise Go binaries, find where a thread's goroutine id
 * is (the g pointer in thread-local storage, goid in runtime.g from the
 * binary's DWARF or, without it, from a table by Go version), fill the BPF
 * maps go_procs / go_exes, attach the runtime uprobes (go_newproc1,
 * go_runqput, go_goready) at the ELF symbols' offsets, past their stack
 * checks (go_entry.h).  Uprobes are per file: one attach covers every
 * process started from it, now or later.
 *
 * Binaries are found three ways: named (--go-binary), run by a process at
 * start (/proc/PID/exe), and exec'ed later (the exec watch, exec_watch.h).
 * Each file is read here, by the recorder, and attached to through the
 * probe helper (priv_helper.h), which keeps the privileges that takes
 * after the recorder has dropped them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>

#include "elfsyms.h"
#include "go_entry.h"
#include "golang.h"
#include "linkset.h"
#include "procs.h"
#include "varbuf.h"
#include "gotls.h"
#include "x86_ret.h"

/* go_probe_syms' order. */
enum {
	GO_NEWPROC1,
	GO_RUNQPUT,
	GO_GOREADY
};
/* Entry probes only: runtime functions whose arguments name the goroutines. */
static const char *const go_probe_syms[] = {"runtime.newproc1", "runtime.runqput",
					    "runtime.goready"};
/* The closure newproc runs on the system stack: newproc1, then runqput of the new g. */
#define GO_NEWPROC_CLOSURE "runtime.newproc.func1"
static const char *const go_probe_progs[] = {"go_newproc1", "go_runqput", "go_goready"};

uint32_t go_goid_offset_for_version(const char *version)
{
	int major, minor;

	if (sscanf(version, "go%d.%d", &major, &minor) != 2 || major != 1)
		return 0;
	/* runtime.g of those releases (runtime/runtime2.go); 1.23 added syscallbp before goid. */
	if (minor >= 17 && minor <= 22)
		return 152;
	if (minor >= 23 && minor <= 25)
		return 160;
	return 0;
}

/* Bytes at a virtual address of the file, through its loaded segments. */
static int read_vaddr(Elf *elf, int fd, uint64_t addr, void *buf, size_t len)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr < ph.p_vaddr || addr + len > ph.p_vaddr + ph.p_filesz)
			continue;
		return pread(fd, buf, len, (off_t)(ph.p_offset + addr - ph.p_vaddr)) == (ssize_t)len
			       ? 0
			       : -1;
	}
	return -1;
}

/* runtime.buildVersion is a Go string: {data pointer, length}. */
static void read_build_version(Elf *elf, int fd, uint64_t addr, char *out, size_t outlen)
{
	uint64_t hdr[2];

	out[0] = 0;
	if (read_vaddr(elf, fd, addr, hdr, sizeof(hdr)) || hdr[1] == 0 || hdr[1] >= outlen)
		return;
	if (read_vaddr(elf, fd, hdr[0], out, hdr[1]))
		out[0] = 0;
	else
		out[hdr[1]] = 0;
}

static int member_offset(Dwarf_Die *type, const char *member, uint32_t *off)
{
	Dwarf_Die die;

	if (dwarf_child(type, &die))
		return -1;
	do {
		Dwarf_Attribute attr;
		Dwarf_Word w;
		const char *name = dwarf_diename(&die);

		if (dwarf_tag(&die) != DW_TAG_member || !name || strcmp(name, member))
			continue;
		if (!dwarf_attr(&die, DW_AT_data_member_location, &attr) ||
		    dwarf_formudata(&attr, &w) || w > UINT32_MAX)
			return -1;
		*off = (uint32_t)w;
		return 0;
	} while (dwarf_siblingof(&die, &die) == 0);
	return -1;
}

/* goid's offset in runtime.g from the binary's DWARF; -1 without it. */
static int dwarf_goid_offset(int fd, uint32_t *off)
{
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off cu = 0, next;
	size_t hsize;
	int err = -1;

	if (!dw)
		return -1;
	while (err && dwarf_nextcu(dw, cu, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie, die;

		if (dwarf_offdie(dw, cu + hsize, &cudie) && dwarf_child(&cudie, &die) == 0) {
			do {
				const char *name = dwarf_diename(&die);

				if (dwarf_tag(&die) == DW_TAG_structure_type && name &&
				    strcmp(name, "runtime.g") == 0) {
					err = member_offset(&die, "goid", off);
					break;
				}
			} while (dwarf_siblingof(&die, &die) == 0);
		}
		cu = next;
	}
	dwarf_end(dw);
	return err;
}

struct elf_facts {
	bool is_go, has_symtab, has_dwarf;
	bool syms[GO_NPROBES];
	uint64_t sym_addr[GO_NPROBES];
	uint32_t sym_shndx[GO_NPROBES];
	uint64_t build_version;	  /* address of runtime.buildVersion, 0 if absent */
	uint64_t grpc_write_addr; /* GO_GRPC_WRITE_SYM's, 0 if absent */
	uint32_t grpc_write_shndx;
	GElf_Sym newproc_closure; /* GO_NEWPROC_CLOSURE's, st_value 0 if absent */
	int32_t tls_g;
};

static void go_symbol(void *arg, const char *name, const GElf_Sym *sym)
{
	struct elf_facts *f = arg;

	if (name[0] == 'g' && GELF_ST_TYPE(sym->st_info) == STT_FUNC &&
	    strcmp(name, GO_GRPC_WRITE_SYM) == 0) {
		f->grpc_write_addr = sym->st_value;
		f->grpc_write_shndx = sym->st_shndx;
		return;
	}
	if (strncmp(name, "runtime.", 8))
		return;
	if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && strcmp(name, GO_NEWPROC_CLOSURE) == 0)
		f->newproc_closure = *sym;
	if (strcmp(name, "runtime.buildVersion") == 0)
		f->build_version = sym->st_value;
	for (int p = 0; p < GO_NPROBES; p++)
		if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && strcmp(name, go_probe_syms[p]) == 0) {
			f->syms[p] = true;
			f->sym_addr[p] = sym->st_value;
			f->sym_shndx[p] = sym->st_shndx;
		}
}

static void elf_scan(Elf *elf, struct elf_facts *f)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, nph;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name &&
		    (strcmp(name, ".go.buildinfo") == 0 || strcmp(name, ".gopclntab") == 0 ||
		     strcmp(name, ".note.go.buildid") == 0))
			f->is_go = true;
		if (name && (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0))
			f->has_dwarf = true;
		if (sh.sh_type == SHT_SYMTAB) {
			f->has_symtab = true;
			/* One walk for the runtime's symbols and grpc-go's (go_symbol). */
			elf_syms__each(elf, scn, &sh, "", go_symbol, f);
		}
	}
	/*
	 * Go's TLS slot for g is the executable's whole TLS block (runtime.tlsg,
	 * 8 bytes), just below the thread pointer; a binary without PT_TLS
	 * (static, no cgo) sets its fs base 8 bytes past the slot itself.
	 */
	f->tls_g = -8;
	if (elf_getphdrnum(elf, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_TLS) {
				uint64_t align = ph.p_align ? ph.p_align : 1;

				f->tls_g = -(int32_t)((ph.p_memsz + align - 1) / align * align);
			}
		}
}

/*
 * go_runqput needs one runqput only: newproc's, which puts the goroutine
 * newproc1 just made on the run queue.  At runqput's entry it also runs
 * for every other (goready's, the scheduler's): 2.9 runs a gRPC call, where
 * newproc's is 1.  So it goes on the CALL runqput after CALL newproc1 in
 * newproc's closure, where the arguments are in place (BX the new g) and
 * the kernel emulates the call: one trap.  Where the closure does not read
 * that way (another Go), off stays runqput's entry.
 */
static void newproc_runqput_site(const struct elf_facts *f, Elf *elf, int fd, uint64_t *off)
{
	const GElf_Sym *c = &f->newproc_closure;
	uint64_t at;
	uint8_t code[512];
	long made, put;

	if (!c->st_value || !c->st_size || c->st_size > sizeof(code) ||
	    elf_func_offset(elf, c->st_value, c->st_size, c->st_shndx, &at) ||
	    pread(fd, code, c->st_size, (off_t)at) != (ssize_t)c->st_size)
		return;
	made = x86_find_call(code, c->st_size, c->st_value, f->sym_addr[GO_NEWPROC1], 0);
	if (made < 0)
		return;
	put = x86_find_call(code, c->st_size, c->st_value, f->sym_addr[GO_RUNQPUT], (size_t)made);
	if (put >= 0)
		*off = at + (uint64_t)put;
}

int go_binary__inspect(int fd, struct go_binary *info, const char **why)
{
	struct elf_facts f = {0};
	Elf *elf;
	int ret;

	memset(info, 0, sizeof(*info));
	*why = NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		elf_scan(elf, &f);
	ret = 0;
	if (!f.is_go)
		goto out;
	ret = -1;
	if (!f.has_symtab) {
		*why = "stripped (no symbol table)";
		goto out;
	}
	if (f.build_version)
		read_build_version(elf, fd, f.build_version, info->version, sizeof(info->version));
	for (int p = 0; p < GO_NPROBES; p++) {
		if (!f.syms[p]) {
			*why = "a runtime function to probe is missing (inlined or renamed)";
			goto out;
		}
		if (elf_func_offset(elf, f.sym_addr[p], 0, f.sym_shndx[p], &info->probe_off[p])) {
			*why = "a runtime function to probe is not in the file's code";
			goto out;
		}
		info->probe_off[p] = go_entry__probe_offset(fd, info->probe_off[p]);
	}
	newproc_runqput_site(&f, elf, fd, &info->probe_off[GO_RUNQPUT]);
	if (f.grpc_write_addr &&
	    elf_func_offset(elf, f.grpc_write_addr, 0, f.grpc_write_shndx, &info->grpc_write_off))
		info->grpc_write_off = 0;
	if (info->grpc_write_off)
		info->grpc_write_off = go_entry__probe_offset(fd, info->grpc_write_off);
	info->off.tls_g = f.tls_g;
	info->has_dwarf = f.has_dwarf;
	/*
	 * The table first: reading DWARF takes libdw 0.2 s on a small server
	 * (it inflates every compressed .debug_* section), too long to wait at
	 * a program's exec; go_binary__verify checks the table against it after.
	 */
	info->off.g_goid = go_goid_offset_for_version(info->version);
	info->goid_from = GO_GOID_TABLE;
	if (!info->off.g_goid) {
		if (!f.has_dwarf || dwarf_goid_offset(fd, &info->off.g_goid)) {
			*why = "no DWARF and a Go version vpath does not know";
			goto out;
		}
		info->goid_from = GO_GOID_DWARF;
	}
	ret = 1;
out:
	if (elf)
		elf_end(elf);
	return ret;
}

int go_binary__verify(int fd, struct go_binary *info)
{
	uint32_t goid;

	if (info->goid_from != GO_GOID_TABLE || !info->has_dwarf || dwarf_goid_offset(fd, &goid))
		return 0;
	info->goid_from = GO_GOID_DWARF;
	if (goid == info->off.g_goid)
		return 0;
	info->table_goid = info->off.g_goid;
	info->off.g_goid = goid;
	return 1;
}

/* ---- following the Go processes of the host ---- */

static uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A file told apart as the exec watch does: inode, and modification time. */
struct go_exe_seen {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	int state;	      /* go_binary__inspect's answer */
	bool verified;	      /* goid's offset checked against DWARF (go_binary__verify) */
	uint64_t followed_ns; /* CLOCK_MONOTONIC once in go_exes: later execs followed at exec */
	struct vpath_go_offsets off;
};

struct go_follow {
	struct bpf_object *obj;
	struct priv_helper *ph;
	struct go_follow_opts opts;
	int procs_fd, exes_fd;
	struct go_exe_seen *seen;
	size_t nseen, capseen;
	struct linkset links; /* without a helper: attached here */
	unsigned nexes;	      /* binaries followed */
};

/* In this process, when no helper could be started (it can only be done before the drop). */
static int attach_here(struct go_follow *gf, const char *prog_name, int fd, uint64_t off)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(gf->obj, prog_name);
	struct bpf_link *link;
	char path[64];

	if (!prog)
		return -ENOTSUP;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	link = bpf_program__attach_uprobe(prog, false, -1, path, (size_t)off);
	if (!link)
		return -errno;
	return linkset__add(&gf->links, link);
}

static int attach_one(struct go_follow *gf, const char *prog, int fd, uint64_t off)
{
	return gf->ph ? priv_helper__attach_uprobe(gf->ph, prog, fd, off)
		      : attach_here(gf, prog, fd, off);
}

static int attach_probes(struct go_follow *gf, int fd, const struct go_binary *info)
{
	for (int p = 0; p < GO_NPROBES; p++) {
		int err = attach_one(gf, go_probe_progs[p], fd, info->probe_off[p]);

		if (err)
			return err;
	}
	return 0;
}

/*
 * crypto/tls's probes (gotls.h, bpf/go_tls.h).  The handshake's entry
 * last: until it is in place no *tls.Conn is tied, so a failure half way
 * leaves probes that count nothing, never positions missing a call.
 */
static int attach_tls_probes(struct go_follow *gf, int fd, const struct go_tls_probes *p)
{
	static const enum go_tls_fn order[] = {GO_TLS_CLOSE, GO_TLS_WRITE, GO_TLS_READ,
					       GO_TLS_HANDSHAKE};
	int err = 0;

	for (int f = GO_TLS_WRITE; f <= GO_TLS_READ && !err; f++)
		for (uint32_t i = 0; i < p->nrets[f] && !err; i++)
			err = attach_one(gf, "go_tls_return", fd, p->rets[f][i]);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && !err; i++)
		err = attach_one(gf, go_tls__entry_prog(order[i]), fd, p->entry[order[i]]);
	return err;
}

/* A followed binary's crypto/tls, when it has one: its HTTP/2 plaintext read (one warning if not). */
static void follow_tls(struct go_follow *gf, int fd, const char *label, const char *version)
{
	struct go_tls_probes p;
	const char *why;
	int err, found = go_tls__inspect(fd, version, &p, &why);

	if (found == 0)
		return;
	err = found < 0 ? 0 : attach_tls_probes(gf, fd, &p);
	if (found < 0 || err) {
		fprintf(stderr,
			"vpath-record: warning: Go binary %s: crypto/tls not probed (%s); its "
			"HTTP/2 over TLS is not read\n",
			label, found < 0 ? why : strerror(-err));
		return;
	}
	if (gf->opts.tls_active)
		*gf->opts.tls_active = 1;
	if (gf->opts.go_tls_active)
		*gf->opts.go_tls_active = 1;
	if (gf->opts.verbose)
		fprintf(stderr, "vpath-record: Go binary %s: crypto/tls probed (%u + %u returns)\n",
			label, p.nrets[GO_TLS_WRITE], p.nrets[GO_TLS_READ]);
}

/*
 * A followed binary's grpc-go client, when it has one: which goroutine
 * made each stream (bpf go_grpc_write).  Without it, the reader's wake-ups
 * are what tell (docs/analyzer.md); a failure only says so.
 */
static void follow_grpc(struct go_follow *gf, int fd, const char *label,
			const struct go_binary *info)
{
	int err;

	if (!info->grpc_write_off)
		return;
	err = attach_one(gf, "go_grpc_write", fd, info->grpc_write_off);
	if (err)
		fprintf(stderr,
			"vpath-record: warning: Go binary %s: grpc-go's transport Write not "
			"probed (%s); its gRPC calls' goroutines are inferred\n",
			label, strerror(-err));
	else if (gf->opts.verbose)
		fprintf(stderr, "vpath-record: Go binary %s: grpc-go's transport Write probed\n",
			label);
}

static struct vpath_go_exe go_exe_key(const struct stat *st)
{
	return (struct vpath_go_exe){
		.ino = st->st_ino, .dev = (uint32_t)(major(st->st_dev) << 20 | minor(st->st_dev))};
}

static struct go_exe_seen *find_exe(struct go_follow *gf, dev_t dev, ino_t ino,
				    const struct timespec *mtime)
{
	for (size_t i = 0; i < gf->nseen; i++) {
		struct go_exe_seen *e = &gf->seen[i];

		if (e->dev == dev && e->ino == ino && e->mtime.tv_sec == mtime->tv_sec &&
		    e->mtime.tv_nsec == mtime->tv_nsec)
			return e;
	}
	return NULL;
}

static void warn_table(const char *label, const struct go_binary *info)
{
	fprintf(stderr,
		"vpath-record: warning: Go binary %s (%s): goid is at %u in runtime.g by "
		"its DWARF, not %u as for that version: DWARF's taken\n",
		label, info->version, info->off.g_goid, info->table_goid);
}

/*
 * A program exec'ed later is Go, and its goroutines are not seen until its
 * process is followed: said at its exec (the recorder writes it, and holds
 * its line there until it is handed in), so that the analyzer takes none
 * of its threads' links as exact (docs/recorder.md, "Programs started
 * later").
 */
static void tell_pending(struct go_follow *gf, struct exec_event *ev)
{
	if (gf->opts.pending)
		gf->opts.pending(gf->opts.pending_ctx, ev->pid, ev->exec_ns);
	exec_event__release(ev);
}

/*
 * The file open at fd (a name given, a running process's executable, one
 * exec'ed later), inspected and probed once per file; its entry in the
 * list of files seen.  label names it in messages.  Without verify, the
 * caller is in a hurry (a program just started): goid's offset from the
 * table is not checked against DWARF, go_follow_verify does it later.
 * ev: the exec that showed it, told pending once the file is known Go.
 */
static struct go_exe_seen *see_exe(struct go_follow *gf, int fd, const char *label, bool verify,
				   struct exec_event *ev)
{
	struct go_binary info;
	struct go_exe_seen *e;
	struct stat st;
	const char *why;
	int err;

	if (fstat(fd, &st))
		return NULL;
	e = find_exe(gf, st.st_dev, st.st_ino, &st.st_mtim);
	if (e)
		return e;
	e = vp_grow((void **)&gf->seen, &gf->nseen, &gf->capseen, sizeof(*gf->seen));
	if (!e)
		return NULL;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->mtime = st.st_mtim;
	e->state = S_ISREG(st.st_mode) ? go_binary__inspect(fd, &info, &why) : 0;
	if (e->state < 0) {
		fprintf(stderr,
			"vpath-record: warning: Go binary %s: %s; its goroutines are not "
			"followed (thread-level rules)\n",
			label, why);
		return e;
	}
	if (e->state == 0)
		return e;
	if (gf->nexes >= VPATH_MAX_GO_EXES) {
		fprintf(stderr,
			"vpath-record: warning: Go binary %s: more than %d Go binaries; "
			"its goroutines are not followed\n",
			label, VPATH_MAX_GO_EXES);
		e->state = -1;
		return e;
	}
	if (verify) {
		e->verified = true;
		if (go_binary__verify(fd, &info))
			warn_table(label, &info);
	}
	if (ev) {
		tell_pending(gf, ev);
		if (gf->opts.test_late_ms)
			usleep(gf->opts.test_late_ms * 1000u);
	}
	err = attach_probes(gf, fd, &info);
	if (!err) {
		struct vpath_go_exe key = go_exe_key(&st);

		err = bpf_map_update_elem(gf->exes_fd, &key, &info.off, BPF_ANY) ? -errno : 0;
		e->followed_ns = mono_now_ns();
	}
	if (err) {
		fprintf(stderr,
			"vpath-record: warning: Go binary %s: cannot attach the runtime "
			"probes (%s); its goroutines are not followed\n",
			label, strerror(-err));
		e->state = -1;
		return e;
	}
	e->off = info.off;
	gf->nexes++;
	follow_grpc(gf, fd, label, &info);
	follow_tls(gf, fd, label, info.version);
	if (gf->opts.go_active)
		*gf->opts.go_active = 1;
	if (gf->opts.verbose)
		fprintf(stderr,
			"vpath-record: Go binary %s (%s): goroutines followed, goid at %u "
			"(%s), g at fs%+d\n",
			label, info.version[0] ? info.version : "version ?", info.off.g_goid,
			info.goid_from == GO_GOID_DWARF ? "DWARF" : "version table",
			info.off.tls_g);
	return e;
}

static void follow_process(struct go_follow *gf, uint32_t pid, const struct go_exe_seen *e);

/*
 * Once the probes of a program just started are in place: the table's
 * offset checked against DWARF.  Should they differ, the file and that
 * process are corrected (another process of it started in the meantime
 * keeps the table's: the table is the fallback that has held so far).
 */
static void go_follow_verify(struct go_follow *gf, struct go_exe_seen *e, int fd, uint32_t pid,
			     const char *label)
{
	struct go_binary info;
	struct stat st;
	const char *why;

	if (e->state != 1 || e->verified)
		return;
	e->verified = true;
	if (go_binary__inspect(fd, &info, &why) != 1 || go_binary__verify(fd, &info) == 0)
		return;
	warn_table(label, &info);
	e->off = info.off;
	if (fstat(fd, &st) == 0) {
		struct vpath_go_exe key = go_exe_key(&st);

		bpf_map_update_elem(gf->exes_fd, &key, &e->off, BPF_ANY);
	}
	follow_process(gf, pid, e);
}

static void follow_process(struct go_follow *gf, uint32_t pid, const struct go_exe_seen *e)
{
	/* Atomic: the BPF side sets bits of the same word at exec. */
	if (gf->opts.go_pid_bits && VPATH_GO_PID_WORD(pid) < VPATH_GO_PID_WORDS)
		__atomic_fetch_or(&gf->opts.go_pid_bits[VPATH_GO_PID_WORD(pid)],
				  VPATH_GO_PID_BIT(pid), __ATOMIC_SEQ_CST);
	if (bpf_map_update_elem(gf->procs_fd, &pid, &e->off, BPF_ANY) && gf->opts.verbose)
		fprintf(stderr, "vpath-record: Go process %u: %s\n", pid, strerror(errno));
}

static int see_process(uint32_t pid, void *ctx)
{
	struct go_follow *gf = ctx;
	char path[64], label[96];
	struct go_exe_seen *e;
	int fd;

	if (pid == (uint32_t)getpid())
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	snprintf(label, sizeof(label), "of PID %u", pid);
	e = see_exe(gf, fd, label, true, NULL);
	close(fd);
	if (e && e->state == 1)
		follow_process(gf, pid, e);
	return 0;
}

static void scan_processes(struct go_follow *gf)
{
	struct proc_filter f = {
		.pids = gf->opts.pids, .npids = gf->opts.npids, .netns = gf->opts.netns};

	proc_filter__each(&f, see_process, gf);
}

/*
 * A program exec'ed after the start (the exec watch's hook).  The BPF side
 * already followed the process if its file was followed (go_exes); this
 * is the first exec of a file, or one while it was being looked at.
 */
static void go_on_exec(void *ctx, struct exec_event *ev)
{
	struct go_follow *gf = ctx;
	struct timespec mtime = {.tv_sec = ev->exe.mtime_sec, .tv_nsec = ev->exe.mtime_nsec};
	dev_t dev = makedev(ev->exe.dev >> 20, ev->exe.dev & 0xfffff);
	struct go_exe_seen *e = find_exe(gf, dev, (ino_t)ev->exe.ino, &mtime);
	char label[320];
	int fd;

	if (!e) {
		fd = exec_event__fd(ev);
		if (fd < 0)
			return; /* gone already: its file is told again at its next exec */
		snprintf(label, sizeof(label), "%s (PID %u, started after the recorder)",
			 ev->path[0] ? ev->path : "?", ev->pid);
		e = see_exe(gf, fd, label, false, ev);
		if (e && e->state == 1) {
			follow_process(gf, ev->pid, e);
			if (gf->opts.verbose)
				fprintf(stderr,
					"vpath-record: Go binary %s: probes in place %.1f ms "
					"after its exec\n",
					label, (double)(mono_now_ns() - ev->exec_ns) / 1e6);
			go_follow_verify(gf, e, fd, ev->pid, label);
		}
		return;
	}
	if (e->state != 1)
		return;
	/* Exec'ed while the probes were being put in place: not followed from its exec either. */
	if (ev->exec_ns < e->followed_ns)
		tell_pending(gf, ev);
	follow_process(gf, ev->pid, e);
}

struct go_follow *go_follow__start(struct bpf_object *obj, struct priv_helper *ph,
				   struct exec_watch *ew, const struct go_follow_opts *opts)
{
	struct go_follow *gf = calloc(1, sizeof(*gf));
	struct bpf_map *procs, *exes;

	if (!gf)
		return NULL;
	gf->obj = obj;
	gf->ph = ph;
	gf->opts = *opts;
	procs = bpf_object__find_map_by_name(obj, "go_procs");
	exes = bpf_object__find_map_by_name(obj, "go_exes");
	if (!procs || !exes || !bpf_object__find_program_by_name(obj, go_probe_progs[0]))
		return gf; /* an architecture without the Go programs */
	gf->procs_fd = bpf_map__fd(procs);
	gf->exes_fd = bpf_map__fd(exes);
	for (unsigned i = 0; i < opts->nbinaries; i++) {
		const char *path = opts->binaries[i];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct go_exe_seen *e = fd < 0 ? NULL : see_exe(gf, fd, path, true, NULL);

		if (!e)
			fprintf(stderr, "vpath-record: warning: --go-binary %s: %s\n", path,
				strerror(errno));
		else if (e->state == 0)
			fprintf(stderr, "vpath-record: warning: --go-binary %s: not a Go binary\n",
				path);
		if (fd >= 0)
			close(fd);
	}
	scan_processes(gf);
	/* (With -p, the BPF side tells only the execs of the processes named.) */
	if (ew && exec_watch__add_hook(ew, go_on_exec, gf)) {
		go_follow__free(gf);
		errno = ENOMEM;
		return NULL;
	}
	return gf;
}

void go_follow__rescan(struct go_follow *gf)
{
	/* Files already seen are not read again: a second look costs a stat per process. */
	if (gf && gf->procs_fd >= 0)
		scan_processes(gf);
}

bool go_follow__active(const struct go_follow *gf)
{
	return gf && gf->nexes > 0;
}

void go_follow__free(struct go_follow *gf)
{
	if (!gf)
		return;
	linkset__free(&gf->links);
	free(gf->seen);
	free(gf);
}
