/* SPDX-License-Identifier: MIT */
/*
 * An output file that appears whole or not at all (reader/outfile.c):
 * written as a temporary in the output's directory and given the output's
 * name only by ut_outfile_close(o, true); outputs that are not regular
 * files (devices, pipes, links) are written in place.
 */
#ifndef UT_READER_OUTFILE_H
#define UT_READER_OUTFILE_H

#include <limits.h>
#include <stdbool.h>

struct ut_outfile {
	int fd;                 /* where to write; -1 when closed */
	bool whole;             /* written as a temporary, published at close */
	bool unnamed;           /* that temporary is an O_TMPFILE file */
	char path[PATH_MAX];    /* the output */
	char temp[PATH_MAX + 8]; /* the temporary name, "" if none */
};

/*
 * Open @path for writing: in place (created or truncated now) unless
 * @whole and it is (or will be) a regular file.  Return: 0 or -errno.
 */
int ut_outfile_open(struct ut_outfile *o, const char *path, bool whole);
/*
 * Close; @publish: the file is complete and takes the output's name (a
 * temporary is removed otherwise).  Return: 0 or -errno (publishing failed).
 */
int ut_outfile_close(struct ut_outfile *o, bool publish);
/* Whether the output is written in place (its name is already its own). */
bool ut_outfile_in_place(const struct ut_outfile *o);

#endif
