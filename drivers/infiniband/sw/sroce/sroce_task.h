/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The scheduler of a QP's engines: sroce_task.c. */
#ifndef SROCE_TASK_H
#define SROCE_TASK_H

struct sroce_qp;

void sroce_task_init(struct sroce_qp *qp);
/* Work arrived: the work item runs the engines. Any context. */
void sroce_task_kick(struct sroce_qp *qp);
/* Run the engines here if nobody is, else kick. Process or softirq. */
void sroce_task_run(struct sroce_qp *qp);
/* Receive admitted a packet: run here, one level deep at most. */
void sroce_task_rx_run(struct sroce_qp *qp);
void sroce_task_quiesce(struct sroce_qp *qp);
void sroce_task_reset(struct sroce_qp *qp, u32 sq_prod);

#endif /* SROCE_TASK_H */
