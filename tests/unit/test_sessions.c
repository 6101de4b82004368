// SPDX-License-Identifier: MIT
/*
 * The sessions layer (reader/sessions.c): good files map; a file replaced by
 * a symbolic link, cut short, or not of this ABI is refused with an error
 * naming it -- never mapped, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/sessname.h"
#include "utrace/abi.h"
#include "utrace/read.h"
#include "ut_test.h"

static char dir[128], sess[192];

/* A run-time dir with one session: a control block and one 2-page thread buffer. */
static void make_session(void)
{
	static struct ut_ctl ctl;
	char path[256];
	uint8_t *buf;
	struct ut_buf_hdr *h;
	size_t len = UT_BUF_HDR_SIZE + 2 * 4096;
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/ut-sessions.XXXXXX");
	CHECK(mkdtemp(dir));
	snprintf(sess, sizeof(sess), "%s/1234.1", dir);
	CHECK(!mkdir(sess, 0700));
	ctl.magic = UT_ABI_MAGIC;
	ctl.version = UT_ABI_VERSION;
	ctl.size = sizeof(ctl);
	ctl.pid = 1234;
	snprintf(path, sizeof(path), "%s/ctl", sess);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, &ctl, sizeof(ctl)) == (ssize_t)sizeof(ctl));
	close(fd);
	buf = calloc(1, len);
	CHECK(buf);
	h = (struct ut_buf_hdr *)buf;
	h->magic = UT_BUF_MAGIC;
	h->version = UT_ABI_VERSION;
	h->buf_size = 2 * 4096;
	snprintf(path, sizeof(path), "%s/buf.0", sess);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	close(fd);
	free(buf);
}

static void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(!system(cmd));
}

static void cut(const char *name, off_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", sess, name);
	CHECK(!truncate(path, size));
}

/* Replace @name by a link to a good copy of it elsewhere. */
static void make_link(const char *name)
{
	char path[256], other[256], cmd[600];

	snprintf(path, sizeof(path), "%s/%s", sess, name);
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	snprintf(cmd, sizeof(cmd), "mv '%s' '%s'", path, other);
	CHECK(!system(cmd));
	CHECK(!symlink(other, path));
}

TEST(good_session_maps)
{
	struct ut_ctl *ctl;
	char err[512] = "";
	void *map;
	size_t len;

	make_session();
	CHECK_EQ_INT(ut_sess_map_ctl(sess, false, &ctl, err, sizeof(err)), 0);
	CHECK_EQ_INT(ctl->pid, 1234);
	ut_sess_unmap_ctl(ctl);
	CHECK_EQ_INT(ut_sess_map_thread(sess, 0, 0, false, &map, &len, err, sizeof(err)), 0);
	CHECK_EQ_INT(len, UT_BUF_HDR_SIZE + 2 * 4096);
	cleanup();
}

TEST(ctl_link_refused)
{
	struct ut_ctl *ctl = (struct ut_ctl *)1;
	char err[512] = "";

	make_session();
	make_link("ctl");
	CHECK_EQ_INT(ut_sess_map_ctl(sess, false, &ctl, err, sizeof(err)), -EPERM);
	CHECK(!ctl);
	CHECK(strstr(err, "ctl"));
	cleanup();
}

TEST(session_dir_link_refused)
{
	struct ut_ctl *ctl;
	char err[512] = "", other[256], cmd[600];

	make_session();
	snprintf(other, sizeof(other), "%s/moved", dir);
	snprintf(cmd, sizeof(cmd), "mv '%s' '%s'", sess, other);
	CHECK(!system(cmd));
	CHECK(!symlink(other, sess));
	CHECK_EQ_INT(ut_sess_map_ctl(sess, false, &ctl, err, sizeof(err)), -EPERM);
	CHECK(strstr(err, "1234.1"));
	cleanup();
}

TEST(ctl_cut_short_refused)
{
	struct ut_ctl *ctl;
	char err[512] = "";

	make_session();
	cut("ctl", 100);
	CHECK_EQ_INT(ut_sess_map_ctl(sess, false, &ctl, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "/ctl: 100 bytes"));
	cut("ctl", 0);
	CHECK_EQ_INT(ut_sess_map_ctl(sess, false, &ctl, err, sizeof(err)), -EINVAL);
	cleanup();
}

TEST(buffer_link_refused)
{
	char err[512] = "";
	void *map;
	size_t len;

	make_session();
	make_link("buf.0");
	CHECK_EQ_INT(ut_sess_map_thread(sess, 0, 0, false, &map, &len, err, sizeof(err)), -EPERM);
	CHECK(strstr(err, "buf.0"));
	cleanup();
}

/* Cut inside the header, and cut inside the ring the header announces. */
TEST(buffer_cut_short_refused)
{
	char err[512] = "", path[256];
	void *map;
	size_t len;

	make_session();
	cut("buf.0", 64);
	CHECK_EQ_INT(ut_sess_map_thread(sess, 0, 0, false, &map, &len, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "buf.0: 64 bytes"));
	cleanup();
	make_session();
	cut("buf.0", UT_BUF_HDR_SIZE + 4096);
	CHECK_EQ_INT(ut_sess_map_thread(sess, 0, 0, false, &map, &len, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "cut short"));
	/* its header alone still maps (the mount reads positions from it) */
	snprintf(path, sizeof(path), "%s/buf.0", sess);
	CHECK_EQ_INT(ut_sess_map_buf(path, false, true, &map, &len, err, sizeof(err)), 0);
	CHECK_EQ_INT(len, UT_BUF_HDR_SIZE);
	cleanup();
}

TEST(missing_session_says_so)
{
	struct ut_ctl *ctl;
	char err[512] = "";

	make_session();
	snprintf(sess, sizeof(sess), "%s/999.1", dir);
	CHECK_EQ_INT(ut_sess_map_ctl(sess, false, &ctl, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "999.1"));
	cleanup();
}

/*
 * With ut_live_keep_ctl_maps() (the mount), ut_live_map_ctl() maps a block
 * once (reader/ctl_cache.c): a second caller
 * gets the same mapping; a session made again under the same name (a new
 * file) is mapped afresh; a removed one, or a control file replaced by a
 * link, is refused as by the plain mapping.
 */
TEST(ctl_mapped_once_while_it_is_the_same_file)
{
	struct ut_ctl *a, *b, *c;
	char path[256];

	make_session();
	a = ut_live_map_ctl(sess); /* not kept yet: each caller its own mapping */
	b = ut_live_map_ctl(sess);
	CHECK(a && b && a != b);
	ut_live_unmap_ctl(b);
	ut_live_unmap_ctl(a);
	ut_live_keep_ctl_maps();
	a = ut_live_map_ctl(sess);
	b = ut_live_map_ctl(sess);
	CHECK(a && a == b);
	CHECK_EQ_INT(a->pid, 1234);
	ut_live_unmap_ctl(b);
	ut_live_unmap_ctl(a);
	c = ut_live_map_ctl(sess); /* unused but recent: still the same */
	CHECK(c == a);
	ut_live_unmap_ctl(c);

	cleanup(); /* the same session name, a new file with another pid */
	make_session();
	snprintf(path, sizeof(path), "%s/ctl", sess);
	{
		int32_t pid = 4321;
		int fd = open(path, O_WRONLY);

		CHECK(fd >= 0);
		CHECK(pwrite(fd, &pid, sizeof(pid), offsetof(struct ut_ctl, pid)) ==
		      (ssize_t)sizeof(pid));
		close(fd);
	}
	c = ut_live_map_ctl(sess);
	CHECK(c);
	CHECK_EQ_INT(c->pid, 4321);
	ut_live_unmap_ctl(c);
	cleanup();
	errno = 0;
	CHECK(!ut_live_map_ctl(sess));
	CHECK_EQ_INT(errno, ENOENT);

	make_session();
	make_link("ctl");
	CHECK(!ut_live_map_ctl(sess));
	CHECK_EQ_INT(errno, EPERM);
	cleanup();
}

/* A session's directory name: what makes one, reads back; anything else is no session. */
TEST(session_names)
{
	char name[UT_SESSNAME_MAX];
	int32_t pid = 0;
	uint64_t born = 0;

	ut_sessname_make(name, sizeof(name), 4194304, UINT64_MAX);
	CHECK_EQ_STR(name, "4194304.18446744073709551615");
	CHECK(ut_sessname_parse(name, &pid, &born));
	CHECK(pid == 4194304 && born == UINT64_MAX);
	CHECK(ut_sessname_parse("12.0", &pid, NULL) && pid == 12);
	CHECK(!ut_sessname_parse(".lock", &pid, &born));
	CHECK(!ut_sessname_parse("12", &pid, &born));
	CHECK(!ut_sessname_parse("12.", &pid, &born));
	CHECK(!ut_sessname_parse("12.5x", &pid, &born));
	CHECK(!ut_sessname_parse("12.-5", &pid, &born));
	CHECK(!ut_sessname_parse("0.5", &pid, &born));
	CHECK(!ut_sessname_parse("99999999999.5", &pid, &born));
	CHECK(!ut_sessname_parse("1.99999999999999999999999", &pid, &born));
}

/* The offsets tests/lib/common.sh's ctl_counter reads the counters at. */
TEST(ctl_counter_offsets)
{
	CHECK(offsetof(struct ut_ctl, slots_reused) == 344);
	CHECK(offsetof(struct ut_ctl, slot_looks) == 352);
}

int main(void)
{
	RUN(ctl_counter_offsets);
	RUN(session_names);
	RUN(good_session_maps);
	RUN(ctl_link_refused);
	RUN(session_dir_link_refused);
	RUN(ctl_cut_short_refused);
	RUN(buffer_link_refused);
	RUN(buffer_cut_short_refused);
	RUN(missing_session_says_so);
	RUN(ctl_mapped_once_while_it_is_the_same_file);
	TEST_EXIT();
}
