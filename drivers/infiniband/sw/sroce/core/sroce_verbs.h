/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: the verbs entry points that sroce_verbs.c's ib_device_ops names
 * and that live with their objects in core/ (QPs, posting), and the
 * check every create verb makes of its udata.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include <rdma/ib_verbs.h>

/* sroce_qp.c */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* sroce_post.c */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/*
 * libsroce sends no driver data and expects the whole reply: anything else
 * is a provider we do not speak to.
 */
static inline int sroce_check_udata(struct ib_udata *udata, size_t resp_len)
{
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (udata->outlen < resp_len)
		return -EINVAL;
	return 0;
}

#endif /* SROCE_VERBS_H */
