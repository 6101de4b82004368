// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the configuration document (common/config.c), the file
 * a control-file writer hands to a traced process's agent, and a process
 * reads as the template at start-up.  Both sides treat it as untrusted.
 *
 * The input is parsed as a document; a document that parses must format
 * back to one that parses to the same settings (a fixed point after one
 * round), and the word-list editing (">" and ">>") must keep the lists one
 * line of words.  Any crash, leak or sanitizer report is a failure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ut_cfg c, d;
	char err[128], *text, *again;

	if (ut_cfg_parse(&c, (const char *)data, size, err, sizeof(err)))
		return 0;
	text = ut_cfg_format(&c);
	if (!text)
		abort();
	if (ut_cfg_parse(&d, text, strlen(text), err, sizeof(err)))
		abort(); /* what we write we must read */
	if (c.tracer != d.tracer || c.clock != d.clock || c.buf_kb != d.buf_kb ||
	    c.nr_pids != d.nr_pids || c.max_graph_depth != d.max_graph_depth ||
	    c.thresh_us != d.thresh_us || c.tracing_on != d.tracing_on || c.lenient != d.lenient)
		abort();
	same(c.filter, d.filter);
	same(c.notrace, d.notrace);
	same(c.graph_function, d.graph_function);
	same(c.graph_notrace, d.graph_notrace);
	again = ut_cfg_format(&d);
	if (!again || strcmp(text, again) != 0)
		abort();
	/* ">>" the filter words onto the notrace list, then ">" them back. */
	if (ut_cfg_set_words(&d.notrace, c.filter, true) ||
	    ut_cfg_set_words(&d.graph_function, c.notrace, false))
		abort();
	if (d.notrace && strchr(d.notrace, '\n'))
		abort();
	free(again);
	free(text);
	ut_cfg_free(&c);
	ut_cfg_free(&d);
	return 0;
}
