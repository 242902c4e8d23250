// A row-stationary layer whose outer level walks the filter rows one at a time
// (TemporalMap(1,1) R): MAESTRO's parser rejects a map on R or S that is not the whole filter.
// The second layer covers the filter and runs.
Network rejected {
  Layer CONV1 {
    Type: CONV
    Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 }
    Dataflow {
      TemporalMap(1,1) K;
      TemporalMap(1,1) C;
      TemporalMap(1,1) R;
      SpatialMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      Cluster(Sz(R), P);
      SpatialMap(1,1) Y;
      SpatialMap(1,1) R;
    }
  }
  Layer CONV2 {
    Type: CONV
    Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 }
    Dataflow {
      TemporalMap(1,1) K;
      TemporalMap(1,1) C;
      TemporalMap(Sz(R),Sz(R)) R;
      SpatialMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      Cluster(Sz(R), P);
      SpatialMap(1,1) Y;
      SpatialMap(1,1) R;
    }
  }
}
