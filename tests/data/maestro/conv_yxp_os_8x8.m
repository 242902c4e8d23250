// Convolution, output stationary over the image on 64 PEs: clusters take output rows,
// PEs of a cluster take output columns (windows of 10 input columns moving by 8);
// C is walked inside the cluster so partial sums stay in the PEs.
Network conv_yxp_os_8x8 {
  Layer conv_yxp_os_8x8_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      TemporalMap(1,1) K;
      SpatialMap(Sz(R),1) Y;
      TemporalMap(10,8) X;
      TemporalMap(Sz(C),Sz(C)) C;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      Cluster(8, P);
      SpatialMap(Sz(S),1) X;
      TemporalMap(1,1) C;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
