/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: /sys/kernel/debug/sroce, the device's and each QP's state for
 * whoever looks (sroce_debugfs.c).
 */
#ifndef SROCE_DEBUGFS_H
#define SROCE_DEBUGFS_H

struct sroce_dev;
struct sroce_qp;

void sroce_debugfs_init(void);
void sroce_debugfs_exit(void);
void sroce_debugfs_dev_add(struct sroce_dev *sdev);
void sroce_debugfs_dev_del(struct sroce_dev *sdev);

void sroce_debugfs_qp_add(struct sroce_qp *qp);
void sroce_debugfs_qp_del(struct sroce_qp *qp);

#endif /* SROCE_DEBUGFS_H */
