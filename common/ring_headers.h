/* SPDX-License-Identifier: MIT */
/* events/header_page and events/header_event: the ring's layout, as the kernel describes it. */
#ifndef UT_RING_HEADERS_H
#define UT_RING_HEADERS_H

#include <stddef.h>

extern const char ut_header_page[];
extern const size_t ut_header_page_len;
extern const char ut_header_event[];
extern const size_t ut_header_event_len;

#endif
