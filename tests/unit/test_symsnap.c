// SPDX-License-Identifier: MIT
/*
 * The session's symbol snapshots and object identities (common/symsnap.c),
 * and the demangler (common/demangle.c).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/demangle.h"
#include "common/symsnap.h"
#include "ut_test.h"

static char dir[] = "/tmp/ut-symsnap-XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(round_trip)
{
	struct ut_symtab *st = ut_symtab_new(), *back = ut_symtab_new();
	char path[128];
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	ut_symtab_add(st, 0x7f0000001000, 0x40, "_Z7catcherv", "libx");
	ut_symtab_add(st, 0x7f0000001040, 0x10, "main", "libx");
	ut_symtab_add(st, 0x7f0000001050, 0x10, "bad\nname", "libx"); /* left out */
	ut_symtab_finish(st);
	CHECK_EQ_INT(ut_symsnap_write(fd, "syms.0", st, 0x7f0000000000), 0);
	/* never over an existing file */
	CHECK_EQ_INT(ut_symsnap_write(fd, "syms.0", st, 0x7f0000000000), -EEXIST);
	snprintf(path, sizeof(path), "%s/syms.0", dir);
	/* loaded at another bias, as another process would have it */
	CHECK_EQ_INT(ut_symsnap_load(back, path, 0x5000000000, "liby"), 2);
	ut_symtab_finish(back);
	CHECK_EQ_STR(ut_symtab_lookup(back, 0x5000001010)->name, "_Z7catcherv");
	CHECK_EQ_STR(ut_symtab_lookup(back, 0x5000001010)->module, "liby");
	CHECK_EQ_INT((int)ut_symtab_lookup(back, 0x5000001041)->size, 0x10);
	close(fd);
	ut_symtab_free(st);
	ut_symtab_free(back);
}

TEST(hostile_snapshot)
{
	struct ut_symtab *st = ut_symtab_new();
	char path[128];

	write_file("syms.1", "utrace-symbols 1\n"
			     "10 20 good\n"
			     "zz 20 nohex\n"
			     "10 20\n"
			     "10 20 \n"
			     "ffffffffffffffff 1 wraps\n"
			     "99999999999999999999 1 overflow\n"
			     "30 40 alsogood");
	snprintf(path, sizeof(path), "%s/syms.1", dir);
	CHECK_EQ_INT(ut_symsnap_load(st, path, 0x1000, NULL), 2);
	write_file("syms.2", "not a snapshot\n10 20 x\n");
	snprintf(path, sizeof(path), "%s/syms.2", dir);
	CHECK_EQ_INT(ut_symsnap_load(st, path, 0, NULL), -EINVAL);
	snprintf(path, sizeof(path), "%s/none", dir);
	CHECK_EQ_INT(ut_symsnap_load(st, path, 0, NULL), -ENOENT);
	CHECK_EQ_INT(ut_symsnap_load(st, dir, 0, NULL), -EINVAL); /* a directory */
	ut_symtab_free(st);
}

/* A note: 12-byte header, "GNU\0", then the descriptor, each 4-aligned. */
static size_t put_note(unsigned char *p, uint32_t type, const char *name, const void *desc,
		       uint32_t dlen)
{
	Elf64_Nhdr nh = {(uint32_t)strlen(name) + 1, dlen, type};
	size_t n = sizeof(nh);

	memcpy(p, &nh, sizeof(nh));
	memcpy(p + n, name, nh.n_namesz);
	n += (nh.n_namesz + 3) & ~3u;
	memcpy(p + n, desc, dlen);
	return n + ((dlen + 3) & ~3u);
}

TEST(build_id_notes)
{
	unsigned char buf[256] = {0};
	unsigned char id[20];
	char hex[2 * UT_BUILD_ID_MAX + 1];
	size_t n;

	for (int i = 0; i < 20; i++)
		id[i] = (unsigned char)(i * 17);
	n = put_note(buf, 5 /* NT_GNU_PROPERTY_TYPE_0 */, "GNU", "abcd", 4);
	n += put_note(buf + n, NT_GNU_BUILD_ID, "GNU", id, 20);
	CHECK(ut_build_id_from_notes(buf, n, 4, hex));
	CHECK_EQ_STR(hex, "00112233445566778899aabbccddeeff10213243");
	/* cut short: no read past the end, no id */
	CHECK(!ut_build_id_from_notes(buf, n - 1, 4, hex));
	/* another owner's note of the same type is not a build-id */
	n = put_note(buf, NT_GNU_BUILD_ID, "XYZ", id, 20);
	CHECK(!ut_build_id_from_notes(buf, n, 4, hex));
	/* sizes that would wrap */
	memset(buf, 0xff, 12);
	CHECK(!ut_build_id_from_notes(buf, sizeof(buf), 4, hex));
}

TEST(identity)
{
	struct ut_objid a, b;

	CHECK_EQ_INT(ut_objid_of_file("/proc/self/exe", &a), 0);
	CHECK(a.size > 0);
	CHECK(strlen(a.build_id) == 40 || !a.build_id[0]);
	b = a;
	CHECK(ut_objid_same(&a, &b));
	b.build_id[0] = b.build_id[0] == '0' ? '1' : '0';
	CHECK(!ut_objid_same(&a, &b) || !a.build_id[0]);
	a.build_id[0] = b.build_id[0] = '\0';
	b.mtime_ns++;
	CHECK(!ut_objid_same(&a, &b));
	CHECK_EQ_INT(ut_objid_of_file("/nonexistent", &a), -ENOENT);
	CHECK_EQ_INT(ut_objid_of_file("/tmp", &a), -ENOEXEC);
}

TEST(demangle)
{
	struct ut_demangler *d = ut_demangler_new();
	const char *s;

	CHECK_EQ_STR(ut_demangle(d, "_Z7catcherv"), "catcher()");
	CHECK_EQ_STR(ut_demangle(d, "_ZN3geo5scaleEd"), "geo::scale(double)");
	CHECK_EQ_STR(ut_demangle(d, "_ZN3geo5twiceIiEET_S1_"), "int geo::twice<int>(int)");
	s = ut_demangle(d, "_Z7catcherv");
	CHECK(s == ut_demangle(d, "_Z7catcherv")); /* cached */
	CHECK(ut_demangled_has_params("_Z7catcherv", s));
	CHECK_EQ_STR(ut_demangle(d, "main"), "main");
	CHECK_EQ_STR(ut_demangle(d, "_Znot_mangled"), "_Znot_mangled");
	CHECK_EQ_STR(ut_demangle(d, "[libc]"), "[libc]");
	CHECK(!ut_demangled_has_params("main", "main"));
	CHECK_EQ_STR(ut_demangle(NULL, "_Z7catcherv"), "_Z7catcherv");
	/* many names: the table grows and keeps every one */
	for (int i = 0; i < 1000; i++) {
		char m[32], want[32];

		snprintf(m, sizeof(m), "_Z%dxx%dv", 3 + (i >= 10) + (i >= 100), i);
		snprintf(want, sizeof(want), "xx%d()", i);
		CHECK_EQ_STR(ut_demangle(d, m), want);
	}
	CHECK_EQ_STR(ut_demangle(d, "_Z7catcherv"), "catcher()");
	ut_demangler_free(d);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(round_trip);
	RUN(hostile_snapshot);
	RUN(build_id_notes);
	RUN(identity);
	RUN(demangle);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	TEST_EXIT();
}
