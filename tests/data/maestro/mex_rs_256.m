// A row-stationary convolution that repeats the filter-column map inside the cluster
// (TemporalMap on S after the SpatialMap on S): MAESTRO divides by zero on it.
Network mex_rs_256 {
  Layer mex_rs_256_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      TemporalMap(2,2) K;
      TemporalMap(4,4) C;
      TemporalMap(Sz(R),Sz(R)) R;
      SpatialMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      Cluster(3,P);
      SpatialMap(1,1) X;
      SpatialMap(1,1) S;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
