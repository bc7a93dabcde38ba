// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libssl found and probed (tlsprobe.h, bpf/tls.h).  A file qualifies by its
 * symbols, not its name: Debian's libssl.so.3, and executables that carry
 * OpenSSL and export it (Node.js builds that do not use the system's).
 * Files are looked at once per inode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linkset.h"
#include "procs.h"
#include "tlsprobe.h"
#include "varbuf.h"

/* The probes: function, program, on its return. */
static const struct tls_probe {
	const char *sym;
	const char *prog;
	bool ret;
} tls_probes[] = {
	{"SSL_write", "tls_write_entry", false},
	{"SSL_write", "tls_return_probe", true},
	{"SSL_write_ex", "tls_write_ex_entry", false},
	{"SSL_write_ex", "tls_return_probe", true},
	{"SSL_read", "tls_read_entry", false},
	{"SSL_read", "tls_return_probe", true},
	{"SSL_read_ex", "tls_read_ex_entry", false},
	{"SSL_read_ex", "tls_return_probe", true},
	{"SSL_do_handshake", "tls_handshake_entry", false},
	{"SSL_connect", "tls_handshake_entry", false},
	{"SSL_accept", "tls_handshake_entry", false},
	{"SSL_free", "tls_forget", false},
	{"SSL_clear", "tls_clear", false},
};
#define TLS_NPROBES (sizeof(tls_probes) / sizeof(tls_probes[0]))

/* Symbol names, one bit each. */
static const char *const tls_syms[] = {"SSL_write",   "SSL_write_ex",	  "SSL_read",
				       "SSL_read_ex", "SSL_do_handshake", "SSL_connect",
				       "SSL_accept",  "SSL_free",	  "SSL_clear"};
#define TLS_NSYMS (sizeof(tls_syms) / sizeof(tls_syms[0]))

static unsigned sym_bit(const char *name)
{
	for (unsigned i = 0; i < TLS_NSYMS; i++)
		if (strcmp(name, tls_syms[i]) == 0)
			return 1u << i;
	return 0;
}

/*
 * Without SSL_write, SSL_read, the handshake's entry and SSL_free no
 * position can be trusted; the _ex forms, SSL_connect, SSL_accept and
 * SSL_clear are probed where they exist (OpenSSL 1.1.1 has them all).
 */
bool tls_symbols__enough(unsigned mask)
{
	unsigned need = sym_bit("SSL_write") | sym_bit("SSL_read") | sym_bit("SSL_do_handshake") |
			sym_bit("SSL_free");

	return (mask & need) == need;
}

const char *tls_maps_line(const char *line, char *out, size_t outlen)
{
	const char *perms, *path, *base;
	size_t len;

	/* address perms offset dev inode path */
	perms = strchr(line, ' ');
	if (!perms || strlen(perms) < 5 || perms[3] != 'x')
		return NULL;
	path = strchr(line, '/');
	if (!path || path < perms)
		return NULL;
	len = strcspn(path, "\n");
	/* " (deleted)": the file is gone, nothing to attach to. */
	if (len >= 10 && strncmp(path + len - 10, " (deleted)", 10) == 0)
		return NULL;
	base = memrchr(path, '/', len);
	if (!base || strncmp(base + 1, "libssl", 6) != 0 || len >= outlen)
		return NULL;
	memcpy(out, path, len);
	out[len] = 0;
	return out;
}

/* The file offset of virtual address addr (a uprobe's place), through the loaded segments; 0: none. */
static uint64_t file_offset(Elf *elf, uint64_t addr)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz)
			return addr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

/*
 * The functions defined in elf, by bit, and where each is in the file:
 * found here once rather than by libbpf at each attach (a scan of Node.js's
 * symbols per probe took seconds).
 */
static unsigned scan_syms(Elf *elf, uint64_t *offsets)
{
	Elf_Scn *scn = NULL;
	unsigned mask = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		data = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; data && i < n; i++) {
			GElf_Sym sym;
			const char *name;
			unsigned bit;
			uint64_t off;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || name[0] != 'S' || name[1] != 'S' || name[2] != 'L')
				continue;
			bit = sym_bit(name);
			if (!bit || (mask & bit))
				continue;
			off = file_offset(elf, sym.st_value);
			if (!off)
				continue;
			mask |= bit;
			if (offsets)
				offsets[__builtin_ctz(bit)] = off;
		}
	}
	return mask;
}

static unsigned file_symbols(const char *path, uint64_t *offsets)
{
	unsigned mask = 0;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		mask = scan_syms(elf, offsets);
	if (elf)
		elf_end(elf);
	close(fd);
	return mask;
}

unsigned tls_file__symbols(const char *path)
{
	return file_symbols(path, NULL);
}

/* ---- following the files ---- */

struct tls_seen {
	dev_t dev;
	ino_t ino;
};

struct tls_follow {
	struct bpf_object *obj;
	int verbose;
	struct tls_seen *seen;
	size_t nseen, capseen;
	struct linkset links;
	unsigned nfiles; /* files probed */
};

/* The probes on path whose symbols are in mask; on failure none of them stays. */
static int attach_file(struct tls_follow *tf, const char *path, unsigned mask,
		       const uint64_t *offsets)
{
	size_t first = tf->links.n;
	int err = 0;

	for (unsigned p = 0; p < TLS_NPROBES && !err; p++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = tls_probes[p].ret);
		unsigned bit = sym_bit(tls_probes[p].sym);
		struct bpf_program *prog;
		struct bpf_link *link;

		if (!(mask & bit))
			continue;
		prog = bpf_object__find_program_by_name(tf->obj, tls_probes[p].prog);
		if (!prog) {
			err = -ENOTSUP;
			break;
		}
		link = bpf_program__attach_uprobe_opts(prog, -1, path,
						       (size_t)offsets[__builtin_ctz(bit)], &uo);
		if (!link) {
			err = -errno;
			break;
		}
		err = linkset__add(&tf->links, link);
	}
	if (err)
		linkset__truncate(&tf->links, first);
	return err;
}

/* The file at path, looked at and probed once per inode. */
static void see_file(struct tls_follow *tf, const char *path, const char *label)
{
	uint64_t offsets[TLS_NSYMS] = {0};
	struct tls_seen *seen;
	struct stat st;
	unsigned mask;
	int err;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < tf->nseen; i++)
		if (tf->seen[i].dev == st.st_dev && tf->seen[i].ino == st.st_ino)
			return;
	seen = vp_grow((void **)&tf->seen, &tf->nseen, &tf->capseen, sizeof(*tf->seen));
	if (!seen)
		return;
	seen->dev = st.st_dev;
	seen->ino = st.st_ino;
	mask = file_symbols(path, offsets);
	if (!mask)
		return;
	if (!tls_symbols__enough(mask)) {
		fprintf(stderr,
			"vpath-record: warning: TLS: %s has some of libssl's functions but "
			"not those needed; its plaintext is not read\n",
			label);
		return;
	}
	err = attach_file(tf, path, mask, offsets);
	if (err) {
		fprintf(stderr,
			"vpath-record: warning: TLS: cannot probe libssl in %s (%s); its "
			"HTTP/2 is not read\n",
			label, strerror(-err));
		return;
	}
	tf->nfiles++;
	if (tf->verbose)
		fprintf(stderr, "vpath-record: TLS: libssl probed in %s\n", label);
}

/* A process's executable and the libssl files it maps, seen through its root. */
static int see_process(uint32_t pid, void *ctx)
{
	char path[PATH_MAX], file[PATH_MAX], line[PATH_MAX + 128];
	struct tls_follow *tf = ctx;
	FILE *maps;

	if (pid == (uint32_t)getpid())
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	see_file(tf, path, path);
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	maps = fopen(path, "re");
	if (!maps)
		return 0;
	while (fgets(line, sizeof(line), maps)) {
		if (!tls_maps_line(line, file, sizeof(file)))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "/proc/%u/root%s", pid, file) <
		    sizeof(path))
			see_file(tf, path, file);
	}
	fclose(maps);
	return 0;
}

/*
 * Executables that carry OpenSSL of their own and export it, by the names
 * they go by in PATH: Node.js as packaged outside Debian (nodesource).  A
 * process started later from one is followed: the probes are per file, and
 * the recorder cannot look at new programs once it gave up its privileges.
 */
static void see_path(struct tls_follow *tf)
{
	static const char *const names[] = {"node", "nodejs"};
	const char *env = getenv("PATH");
	char *dirs, *dir, *save = NULL, path[PATH_MAX];

	dirs = strdup(env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
	if (!dirs)
		return;
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++)
			if (*dir == '/' && (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
							    names[n]) < sizeof(path))
				see_file(tf, path, path);
	free(dirs);
}

/* Where distributions put libssl: processes started later load it from there. */
static void see_system(struct tls_follow *tf)
{
	static const char *const dirs[] = {"/lib/x86_64-linux-gnu",
					   "/usr/lib/x86_64-linux-gnu",
					   "/lib/aarch64-linux-gnu",
					   "/usr/lib/aarch64-linux-gnu",
					   "/usr/lib64",
					   "/lib64",
					   "/usr/lib",
					   "/lib"};
	static const char *const names[] = {"libssl.so.3", "libssl.so.1.1"};
	char path[256];

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++)
		for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
			snprintf(path, sizeof(path), "%s/%s", dirs[d], names[n]);
			see_file(tf, path, path);
		}
}

struct tls_follow *tls_follow__start(struct bpf_object *obj, const uint32_t *pids, unsigned npids,
				     uint32_t netns, int verbose)
{
	struct proc_filter f = {.pids = pids, .npids = npids, .netns = netns};
	struct tls_follow *tf = calloc(1, sizeof(*tf));

	if (!tf)
		return NULL;
	tf->obj = obj;
	tf->verbose = verbose;
	if (!bpf_object__find_program_by_name(obj, "tls_read_entry"))
		return tf;
	see_system(tf);
	see_path(tf);
	proc_filter__each(&f, see_process, tf);
	return tf;
}

bool tls_follow__active(const struct tls_follow *tf)
{
	return tf && tf->nfiles > 0;
}

void tls_follow__free(struct tls_follow *tf)
{
	if (!tf)
		return;
	linkset__free(&tf->links);
	free(tf->seen);
	free(tf);
}
