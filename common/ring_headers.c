// SPDX-License-Identifier: MIT
/*
 * The ring buffer's self-description as the kernel's tracefs prints it in
 * events/header_page and events/header_event (Linux 6.x, x86-64): the
 * page and event-header layout of the pages utrace writes into trace.dat
 * (docs/file-format.md, sections 3 and 4).  The trace.dat writer copies
 * them into every file; the mount serves them.
 */
#include <stddef.h>

#include "common/ring_headers.h"

const char ut_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

const char ut_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

const size_t ut_header_page_len = sizeof(ut_header_page) - 1;
const size_t ut_header_event_len = sizeof(ut_header_event) - 1;
