/* SPDX-License-Identifier: MIT */
#ifndef TLIB_H
#define TLIB_H
int tlib_add(int a, int b);
int tlib_mul(int a, int b);
#endif
