/* diag_xid.h - what an XID means, whose fault it is and what to do, from NVIDIA's XID catalog
 * (docs.nvidia.com/deploy/xid-errors): the application's own error, the hardware or its driver, or
 * the memory's row remapping / page retirement (row_remap's), and the catalog's immediate action. */
#ifndef GPUWATCH_DIAG_XID_H
#define GPUWATCH_DIAG_XID_H

typedef enum {
    XID_UNKNOWN,  /* not in the table */
    XID_APP,      /* the application's error: fix the job, not the GPU */
    XID_HARDWARE, /* hardware, firmware, driver or the GPU's links */
    XID_REMAP     /* ECC row remapping / page retirement recorded or failed (63, 64) */
} xid_class;

/* The catalog's "Resolution Bucket (Immediate Action)", weakest first: of several XIDs in one
 * burst, the strongest action is the one to take. */
typedef enum {
    XA_IGNORE,            /* IGNORE: nothing to do for this XID alone */
    XA_RESTART_APP,       /* RESTART_APP */
    XA_CHECK_MECHANICALS, /* CHECK_MECHANICALS: power cables, seating */
    XA_RESET_GPU,         /* RESET_GPU */
    XA_XID_154,           /* XID_154: the recovery action the driver reports */
    XA_WORKFLOW_XID_48,   /* WORKFLOW_XID_48: reset; with 63/64 drain and reset */
    XA_WORKFLOW_NVLINK,   /* WORKFLOW_NVLINK_ERR: reset the GPU or reboot the node */
    XA_RESTART_BM         /* RESTART_BM: the node must be power-cycled */
} xid_action;

typedef struct diag_xid {
    int code;
    xid_class cls;
    xid_action action;
    const char *meaning;
} diag_xid;

/* The table entry for code, or NULL when not known. */
const diag_xid *diag_xid_lookup(int code);
/* The catalog's name of an action ("RESET_GPU") and what it asks, for advice ("drain the GPU and
 * reset it"). */
const char *diag_xid_action_name(xid_action a);
const char *diag_xid_action_text(xid_action a);
/* The action drains the GPU (or the node): a reset, a reboot, a power cycle. */
int diag_xid_action_drains(xid_action a);

#endif
