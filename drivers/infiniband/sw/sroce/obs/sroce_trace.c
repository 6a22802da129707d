// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sroce: the one place the tracepoints of sroce_trace.h are defined. */
#include "sroce.h"
#include "core/sroce_qp.h"

#define CREATE_TRACE_POINTS
#include "obs/sroce_trace.h"
