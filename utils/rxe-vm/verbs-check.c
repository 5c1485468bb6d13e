/* A small verbs program for selftest.sh: built on the host, run in the VM,
 * it shows that binaries of the checkout run there against the host's
 * libibverbs and that RLIMIT_MEMLOCK allows a large registration.
 * Opens DEVICE (argv[1], default rxe0), then allocates a PD, registers
 * 64 MiB, creates a CQ and an RC QP, and frees them in reverse order.
 * Prints "verbs-check: ok" and exits 0, or names the failing call and
 * exits 1. */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kRegionBytes = 64 << 20, kCqDepth = 64 };

static int fail(const char *call) {
  fprintf(stderr, "verbs-check: %s failed: %s\n", call, strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  const char *want = argc > 1 ? argv[1] : "rxe0";
  int num = 0;
  struct ibv_device **list = ibv_get_device_list(&num);
  if (list == NULL) return fail("ibv_get_device_list");
  struct ibv_device *dev = NULL;
  for (int i = 0; i < num; i++)
    if (strcmp(ibv_get_device_name(list[i]), want) == 0) dev = list[i];
  if (dev == NULL) {
    fprintf(stderr, "verbs-check: no device %s among %d\n", want, num);
    return 1;
  }
  int rc = 1;
  struct ibv_context *ctx = ibv_open_device(dev);
  if (ctx == NULL) {
    rc = fail("ibv_open_device");
    goto out_list;
  }
  struct ibv_pd *pd = ibv_alloc_pd(ctx);
  if (pd == NULL) {
    rc = fail("ibv_alloc_pd");
    goto out_ctx;
  }
  char *buf = calloc(1, kRegionBytes);
  if (buf == NULL) {
    rc = fail("calloc");
    goto out_pd;
  }
  struct ibv_mr *mr = ibv_reg_mr(pd, buf, kRegionBytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (mr == NULL) {
    rc = fail("ibv_reg_mr (64 MiB; RLIMIT_MEMLOCK?)");
    goto out_buf;
  }
  struct ibv_cq *cq = ibv_create_cq(ctx, kCqDepth, NULL, NULL, 0);
  if (cq == NULL) {
    rc = fail("ibv_create_cq");
    goto out_mr;
  }
  struct ibv_qp_init_attr attr = {
      .send_cq = cq,
      .recv_cq = cq,
      .cap = {.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1},
      .qp_type = IBV_QPT_RC,
  };
  struct ibv_qp *qp = ibv_create_qp(pd, &attr);
  if (qp == NULL) {
    rc = fail("ibv_create_qp");
    goto out_cq;
  }
  printf("verbs-check: ok (%s, qp %u, mr lkey 0x%x)\n", want, qp->qp_num, mr->lkey);
  rc = 0;
  ibv_destroy_qp(qp);
out_cq:
  ibv_destroy_cq(cq);
out_mr:
  ibv_dereg_mr(mr);
out_buf:
  free(buf);
out_pd:
  ibv_dealloc_pd(pd);
out_ctx:
  ibv_close_device(ctx);
out_list:
  ibv_free_device_list(list);
  return rc;
}
