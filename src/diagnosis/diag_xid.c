/* diag_xid.c - the XID table: meanings and the immediate action after NVIDIA's XID catalog
 * (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, "Resolution Bucket (Immediate
 * Action)"); 61 is used on GPUs before Ampere only. */
#include "diag_xid.h"
#include <stddef.h>

static const diag_xid table[] = {
    {13, XID_APP, XA_RESTART_APP, "graphics engine exception (illegal instruction or out-of-range access in a kernel)"},
    {31, XID_APP, XA_RESTART_APP, "GPU memory page fault (a kernel accessed an invalid address)"},
    {32, XID_HARDWARE, XA_RESTART_APP, "invalid or corrupted push buffer stream (usually the PCIe link's quality)"},
    {38, XID_HARDWARE, XA_IGNORE, "driver firmware error (watchdog timeout)"},
    {43, XID_APP, XA_IGNORE, "GPU stopped processing: the application hit a fault and its channel was reset"},
    {45, XID_APP, XA_IGNORE,
     "preemptive cleanup: the application was stopped (killed, crashed, or after another error)"},
    {46, XID_HARDWARE, XA_RESET_GPU, "GPU stopped processing (timeout)"},
    {48, XID_HARDWARE, XA_WORKFLOW_XID_48, "double-bit (uncorrectable) ECC error in GPU memory"},
    {54, XID_HARDWARE, XA_CHECK_MECHANICALS, "auxiliary power is not connected to the GPU board"},
    {61, XID_HARDWARE, XA_RESET_GPU, "internal micro-controller breakpoint or warning"},
    {62, XID_HARDWARE, XA_RESET_GPU, "internal micro-controller halt"},
    {63, XID_REMAP, XA_IGNORE, "ECC page retirement or row remapping recorded (takes effect at the next reset)"},
    {64, XID_REMAP, XA_RESET_GPU, "ECC page retirement or row remapping failed"},
    {68, XID_APP, XA_RESTART_APP, "video decoder (NVDEC) exception"},
    {69, XID_APP, XA_RESTART_APP, "graphics engine class error"},
    {74, XID_HARDWARE, XA_WORKFLOW_NVLINK, "NVLink error"},
    {79, XID_HARDWARE, XA_RESTART_BM, "GPU has fallen off the bus"},
    {92, XID_HARDWARE, XA_IGNORE, "high single-bit ECC error rate"},
    {94, XID_HARDWARE, XA_RESTART_APP, "contained ECC error (only the application that hit it was stopped)"},
    {95, XID_HARDWARE, XA_RESET_GPU, "uncontained ECC error (every application on the GPU is affected)"},
    {109, XID_HARDWARE, XA_RESET_GPU, "context switch timeout"},
    {110, XID_HARDWARE, XA_RESET_GPU, "security fault"},
    {119, XID_HARDWARE, XA_RESET_GPU, "GSP RPC timeout (the GPU's system processor did not answer)"},
    {120, XID_HARDWARE, XA_RESET_GPU, "GSP error"},
    {121, XID_HARDWARE, XA_IGNORE, "C2C (chip-to-chip) link: corrected errors"},
    {136, XID_HARDWARE, XA_RESET_GPU, "link training failed"},
    {137, XID_APP, XA_IGNORE, "NVLink privilege error (an illegal peer-to-peer access by the application)"},
    {140, XID_HARDWARE, XA_RESET_GPU, "unrecovered ECC error"},
    {143, XID_HARDWARE, XA_RESET_GPU, "GPU initialization error"},
    {154, XID_HARDWARE, XA_XID_154, "GPU recovery action changed (a reset or reboot is required)"},
    {155, XID_HARDWARE, XA_RESET_GPU, "NVLink: software-defined link down"},
    {156, XID_HARDWARE, XA_RESET_GPU, "resource retirement event"},
    {158, XID_HARDWARE, XA_RESET_GPU, "GPU fatal timeout"},
};

const diag_xid *diag_xid_lookup(int code)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].code == code)
            return &table[i];
    return NULL;
}

static const struct {
    const char *name, *text;
} actions[] = {
    [XA_IGNORE] = {"IGNORE", "no action for this XID alone; act on the XIDs beside it"},
    [XA_RESTART_APP] = {"RESTART_APP", "restart the application"},
    [XA_CHECK_MECHANICALS] = {"CHECK_MECHANICALS", "check the board's power cables and seating"},
    [XA_RESET_GPU] = {"RESET_GPU", "drain the GPU and reset it"},
    [XA_XID_154] = {"XID_154", "carry out the recovery action the driver reports (nvidia-smi -q: GPU Recovery Action)"},
    [XA_WORKFLOW_XID_48] = {"WORKFLOW_XID_48",
                            "drain the GPU and reset it (the reset also applies a pending row remap)"},
    [XA_WORKFLOW_NVLINK] =
        {"WORKFLOW_NVLINK_ERR",
         "drain, then reset the GPU or reboot the node; nvidia-smi nvlink -e shows the failing link"},
    [XA_RESTART_BM] = {"RESTART_BM",
                       "drain the node and power-cycle it: the GPU is unreachable, a reset is not enough"},
};

const char *diag_xid_action_name(xid_action a)
{
    return actions[a].name;
}

const char *diag_xid_action_text(xid_action a)
{
    return actions[a].text;
}

int diag_xid_action_drains(xid_action a)
{
    return a >= XA_RESET_GPU;
}
