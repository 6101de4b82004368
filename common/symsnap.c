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

/* A hex field ended by a space, at *@p (before @end); *@p moves past the space. */
static bool hex_field(char **p, const char *end, uint64_t *v)
{
	char *s = *p;
	uint64_t x = 0;
	unsigned n = 0;

	for (; s < end; s++, n++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (n == 16)
			return false; /* more than 64 bits */
		x = x << 4 | d;
	}
	if (!n || s == end || *s != ' ')
		return false;
	*v = x;
	*p = s + 1;
	return true;
}

/* Parse "OFFSET SIZE NAME" in [@line, @end) (no newline); the name is what follows. */
static bool parse_line(char *line, char *end, uint64_t *off, uint64_t *size, char **name)
{
	if (!hex_field(&line, end, off) || !hex_field(&line, end, size) || line == end)
		return false;
	*end = '\0';
	*name = line;
	return true;
}

/*
 * The whole file, NUL-terminated, in one allocation (a snapshot of 100,000
 * names is read in one go, not a line at a time); NULL on error.
 */
static char *read_all(int fd, size_t size, size_t *len)
{
	char *buf = malloc(size + 1);
	size_t got = 0;

	while (buf && got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shorter than it was: what is there */
		got += (size_t)n;
	}
	if (buf)
		buf[got] = '\0';
	*len = got;
	return buf;
}

/* The lines after the header into @st; the count, or -ENOMEM. */
static int load_lines(struct ut_symtab *st, char *p, char *end, uint64_t bias, const char *module)
{
	int added = 0;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *name;
		char *eol = nl ? nl : end;
		uint64_t off, size;

		if (parse_line(p, eol, &off, &size, &name) && off + bias >= bias) {
			if (ut_symtab_add(st, off + bias, size, name, module))
				return -ENOMEM;
			added++;
		}
		p = eol + 1;
	}
	return added;
}

int ut_symsnap_load(struct ut_symtab *st, const char *path, uint64_t bias, const char *module)
{
	size_t hlen = strlen(SNAP_HEADER), len = 0;
	int added, fd;
	struct stat sb;
	char *buf;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* a copy anyone else could have written says nothing about the process */
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || (sb.st_mode & 022) ||
	    (geteuid() && sb.st_uid != geteuid() && sb.st_uid != 0)) {
		close(fd);
		return -EINVAL;
	}
	buf = read_all(fd, (size_t)sb.st_size, &len);
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (len < hlen || memcmp(buf, SNAP_HEADER, hlen) != 0)
		added = -EINVAL;
	else
		added = load_lines(st, buf + hlen, buf + len, bias, module);
	free(buf);
	return added;
}
