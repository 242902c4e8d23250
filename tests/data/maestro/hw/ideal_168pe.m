// ideal: NoC 1000000000 elements/cycle, 0 cycles per hop; buffers never bind.
num_pes: 168
l1_size_cstr: 1000000000
l2_size_cstr: 1000000000
noc_bw_cstr: 1000000000
NoC_NumHops: 0
offchip_bw_cstr: 1000000000
