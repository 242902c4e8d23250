// bw64lat16: NoC 64 elements/cycle, 16 cycles per hop; buffers never bind.
num_pes: 256
l1_size_cstr: 1000000000
l2_size_cstr: 1000000000
noc_bw_cstr: 64
NoC_NumHops: 16
offchip_bw_cstr: 1000000000
