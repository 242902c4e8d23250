// A 64 x 64 x 64 matrix product C = A B on 16 PEs, output stationary.
// MAESTRO calls A (M x K) the input, B (K x N) the filter and C (M x N) the output.
// Outer level: 4 clusters, each takes one row of M at a time (16 passes over M); N advances
// in tiles of 4 and the whole K goes to the cluster, so a C tile stays until it is complete.
// Inner level: the 4 PEs of a cluster take one column of the N tile each; K streams in one
// element per step.
Network gemm_example {
  Layer gemm_64 {
    Type: GEMM
    Dimensions { M: 64, N: 64, K: 64 }
    Dataflow {
      SpatialMap(1,1) M;
      TemporalMap(4,4) N;
      TemporalMap(64,64) K;
      Cluster(4, P);
      SpatialMap(1,1) N;
      TemporalMap(1,1) K;
    }
  }
}
