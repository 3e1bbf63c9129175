/* Prints the contention probe's embedded PTX, for tests/prolog/ptx.sh. */
#include "config.h"

#include <stdio.h>

#include "prolog/prolog.h"

int main(void)
{
	fputs(lagom_hold_ptx, stdout);
	return 0;
}
