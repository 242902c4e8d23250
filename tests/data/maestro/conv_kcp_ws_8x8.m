// Convolution (K 128, C 64, 3x3 filter, 114x114 input), weight stationary on 64 PEs:
// clusters split the output channels K, the 8 PEs of a cluster split input channels C.
Network conv_kcp_ws_8x8 {
  Layer conv_kcp_ws_8x8_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      SpatialMap(1,1) K;
      TemporalMap(8,8) C;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      Cluster(8, P);
      SpatialMap(1,1) C;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
