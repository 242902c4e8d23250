// No local reuse, input channels across the PEs (spaces inside the directives are allowed).
Network mex_nlr_256 {
  Layer mex_nlr_256_layer {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      TemporalMap (1,1) K;
      TemporalMap (Sz(R), 1) Y;
      TemporalMap (Sz(S), 1) X;
      TemporalMap (Sz(R), Sz(R)) R;
      TemporalMap (Sz(S), Sz(S)) S;
      SpatialMap (1,1) C;
    }
  }
}
