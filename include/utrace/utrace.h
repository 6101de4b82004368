/* SPDX-License-Identifier: MIT */
/*
 * The optional in-program API of libutrace.so.  A program that may or may not
 * run under utrace looks it up at run time:
 *
 *     int (*set)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "utrace_set_tracing");
 *     if (set)
 *             set(0);
 */
#ifndef UTRACE_UTRACE_H
#define UTRACE_UTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * utrace_set_tracing - turn the current tracer's sites on (1) or off (0)
 *
 * Off turns every site back into a nop; on re-applies the tracer and the
 * filters.  Safe while other threads run traced code.
 * Return: 0, or a negative errno (-ENODEV if utrace could not start).
 */
int utrace_set_tracing(int on);

/*
 * utrace_marker - write @text into the trace (the kernel's trace_marker)
 *
 * It prints as "tracing_mark_write: text", and as a comment in a
 * function_graph trace.  At most 4000 bytes are kept.
 * Return: the number of bytes kept, or a negative errno (-EBADF while
 * tracing is off or utrace is not running, -ENOSPC if the buffer is full).
 */
int utrace_marker(const char *text);

#ifdef __cplusplus
}
#endif

#endif
