// Matrix product, 256 on each side, with tiles that do not divide 256 (M by 10, N by 50,
// K by 100), sizes given as constants. The last tile of each dimension is partial.
Constant SzM 256;
Constant SzN 256;
Constant SzK 256;
Constant TileM 10;
Constant TileN 50;
Constant TileK 100;
Network mex_gemm_reuse_256 {
  Layer gemm_partial_tiles {
    Type: GEMM
    Dimensions { K: SzK, M: SzM, N: SzN }
    Dataflow {
      TemporalMap(TileN,TileN) N;
      SpatialMap(TileM,TileM) M;
      TemporalMap(TileK,TileK) K;
      Cluster(TileK, P);
      TemporalMap(TileN,TileN) N;
      TemporalMap(TileM,TileM) M;
      SpatialMap(1,1) K;
    }
  }
}
