/* diag_xid.c - the XID table (meanings after NVIDIA's XID catalog, docs.nvidia.com/deploy/xid-errors). */
#include "diag_xid.h"
#include <stddef.h>

static const diag_xid table[] = {
    {13, XID_APP, 0, "graphics engine exception (illegal instruction or out-of-range access in a kernel)",
     "debug the job: run it under compute-sanitizer or with CUDA_LAUNCH_BLOCKING=1"},
    {31, XID_APP, 0, "GPU memory page fault (a kernel accessed an invalid address)",
     "debug the job: an out-of-bounds index or a freed buffer; compute-sanitizer finds it"},
    {32, XID_HARDWARE, 0, "invalid or corrupted push buffer stream",
     "restart the job; if it recurs, check PCIe and the driver, then reset the GPU"},
    {38, XID_HARDWARE, 0, "driver firmware error", "reset the GPU; update the driver if it recurs"},
    {43, XID_APP, 0, "GPU stopped processing: the application hit an error and its channel was reset",
     "the job's own error; the GPU keeps working for others"},
    {45, XID_APP, 0, "preemptive cleanup after earlier errors (usually the application was killed or crashed)",
     "look at the job's exit and at the XID before this one"},
    {48, XID_HARDWARE, 1, "double-bit (uncorrectable) ECC error in GPU memory",
     "drain the GPU and reset it; RMA if it recurs"},
    {61, XID_HARDWARE, 1, "internal micro-controller breakpoint or warning",
     "reset the GPU; contact support if it recurs"},
    {62, XID_HARDWARE, 1, "internal micro-controller halt", "drain and reset the GPU; contact support if it recurs"},
    {63, XID_HARDWARE, 1, "ECC page retirement or row remapping recorded (takes effect at the next reset)",
     "drain and reset the GPU to apply the remap"},
    {64, XID_HARDWARE, 1, "ECC page retirement or row remapping failed", "drain the GPU; RMA"},
    {68, XID_APP, 0, "video decoder (NVDEC) exception", "the application's decode stream; restart the job"},
    {69, XID_APP, 0, "graphics engine class error", "the application's error; restart the job"},
    {74, XID_HARDWARE, 1, "NVLink error",
     "drain and reset the GPU; check the NVLink/NVSwitch fabric; RMA if it recurs"},
    {79, XID_HARDWARE, 1, "GPU has fallen off the bus",
     "drain the node; check PCIe seating, power and thermals; reset or reboot; RMA if it recurs"},
    {92, XID_HARDWARE, 1, "high single-bit ECC error rate", "drain and reset the GPU; RMA if it recurs"},
    {94, XID_HARDWARE, 1, "contained ECC error (the affected application was stopped)",
     "reset the GPU when it is free; RMA if it recurs"},
    {95, XID_HARDWARE, 1, "uncontained ECC error (all applications on the GPU are affected)",
     "drain and reset the GPU now; RMA if it recurs"},
    {109, XID_APP, 0, "context switch timeout", "the application's kernel did not yield; restart the job"},
    {119, XID_HARDWARE, 1, "GSP RPC timeout (the GPU's system processor did not answer)",
     "drain and reset the GPU; update the driver; contact support if it recurs"},
    {120, XID_HARDWARE, 1, "GSP error", "drain and reset the GPU; contact support if it recurs"},
    {121, XID_HARDWARE, 1, "C2C (chip-to-chip) link error", "drain and reset the GPU; RMA if it recurs"},
    {140, XID_HARDWARE, 1, "unrecovered ECC error", "drain and reset the GPU; RMA if it recurs"},
    {154, XID_HARDWARE, 1, "GPU recovery action changed (a reset or reboot is required)",
     "drain the GPU and carry out the recovery action nvidia-smi reports"},
};

const diag_xid *diag_xid_lookup(int code)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].code == code)
            return &table[i];
    return NULL;
}
