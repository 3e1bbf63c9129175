/*
 * tests/fuzz/fuzz_carrier.c - libFuzzer target for the step plan's text
 * that every slurmstepd parses (spank/carrier.h): no crash, and whatever
 * decodes encodes back to the same bytes (a node applies exactly what srun
 * wrote, or nothing).
 * Build and run: tests/spank/fuzz_smoke.sh, or by hand as in that script.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spank/carrier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lagom_carrier c;
	char *text = malloc(size + 1), *again = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (lagom_carrier_decode(text, &c, NULL) == 0) {
		if (lagom_carrier_encode(&c, &again, NULL) != 0 ||
		    strcmp(again, text) != 0)
			__builtin_trap();
		free(again);
		lagom_carrier_release(&c);
	}
	free(text);
	return 0;
}
