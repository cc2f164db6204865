# make the two namespaces; print nothing
L=ugdgL R=ugdgR
ip netns del $L 2>/dev/null; ip netns del $R 2>/dev/null
ip netns add $L; ip netns add $R
ip link add dgl0 netns $L type veth peer name dgr0 netns $R
ip netns exec $L sysctl -qw net.ipv6.conf.all.accept_dad=0
ip -n $L addr add 192.0.2.1/24 dev dgl0; ip -n $R addr add 192.0.2.2/24 dev dgr0
ip -n $L addr add 2001:db8:5::1/64 dev dgl0 nodad; ip -n $R addr add 2001:db8:5::2/64 dev dgr0 nodad
ip -n $L link set dgl0 up; ip -n $R link set dgr0 up; ip -n $L link set lo up; ip -n $R link set lo up
