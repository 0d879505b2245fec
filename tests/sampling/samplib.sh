# Helpers of the sampling tests (sourced after tests/integration/lib.sh).
# The kernels run on PoCL's basic device; a machine without OpenCL skips.
export POCL_DEVICES=${POCL_DEVICES:-basic}
export POCL_KERNEL_CACHE=1
CS=$BUILD/bin/cs_prog
PLUGIN=$BUILD/lib/libcs_plugin.so
[ -x "$CS" ] || { echo "SKIP: cs_prog not built (no OpenCL)"; exit 77; }
"$CS" 1 1 >/dev/null 2>&1 || { echo "SKIP: no usable OpenCL device"; exit 77; }

