# Perfetto export of bad input: a directory that is no trace fails with exit
# status 1 and leaves no output; a truncated trace or one without device
# streams gives a clear error or a valid file, never a crash.
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
no_output_on_error perfetto
pf_check nodev.out d.txt
assert_eq "$(count '^track ' d.txt)" 2 "tracks without a device"
assert_eq "$(count 'kind=custom' d.txt)" 0 "queue tracks without a device"
assert_eq "$(count '^slice ' d.txt)" 5 "CPU slices without a device"
if [ -e cut.out ]; then
	pf_check cut.out cut.txt
fi
echo "ok"
