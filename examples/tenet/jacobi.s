1 1
{S[i,j]: 0<=i<16 and 0<=j<16}
{S[i,j]->A[i,j]; S[i,j]->A[i-1,j]; S[i,j]->A[i+1,j]; S[i,j]->A[i,j-1]; S[i,j]->A[i,j+1]}
{S[i,j]->B[i,j]}
