/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every difference between the kernels sroce supports (Debian's 6.1 and
 * 6.12) is bridged here, so the rest of the driver is written once against
 * one API. Nothing the driver uses so far differs between them.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/version.h>

#endif /* SROCE_COMPAT_H */
