{PE[i,j]: 0<=i<4 and 0<=j<4}
{PE[i,j]->PE[i,j-1]; PE[i,j]->PE[i-1,j]}
256 1024 64 16
