/* diag_xid.h - what an XID means and whose fault it is, from NVIDIA's XID catalog: hardware or
 * driver/firmware (drain, reset, service) or the application (the job's own error). */
#ifndef GPUWATCH_DIAG_XID_H
#define GPUWATCH_DIAG_XID_H

typedef enum {
    XID_UNKNOWN,  /* not in the table */
    XID_APP,      /* caused by the application: fix the job, not the GPU */
    XID_HARDWARE, /* hardware, firmware or the GPU's link: drain, reset, RMA if it recurs */
} xid_class;

typedef struct diag_xid {
    int code;
    xid_class cls;
    int critical; /* the GPU should be drained until reset or serviced */
    const char *meaning;
    const char *action;
} diag_xid;

/* The table entry for code, or NULL when not known. */
const diag_xid *diag_xid_lookup(int code);

#endif
