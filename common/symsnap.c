// SPDX-License-Identifier: MIT
/*
 * Object identities and the sessions' symbol snapshots (common/symsnap.h).
 *
 * A snapshot is text: a header line, then one line per function symbol,
 * "OFFSET SIZE NAME" (hex offset from the load bias, hex size), in the order
 * of the table it was written from.  The runtime writes it while the
 * program starts, so the writer formats by hand into one buffer: a libc's
 * 2,200 functions cost about 0.1 ms.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/symsnap.h"

#define SNAP_HEADER "utrace-symbols 1\n"

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

bool ut_build_id_from_notes(const void *notes, size_t len, size_t align, char *hex)
{
	const unsigned char *p = notes;
	size_t off = 0;

	if (align != 8)
		align = 4;
	while (off + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr nh;
		size_t name, desc, next;

		memcpy(&nh, p + off, sizeof(nh));
		name = off + sizeof(nh);
		desc = name + align_up(nh.n_namesz, align);
		next = desc + align_up(nh.n_descsz, align);
		if (desc < name || next < desc || next > len + align || desc + nh.n_descsz > len)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + name, "GNU", 4) && nh.n_descsz && nh.n_descsz <= UT_BUILD_ID_MAX) {
			static const char digits[] = "0123456789abcdef";

			for (size_t i = 0; i < nh.n_descsz; i++) {
				hex[2 * i] = digits[p[desc + i] >> 4];
				hex[2 * i + 1] = digits[p[desc + i] & 15];
			}
			hex[2 * (size_t)nh.n_descsz] = '\0';
			return true;
		}
		off = next;
	}
	return false;
}

/* The build-id from the file's note sections, or "". */
static void file_build_id(int fd, char *hex)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	hex[0] = '\0';
	if (!elf)
		return;
	while (elf_kind(elf) == ELF_K_ELF && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf &&
		    ut_build_id_from_notes(d->d_buf, d->d_size, sh.sh_addralign, hex))
			break;
	}
	elf_end(elf);
}

int ut_objid_of_file(const char *path, struct ut_objid *id)
{
	struct stat st;
	int fd;

	memset(id, 0, sizeof(*id));
	/* O_NONBLOCK: a FIFO put in the object's place cannot make us wait */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	id->size = (uint64_t)st.st_size;
	id->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	elf_version(EV_CURRENT);
	file_build_id(fd, id->build_id);
	close(fd);
	return 0;
}

bool ut_objid_same(const struct ut_objid *then, const struct ut_objid *now)
{
	if (then->build_id[0])
		return !strcmp(then->build_id, now->build_id);
	return !now->build_id[0] && then->size == now->size && then->mtime_ns == now->mtime_ns;
}

/* --- the snapshot ---------------------------------------------------------- */

struct wbuf {
	int fd;
	int err;
	size_t len;
	char p[65536];
};

static void wflush(struct wbuf *b)
{
	size_t done = 0;

	while (!b->err && done < b->len) {
		ssize_t n = write(b->fd, b->p + done, b->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			b->err = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	b->len = 0;
}

static void whex(struct wbuf *b, uint64_t v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		b->p[b->len++] = tmp[--n];
}

/* One "OFFSET SIZE NAME" line; names that would break the line are left out. */
static void wline(struct wbuf *b, uint64_t off, uint64_t size, const char *name)
{
	size_t len = strlen(name);

	if (!len || len > 4096 || strchr(name, '\n'))
		return;
	if (b->len + len + 40 > sizeof(b->p))
		wflush(b);
	whex(b, off);
	b->p[b->len++] = ' ';
	whex(b, size);
	b->p[b->len++] = ' ';
	memcpy(b->p + b->len, name, len);
	b->len += len;
	b->p[b->len++] = '\n';
}

int ut_symsnap_write(int dirfd, const char *name, const struct ut_symtab *st, uint64_t bias)
{
	struct wbuf *b = malloc(sizeof(*b));
	int ret;

	if (!b)
		return -ENOMEM;
	b->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (b->fd < 0) {
		ret = -errno;
		free(b);
		return ret;
	}
	b->err = 0;
	b->len = strlen(SNAP_HEADER);
	memcpy(b->p, SNAP_HEADER, b->len);
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);

		if (s->addr >= bias)
			wline(b, s->addr - bias, s->size, s->name);
	}
	wflush(b);
	ret = b->err;
	close(b->fd);
	if (ret)
		unlinkat(dirfd, name, 0);
	free(b);
	return ret;
}

/* Parse "OFFSET SIZE NAME"; the name is what follows the second space. */
static bool parse_line(char *line, uint64_t *off, uint64_t *size, char **name)
{
	char *end;

	errno = 0;
	*off = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno)
		return false;
	line = end + 1;
	*size = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno || !end[1])
		return false;
	*name = end + 1;
	end = strchr(*name, '\n');
	if (end)
		*end = '\0';
	return **name != '\0';
}

int ut_symsnap_load(struct ut_symtab *st, const char *path, uint64_t bias, const char *module)
{
	char *line = NULL;
	size_t cap = 0;
	int added = 0, fd;
	struct stat sb;
	FILE *f;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* a copy anyone else could have written says nothing about the process */
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || (sb.st_mode & 022) ||
	    (geteuid() && sb.st_uid != geteuid() && sb.st_uid != 0) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return -EINVAL;
	}
	if (getline(&line, &cap, f) < 0 || strcmp(line, SNAP_HEADER) != 0) {
		added = -EINVAL;
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		uint64_t off, size;
		char *name;

		if (!parse_line(line, &off, &size, &name) || off + bias < bias)
			continue;
		if (ut_symtab_add(st, off + bias, size, name, module)) {
			added = -ENOMEM;
			break;
		}
		added++;
	}
out:
	free(line);
	fclose(f);
	return added;
}
