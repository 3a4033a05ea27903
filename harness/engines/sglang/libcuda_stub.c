/*
 * Stand-in for the NVIDIA driver library (libcuda.so.1) on hosts without one.
 *
 * Why: SGLang's kernel package (sglang-kernel) is a CUDA-only build whose shared
 * objects are linked against libcuda.so.1. On a CPU-only host the dynamic loader
 * cannot find that library, so `import sglang` fails before SGLang ever gets to
 * pick its CPU engine (SGLANG_USE_CPU_ENGINE=1). Putting this file's build first on
 * LD_LIBRARY_PATH satisfies the loader; every entry point answers "no device", so
 * anything that really tries to use CUDA sees a clean CUDA_ERROR_NO_DEVICE instead
 * of a crash, and the CPU code paths are unaffected.
 *
 * Built by harness/envs/stub.py:  gcc -shared -fPIC -O2 -Wl,-soname,libcuda.so.1
 */

typedef int CUresult;

#define CUDA_ERROR_NO_DEVICE 100

static const char no_device_name[] = "CUDA_ERROR_NO_DEVICE";
static const char no_device_text[] =
    "no CUDA-capable device is detected (kv-budget-harness stand-in libcuda)";

CUresult cuInit(unsigned int flags) {
    (void)flags;
    return CUDA_ERROR_NO_DEVICE;
}

CUresult cuDriverGetVersion(int *version) {
    /* Report "no driver" rather than a made-up version number. */
    if (version) *version = 0;
    return CUDA_ERROR_NO_DEVICE;
}

CUresult cuDeviceGetCount(int *count) {
    if (count) *count = 0;
    return CUDA_ERROR_NO_DEVICE;
}

CUresult cuPointerGetAttribute(void *data, int attribute, unsigned long long ptr) {
    (void)data; (void)attribute; (void)ptr;
    return CUDA_ERROR_NO_DEVICE;
}

/* cuGetProcAddress is how runtime libraries look up every other driver symbol;
 * returning NULL with NO_DEVICE stops them from calling anything further. */
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                          unsigned long long flags) {
    (void)symbol; (void)version; (void)flags;
    if (pfn) *pfn = 0;
    return CUDA_ERROR_NO_DEVICE;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                             unsigned long long flags, int *symbol_status) {
    (void)symbol; (void)version; (void)flags;
    if (pfn) *pfn = 0;
    if (symbol_status) *symbol_status = 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    return CUDA_ERROR_NO_DEVICE;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
    (void)error;
    if (text) *text = no_device_text;
    return CUDA_ERROR_NO_DEVICE;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
    (void)error;
    if (name) *name = no_device_name;
    return CUDA_ERROR_NO_DEVICE;
}

/* Driver entry points that older sglang-kernel builds (0.4.1-0.4.3, pinned by SGLang 0.5.10-0.5.13)
 * link directly (nm -D --undefined-only sgl_kernel/sm90/common_ops.abi3.so, spatial_ops.abi3.so):
 * without them the loader refuses common_ops ("undefined symbol: cuMemAddressFree") and SGLang never
 * reaches its CPU engine. They are only resolved at load time, never called on a CPU host; each
 * answers "no device" whatever its arguments (the caller owns the stack under the x86-64 ABI). */
#define NO_DEVICE_ENTRY(name) CUresult name(void) { return CUDA_ERROR_NO_DEVICE; }
NO_DEVICE_ENTRY(cuMemAddressFree)
NO_DEVICE_ENTRY(cuMemGetAddressRange_v2)
NO_DEVICE_ENTRY(cuMemRelease)
NO_DEVICE_ENTRY(cuMemRetainAllocationHandle)
NO_DEVICE_ENTRY(cuMemSetAccess)
NO_DEVICE_ENTRY(cuMemUnmap)
NO_DEVICE_ENTRY(cuCtxFromGreenCtx)
NO_DEVICE_ENTRY(cuCtxPopCurrent_v2)
NO_DEVICE_ENTRY(cuCtxPushCurrent_v2)
NO_DEVICE_ENTRY(cuDevResourceGenerateDesc)
NO_DEVICE_ENTRY(cuDevSmResourceSplitByCount)
NO_DEVICE_ENTRY(cuDeviceGetDevResource)
NO_DEVICE_ENTRY(cuGreenCtxCreate)
NO_DEVICE_ENTRY(cuGreenCtxDestroy)
NO_DEVICE_ENTRY(cuGreenCtxGetDevResource)
NO_DEVICE_ENTRY(cuStreamCreate)
