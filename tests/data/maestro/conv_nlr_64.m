// Convolution with no local reuse on 64 PEs: the PEs split the input channels C, one
// MAC per PE and step, every operand fetched from the shared buffer.
Network conv_nlr_64 {
  Layer conv_nlr_64_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      TemporalMap(1,1) K;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      SpatialMap(1,1) C;
    }
  }
}
