# The source interface: a registered function table names api calls and
# their arguments for our reader (fn_def) and for babeltrace2 (enum + variant).
. "$(dirname "$0")/lib.sh"
N=20
"$HT" record -q -o t -- "$PROG" api $N || fail "record exited $?"
dump t d.txt
assert_eq "$(count ' fn_def fn=[0-9]+ name="fakeRead" roles=transfer args=queue:hex:queue,size:uint:bytes,offset:int:none$' d.txt)" 1 "fn_def"
assert_eq "$(count ' fn_def fn=[0-9]+ name="fakeInit" roles=create args=$' d.txt)" 1 "fn_def without arguments"
assert_eq "$(count ' api_begin fn=22529$' d.txt)" $N "api_begin fakeRead"
assert_eq "$(count ' api_end fn=22529 ret=-5 args=3735879685,4096,18446744073709551611$' d.txt)" 1 "api_end args"
check_valid t
bt2_read t b.txt
assert_eq "$(count 'hetrace:api_begin: .*fn = \( "fakeRead" : container = 22529 \)' b.txt)" $N "babeltrace2 names the function"
grep -q 'fn = ( "fakeRead" : container = 22529 ), ret = -5, nargs = 3, args = { { queue = 0xDEAD0005, size = 4096, offset = -5 } }' b.txt ||
	fail "babeltrace2 argument variant: $(grep -m1 'ret = -5' b.txt)"
grep -q 'fn = ( "fakeInit" : container = 22528 ), ret = 0, nargs = 0, args = { { } }' b.txt ||
	fail "babeltrace2 empty argument struct: $(grep -m1 fakeInit b.txt)"
"$HT" info t | grep -q "api_begin 21, api_end 21" || fail "info counts"
echo "ok"
