// SPDX-License-Identifier: MIT
/*
 * The FUSE side of the tracefs mount (libfuse3, high-level API): attributes,
 * directory listings, open/read/write/release, and mounting.  What exists
 * where is the tree of tracefs/tree.c.
 *
 * Every file reports size 0 and is opened with direct_io, so reads are not
 * cut at st_size and trace_pipe can block.  A read's text is made when the
 * file is opened (`trace` is a snapshot of that moment); a write acts at
 * once.  List files (set_ftrace_filter...) follow the kernel's protocol:
 * an open with O_TRUNC replaces the list with what the first write brings
 * (or empties it when nothing is written), later writes add to it.
 *
 * One lock serialises all of it, except the sleeps of a trace_pipe read
 * waiting for data.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "utrace/read.h"
#include "tracefs/tracefs.h"

#define PIPE_POLL_NS (50L * 1000 * 1000) /* trace_pipe polls the buffers this often */
#define MAX_WORKERS 256                  /* FUSE threads: each blocked reader holds one */

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static struct timespec mount_time;
static __thread int cancel_state;

void tfs_lock(void)
{
	/* A worker cancelled at unmount must not die holding the lock. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	pthread_mutex_lock(&big_lock);
}

void tfs_unlock(void)
{
	pthread_mutex_unlock(&big_lock);
	pthread_setcancelstate(cancel_state, NULL);
}

/* ------------------------------------------------------------------ */
/* Attributes and directories                                          */
/* ------------------------------------------------------------------ */

static void fill_stat(const struct tfs_node *nd, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	if (nd->kind == TFS_K_FILE) {
		st->st_mode = S_IFREG | nd->file->mode;
		st->st_nlink = 1;
	} else {
		st->st_mode = S_IFDIR | (nd->kind == TFS_K_ROOT ? 0700 : 0750);
		st->st_nlink = 2;
	}
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_atim = st->st_mtim = st->st_ctim = mount_time;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct tfs_node nd;
	int ret;

	(void)fi;
	tfs_lock();
	ret = tfs_resolve(path, &nd);
	tfs_unlock();
	if (!ret)
		fill_stat(&nd, st);
	return ret;
}

struct filler {
	void *buf;
	fuse_fill_dir_t fill;
};

static int add(void *ctx, const char *name, bool dir, mode_t mode)
{
	const struct filler *f = ctx;
	struct stat st = {.st_mode = (dir ? S_IFDIR : S_IFREG) | mode};

	return f->fill(f->buf, name, &st, 0, 0);
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct filler f = {buf, fill};
	struct tfs_node nd;
	int ret;

	(void)off;
	(void)fi;
	(void)flags;
	tfs_lock();
	ret = tfs_resolve(path, &nd);
	if (!ret && nd.kind == TFS_K_FILE)
		ret = -ENOTDIR;
	if (!ret) {
		add(&f, ".", true, 0750);
		add(&f, "..", true, 0750);
		tfs_list(&nd, add, &f);
	}
	tfs_unlock();
	return ret;
}

/* ------------------------------------------------------------------ */
/* Open files                                                          */
/* ------------------------------------------------------------------ */

struct handle {
	struct tfs_node nd;
	int flags;          /* open(2) flags */
	char *text;         /* what reads return (not for trace_pipe) */
	size_t len;
	bool trunc;         /* a list opened with O_TRUNC, not yet replaced */
	bool wrote;         /* a write was tried */
	char *pend;         /* trace_pipe: text taken but not yet read */
	size_t pend_len, pend_off;
	struct ut_live_stream *stream; /* trace_pipe: the reader, kept per open */
};

static bool set_req(const struct tfs_node *nd, struct tfs_req *r)
{
	r->sc = nd->inst ? tfs_scope_get_inst(nd->inst) : tfs_scope_get(nd->pid);
	r->file = nd->file;
	r->opt = nd->opt;
	r->tid = nd->tid;
	r->ev = nd->ev;
	r->caller = fuse_get_context() ? (int32_t)fuse_get_context()->pid : 0;
	return r->sc != NULL;
}

static void handle_free(struct handle *h)
{
	if (!h)
		return;
	free(h->text);
	free(h->pend);
	ut_live_stream_free(h->stream);
	free(h);
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	int acc = fi->flags & O_ACCMODE, ret;
	struct handle *h;
	struct tfs_req r = {0};
	FILE *f;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->flags = fi->flags;
	tfs_lock();
	ret = tfs_resolve(path, &h->nd);
	if (!ret && h->nd.kind != TFS_K_FILE)
		ret = -EISDIR;
	if (!ret && !set_req(&h->nd, &r))
		ret = -ENOMEM;
	if (!ret && acc != O_RDONLY && (fi->flags & O_TRUNC) && r.file->store) {
		if (r.file->trunc)
			ret = r.file->trunc(&r);
		h->trunc = r.file->flags & TFS_LIST;
	}
	if (!ret && acc != O_WRONLY && r.file->show && !(r.file->flags & TFS_STREAM)) {
		f = open_memstream(&h->text, &h->len);
		if (!f)
			ret = -ENOMEM;
		else {
			ret = r.file->show(&r, f);
			if (fclose(f) && !ret)
				ret = -ENOMEM;
		}
	}
	tfs_unlock();
	if (ret) {
		handle_free(h);
		return ret;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	if (r.file->flags & TFS_STREAM)
		fi->nonseekable = 1;
	return 0;
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EACCES; /* as tracefs: no new files (echo 1 > options/bogus) */
}

static struct handle *handle_of(const struct fuse_file_info *fi)
{
	return (struct handle *)(uintptr_t)fi->fh;
}

/*
 * trace_pipe: what is there, or wait for something (polling the buffers).
 * The stream consumes only while the file is being read (@attending: this
 * read counts among its readers, ut_live_stream_on_demand()).
 */
static int read_pipe_attended(struct handle *h, char *buf, size_t size, bool *attending)
{
	struct timespec nap = {0, PIPE_POLL_NS};
	struct tfs_req r;

	for (;;) {
		char *text = NULL;
		size_t len = 0;
		int ret;

		tfs_lock();
		if (h->pend_off < h->pend_len) {
			size_t n = h->pend_len - h->pend_off < size ? h->pend_len - h->pend_off : size;

			memcpy(buf, h->pend + h->pend_off, n);
			h->pend_off += n;
			tfs_unlock();
			return (int)n;
		}
		free(h->pend);
		h->pend = NULL;
		h->pend_len = h->pend_off = 0;
		ret = set_req(&h->nd, &r) ? tfs_pipe_take(&r, &h->stream, &text, &len) : -ENOMEM;
		if (h->stream && !*attending) { /* made by this first read */
			ut_live_stream_attend(h->stream, true);
			*attending = true;
		}
		if (!ret && len) {
			h->pend = text;
			h->pend_len = len;
			tfs_unlock();
			continue;
		}
		free(text);
		tfs_unlock();
		if (ret == -ENODEV)
			return 0; /* the process is gone and everything was read */
		if (ret)
			return ret;
		if (h->flags & O_NONBLOCK)
			return -EAGAIN;
		if (fuse_interrupted())
			return -EINTR;
		nanosleep(&nap, NULL);
	}
}

static int read_pipe(struct handle *h, char *buf, size_t size)
{
	bool attending = false;
	int ret;

	tfs_lock();
	if (h->stream) {
		ut_live_stream_attend(h->stream, true);
		attending = true;
	}
	tfs_unlock();
	ret = read_pipe_attended(h, buf, size, &attending);
	if (attending)
		ut_live_stream_attend(h->stream, false);
	return ret;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct handle *h = handle_of(fi);

	(void)path;
	if (!h)
		return -EBADF;
	if (h->nd.file->flags & TFS_STREAM)
		return read_pipe(h, buf, size);
	if (!h->nd.file->show)
		return -EINVAL;
	if (off < 0 || (size_t)off >= h->len)
		return 0;
	if (size > h->len - (size_t)off)
		size = h->len - (size_t)off;
	memcpy(buf, h->text + off, size);
	return (int)size;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct handle *h = handle_of(fi);
	struct tfs_req r;
	int ret;

	(void)path;
	(void)off;
	if (!h)
		return -EBADF;
	if (!h->nd.file->store)
		return -EINVAL; /* a read-only file (the kernel's answer when root writes one) */
	tfs_lock();
	ret = set_req(&h->nd, &r) ? 0 : -ENOMEM;
	if (!ret)
		ret = r.file->store(&r, buf, size, !h->trunc);
	h->wrote = true;
	if (!ret)
		h->trunc = false;
	tfs_unlock();
	return ret < 0 ? ret : ret > 0 && (size_t)ret < size ? ret : (int)size;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	struct handle *h = handle_of(fi);
	struct tfs_req r;

	(void)path;
	if (!h)
		return 0;
	/* `: > set_ftrace_filter`: opened with O_TRUNC, nothing written: empty it. */
	if (h->trunc && !h->wrote) {
		tfs_lock();
		if (set_req(&h->nd, &r))
			r.file->store(&r, "", 0, false);
		tfs_unlock();
	}
	handle_free(h);
	return 0;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct tfs_node nd;
	int ret;

	(void)size;
	(void)fi;
	tfs_lock();
	ret = tfs_resolve(path, &nd);
	tfs_unlock();
	if (ret)
		return ret;
	/* ftruncate(2) changes nothing: only O_TRUNC at open clears (SPEC §2) */
	return nd.kind == TFS_K_FILE ? 0 : -EISDIR;
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct tfs_node nd;
	int ret;

	(void)tv;
	(void)fi;
	tfs_lock();
	ret = tfs_resolve(path, &nd);
	tfs_unlock();
	return ret;
}

/* mkdir instances/NAME: a new instance (as the kernel's); anywhere else EPERM. */
static int fs_mkdir(const char *path, mode_t mode)
{
	const char *name;
	int ret;

	(void)mode;
	tfs_lock();
	name = tfs_mkdir_name(path);
	ret = name ? ut_inst_create(tfs_rundir, name) : -EPERM;
	tfs_unlock();
	return ret < 0 ? ret : 0;
}

/* rmdir instances/NAME: every process stops tracing for it and it is gone. */
static int fs_rmdir(const char *path)
{
	const char *name;
	int ret;

	tfs_lock();
	name = tfs_mkdir_name(path);
	ret = name ? ut_inst_remove(tfs_rundir, name) : -EPERM;
	tfs_unlock();
	return ret;
}

static int fs_no_unlink(const char *path)
{
	(void)path;
	return -EPERM;
}

static int fs_no_rename(const char *from, const char *to, unsigned int flags)
{
	(void)from;
	(void)to;
	(void)flags;
	return -EPERM;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* open(O_TRUNC) reaches fs_open: it is what clears trace and the lists */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	/* processes come and go: no cached lookups */
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	return NULL;
}

static void fs_destroy(void *data)
{
	(void)data;
	tfs_lock();
	tfs_funcs_free();
	tfs_scopes_free();
	tfs_unlock();
}

static const struct fuse_operations ops = {
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.create = fs_create,
	.read = fs_read,
	.write = fs_write,
	.release = fs_release,
	.truncate = fs_truncate,
	.utimens = fs_utimens,
	.mkdir = fs_mkdir,
	.rmdir = fs_rmdir,
	.unlink = fs_no_unlink,
	.rename = fs_no_rename,
	.init = fs_init,
	.destroy = fs_destroy,
};

/* ------------------------------------------------------------------ */
/* Mounting                                                            */
/* ------------------------------------------------------------------ */

#if FUSE_VERSION >= FUSE_MAKE_VERSION(3, 12)
/*
 * FUSE_USE_VERSION 31 maps fuse_loop_mt() to the 3.1 entry point, whose
 * workers are capped at 10: ten readers blocked in trace_pipe would stop
 * the whole file system.  The 3.12 entry point takes the cap.
 */
int fuse_loop_mt_312(struct fuse *f, struct fuse_loop_config *config);

static int serve(struct fuse *f)
{
	struct fuse_loop_config *lc = fuse_loop_cfg_create();
	int ret;

	if (!lc)
		return -1;
	fuse_loop_cfg_set_max_threads(lc, MAX_WORKERS);
	fuse_loop_cfg_set_idle_threads(lc, 10);
	ret = fuse_loop_mt_312(f, lc);
	fuse_loop_cfg_destroy(lc);
	return ret;
}
#else
static int serve(struct fuse *f)
{
	return fuse_loop_mt(f, 0);
}
#endif

/* The run-time directory as an absolute path: the daemon changes to /. */
static int absolute_rundir(void)
{
	char dir[PATH_MAX], cwd[PATH_MAX];

	ut_rundir(dir, sizeof(dir));
	if (dir[0] == '/') {
		snprintf(tfs_rundir, sizeof(tfs_rundir), "%s", dir);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)) ||
	    snprintf(tfs_rundir, sizeof(tfs_rundir), "%s/%s", cwd, dir) >= (int)sizeof(tfs_rundir))
		return -ENAMETOOLONG;
	return 0;
}

int tfs_main(const char *dir, bool foreground, bool debug)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_session *se;
	char mnt[PATH_MAX];
	struct fuse *f;
	int ret = 1, fd;

	if (absolute_rundir()) {
		fprintf(stderr, "utrace: mount: run-time directory path too long\n");
		return 1;
	}
	/* another user's run-time directory is refused here, not file by file */
	fd = ut_live_root(tfs_rundir, false);
	if (fd == -EPERM) {
		fprintf(stderr, "utrace: mount: %s\n", ut_live_strerror(fd));
		return 1;
	}
	if (fd >= 0)
		close(fd);
	/* absolute: the daemon works from / and unmounts by this path */
	if (tfs_mountpoint(dir, mnt))
		return 1;
	clock_gettime(CLOCK_REALTIME, &mount_time);
	ut_live_keep_ctl_maps(); /* every request looks into every session's block */
	if (fuse_opt_add_arg(&args, "utrace") ||
	    fuse_opt_add_arg(&args, "-ofsname=utrace,subtype=tracefs,default_permissions") ||
	    (debug && fuse_opt_add_arg(&args, "-d"))) {
		fuse_opt_free_args(&args);
		return 1;
	}
	f = fuse_new(&args, &ops, sizeof(ops), NULL);
	if (!f)
		goto out_args;
	if (fuse_mount(f, mnt)) {
		fprintf(stderr, "utrace: mount: cannot mount on %s\n", mnt);
		goto out_destroy;
	}
	/* Returns in the daemon once the mount is there; the parent exits 0. */
	if (fuse_daemonize(foreground))
		goto out_unmount;
	se = fuse_get_session(f);
	if (fuse_set_signal_handlers(se))
		goto out_unmount;
	signal(SIGPIPE, SIG_IGN);
	/* a signal (SIGTERM, SIGINT) ends it normally: unmount and exit 0 */
	ret = serve(f) < 0 ? 1 : 0;
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_unmount(f);
out_destroy:
	fuse_destroy(f);
out_args:
	fuse_opt_free_args(&args);
	return ret;
}
