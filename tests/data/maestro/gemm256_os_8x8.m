// Matrix product, 256 on each side, output stationary on 64 PEs (8 clusters of 8).
// Each cluster owns one row of M per fold and a tile of 8 columns of N; a PE keeps its
// C element for the whole of K, which is streamed one element per step.
Network gemm256_os_8x8 {
  Layer gemm256_os_8x8_layer {
    Type: GEMM
    Dimensions { M: 256, N: 256, K: 256 }
    Dataflow {
      SpatialMap(1,1) M;
      TemporalMap(8,8) N;
      TemporalMap(256,256) K;
      Cluster(8, P);
      SpatialMap(1,1) N;
      TemporalMap(1,1) K;
    }
  }
}
