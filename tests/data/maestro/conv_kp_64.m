// Convolution, output channels in parallel on 64 PEs (one K per PE), the rest in time.
Network conv_kp_64 {
  Layer conv_kp_64_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      SpatialMap(1,1) K;
      TemporalMap(1,1) C;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
