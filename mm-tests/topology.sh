#!/bin/sh
# Guest side: does the guest see the preset's NUMA topology?
#   topology.sh CPUS MEMS DISTS     e.g. 1,1 1024,1024 10,20/20,10
# CPUS and MEMS are per node (MiB), DISTS the SLIT rows separated by '/'.
cpus=$1 mems=$2 dists=$3
nodes=$(echo "$cpus" | tr ',' ' ' | wc -w)
nmems=$(echo "$mems" | tr ',' ' ' | wc -w)
nrows=$(echo "$dists" | tr '/' ' ' | wc -w)
echo "1..$((1 + nodes + nmems + nrows))"
out=$(numactl -H)
echo "$out" | sed 's/^/# /'
got=$(echo "$out" | sed -n 's/^available: \([0-9]*\) nodes.*/\1/p')
[ "$got" = "$nodes" ] && echo "ok - topology: $nodes nodes" || echo "not ok - topology: $nodes nodes expected, numactl says '$got'"
n=0
for c in $(echo "$cpus" | tr ',' ' '); do
	have=$(echo "$out" | sed -n "s/^node $n cpus:\(.*\)/\1/p" | wc -w)
	[ "$have" = "$c" ] && echo "ok - topology: node $n has $c CPUs" ||
		echo "not ok - topology: node $n has $have CPUs, expected $c"
	n=$((n + 1))
done
n=0
for m in $(echo "$mems" | tr ',' ' '); do
	have=$(echo "$out" | sed -n "s/^node $n size: \([0-9]*\) MB/\1/p")
	# Firmware and the kernel keep some: accept 85-100% of the preset, or
	# 128 MiB less on a small node.  The node that holds the top of the
	# 32-bit memory also holds SWIOTLB's 64 MiB buffer, and the node that
	# KASLR put the kernel image on loses its size too: hpe16's node 5
	# showed 313 of 384 MiB, epyc8's node 3 424 of 512 in one boot and
	# more than 435 in another.
	lo=$((m * 85 / 100))
	[ $((m - 128)) -lt "$lo" ] && lo=$((m - 128))
	if [ -n "$have" ] && [ "$have" -le "$m" ] && [ "$have" -ge "$lo" ]; then
		echo "ok - topology: node $n has ${have} of ${m} MiB"
	else
		echo "not ok - topology: node $n has '${have}' MiB, expected about $m"
	fi
	n=$((n + 1))
done
i=0
echo "$dists" | tr '/' '\n' | while read -r row; do
	want=$(echo "$row" | tr ',' ' ')
	have=$(echo "$out" | sed -n "s/^ *$i: *//p" | tr -s ' ' | sed 's/ *$//')
	[ "$have" = "$want" ] && echo "ok - topology: distances from node $i: $want" ||
		echo "not ok - topology: distances from node $i: '$have', expected '$want'"
	i=$((i + 1))
done
