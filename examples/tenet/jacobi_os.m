{S[i,j]->PE[i%4,j%4]}
{S[i,j]->T[floor(i/4),floor(j/4)]}
