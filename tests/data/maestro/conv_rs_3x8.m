// The row-stationary convolution on 24 PEs (8 clusters of 3).
Network conv_rs_3x8 {
  Layer conv_rs_3x8_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      TemporalMap(1,1) K;
      TemporalMap(1,1) C;
      SpatialMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      Cluster(Sz(R), P);
      SpatialMap(1,1) Y;
      SpatialMap(1,1) R;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
