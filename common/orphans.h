/* SPDX-License-Identifier: MIT */
/* Recordings whose recorder died (common/orphans.c). */
#ifndef UT_COMMON_ORPHANS_H
#define UT_COMMON_ORPHANS_H

/*
 * Remove the recording directories (rec.*) under @root whose recorder and
 * processes are all gone.  Return: how many.
 */
int ut_live_remove_orphans(const char *root);

#endif
