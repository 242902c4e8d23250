// As conv_yxp_os_8x8, but C is the outer loop: every output tile is written back once
// per input channel.
Network conv_yxp_os_cfirst_8x8 {
  Layer conv_yxp_os_cfirst_8x8_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      TemporalMap(1,1) K;
      TemporalMap(1,1) C;
      SpatialMap(Sz(R),1) Y;
      TemporalMap(10,8) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      Cluster(8, P);
      SpatialMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
