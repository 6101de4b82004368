// SPDX-License-Identifier: MIT
/*
 * cxx_aliases: C++ functions known by another name (symbols at one
 * address), which filters take demangled or mangled:
 *   shapes::scale(int) = shapes::resize(int)       (alias attribute)
 *   shapes::Box::Box(int) C1 = C2                  (the constructor's variants)
 * main calls shapes::scale 1x, shapes::resize 2x (3 calls of one
 * function), constructs 2 Boxes.  Prints "cxx_aliases N".
 */
#include <cstdio>

#include "progs.h"

DEFINE_SINK;

namespace shapes {

NOINLINE int scale(int x) noexcept
{
	SINK(x);
	return x * 4;
}
/* _ZN6shapes5scaleEi is scale(int)'s mangled name */
int resize(int x) noexcept __attribute__((alias("_ZN6shapes5scaleEi")));

struct Box {
	int w;
	NOINLINE explicit Box(int v) : w(v) { SINK(v); }
};

} // namespace shapes

int main()
{
	int r = shapes::scale(1) + shapes::resize(2) + shapes::resize(3);
	shapes::Box a(r), b(r + 1);

	std::printf("cxx_aliases %d\n", a.w + b.w);
	return 0;
}
