{S[i,j,k]->PE[i%4,j%4]}
{S[i,j,k]->T[floor(i/4),floor(j/4),i%4+j%4+k]}
