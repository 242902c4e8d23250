num_pes: 16
l1_size_cstr: 512       // elements per PE
l2_size_cstr: 65536     // elements in the shared buffer
noc_bw_cstr: 16         // elements per cycle
NoC_NumHops: 1          // cycles per transfer
offchip_bw_cstr: 64
