// Matrix product, 256 on each side, weight stationary on 64 PEs (8 clusters of 8).
// Clusters split K, PEs of a cluster split a tile of 8 columns of N: each PE holds one B
// element while all of M streams past.
Network gemm256_ws_8x8 {
  Layer gemm256_ws_8x8_layer {
    Type: GEMM
    Dimensions { M: 256, N: 256, K: 256 }
    Dataflow {
      TemporalMap(8,8) N;
      SpatialMap(1,1) K;
      TemporalMap(256,256) M;
      Cluster(8, P);
      SpatialMap(1,1) N;
      TemporalMap(1,1) M;
    }
  }
}
