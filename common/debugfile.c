// SPDX-License-Identifier: MIT
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/debugfile.h"

#define DEFAULT_DEBUG_DIR "/usr/lib/debug"

int ut_debugfile_has_dwarf(void *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
	}
	return 0;
}

static void hex(const unsigned char *id, ssize_t n, char *out, size_t len)
{
	size_t at = 0;

	for (ssize_t i = 0; i < n && at + 3 <= len; i++)
		at += (size_t)snprintf(out + at, len - at, "%02x", id[i]);
	if (!at && len)
		out[0] = '\0';
}

/*
 * Is @cand the debug info of the object whose build-id is @id (@n bytes)?
 * Returns an open descriptor, or -1 (@note says why when it was refused).
 */
static int try_candidate(const char *cand, const unsigned char *id, ssize_t n, char *note,
			 size_t nlen)
{
	int fd = open(cand, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	const void *cid = NULL;
	ssize_t cn;
	Elf *e;
	int ok;

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cn = e ? dwelf_elf_gnu_build_id(e, &cid) : -1;
	ok = e && elf_kind(e) == ELF_K_ELF && ut_debugfile_has_dwarf(e);
	if (ok && n > 0 && (cn != n || memcmp(cid, id, (size_t)n) != 0)) {
		char want[80], have[80];

		hex(id, n, want, sizeof(want));
		hex(cid, cn > 0 ? cn : 0, have, sizeof(have));
		if (!note[0])
			snprintf(note, nlen, "%s belongs to another build (build-id %s, not %s): not used",
				 cand, cn > 0 ? have : "none", want);
		ok = 0;
	}
	if (e)
		elf_end(e);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The debug directories, one at a time: @at walks the list. */
static bool next_dir(const char **at, char *dir, size_t len)
{
	size_t n;

	if (!*at || !**at)
		return false;
	n = strcspn(*at, ":");
	snprintf(dir, len, "%.*s", (int)(n < len ? n : len - 1), *at);
	*at += n + ((*at)[n] == ':');
	return true;
}

static const char *debug_dirs(void)
{
	const char *env = getenv("UTRACE_DEBUG_DIR");

	return env && *env ? env : DEFAULT_DEBUG_DIR;
}

static int by_build_id(const unsigned char *id, ssize_t n, char *found, size_t flen, char *note,
		       size_t nlen)
{
	const char *dirs = debug_dirs();
	char dir[2048], idhex[80];

	if (n < 2)
		return -1;
	hex(id, n, idhex, sizeof(idhex));
	while (next_dir(&dirs, dir, sizeof(dir))) {
		int fd;

		snprintf(found, flen, "%s/.build-id/%.2s/%s.debug", dir, idhex, idhex + 2);
		fd = try_candidate(found, id, n, note, nlen);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

static int by_debuglink(const char *path, void *elf, const unsigned char *id, ssize_t n,
			char *found, size_t flen, char *note, size_t nlen)
{
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	const char *slash = strrchr(path, '/'), *dirs = debug_dirs();
	/* the object's directory: "." for a bare name, "" for one in / */
	const char *odir = slash ? path : ".";
	int olen = slash ? (int)(slash - path) : 1;
	char dir[2048];
	int fd;

	if (!link || !*link || strchr(link, '/'))
		return -1;
	snprintf(found, flen, "%.*s/%s", olen, odir, link);
	if (strcmp(found, path) != 0 && (fd = try_candidate(found, id, n, note, nlen)) >= 0)
		return fd;
	snprintf(found, flen, "%.*s/.debug/%s", olen, odir, link);
	if ((fd = try_candidate(found, id, n, note, nlen)) >= 0)
		return fd;
	while (next_dir(&dirs, dir, sizeof(dir))) {
		if (odir[0] != '/')
			break; /* DIR + a relative directory names nothing */
		snprintf(found, flen, "%s%.*s/%s", dir, olen, odir, link);
		if ((fd = try_candidate(found, id, n, note, nlen)) >= 0)
			return fd;
	}
	return -1;
}

int ut_debugfile_open(const char *path, void *elf, char *found, size_t flen, char *note,
		      size_t nlen)
{
	const void *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	int fd;

	note[0] = '\0';
	if (ut_debugfile_has_dwarf(elf)) {
		snprintf(found, flen, "%s", path);
		return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	fd = by_build_id(id, n, found, flen, note, nlen);
	if (fd < 0)
		fd = by_debuglink(path, elf, id, n, found, flen, note, nlen);
	if (fd < 0)
		found[0] = '\0';
	return fd;
}
