// Three small convolutions, no local reuse: PEs split the input channels C.
// The second and third layers give no dataflow and reuse the first one's.
Network tiny_net {
  Layer CONV1 {
    Type: CONV
    Stride { X: 2, Y: 2 }
    Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 9, X: 9 }
    Dataflow {
      TemporalMap(1,1) K;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      SpatialMap(1,1) C;
    }
  }
  Layer CONV2 {
    Type: CONV
    Dimensions { K: 8, C: 4, R: 3, S: 3, Y: 6, X: 6 }
  }
  Layer CONV3 {
    Type: CONV
    Dimensions { K: 8, C: 8, R: 3, S: 3, Y: 6, X: 6 }
  }
}
