// The same weight-stationary convolution on 1024 PEs: 16 clusters over K, 64 PEs over C.
Network conv_kcp_ws_16x64 {
  Layer conv_kcp_ws_16x64_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      SpatialMap(1,1) K;
      TemporalMap(64,64) C;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      Cluster(64, P);
      SpatialMap(1,1) C;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
