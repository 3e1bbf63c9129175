/*
 * tests/fuzz/fuzz_carrier.c - libFuzzer target for the step plan's text
 * that every slurmstepd parses (spank/carrier.h): no crash, whatever
 * decodes encodes back to the same bytes (a node applies exactly what srun
 * wrote, or nothing), and the job comment a node composes from it (which
 * root writes) holds only the characters of lagom's own fields: no brace,
 * no '|', no control or non-ASCII byte, whatever the user wrote.
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
		char comment[LAGOM_CARRIER_SUMMARY_MAX + 64];
		size_t n;

		if (lagom_carrier_encode(&c, &again, NULL) != 0 ||
		    strcmp(again, text) != 0)
			__builtin_trap();
		free(again);
		(void)lagom_carrier_vet(&c, "/usr/lib/tuner.so", NULL);
		/* the comment's characters; "[]/" for reverted=X[LO,HI]/N */
		n = lagom_carrier_comment(&c, comment, sizeof(comment));
		if (n != strlen(comment) ||
		    strspn(comment, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    " .:=,@+<>()_-[]/") != n)
			__builtin_trap();
		lagom_carrier_release(&c);
	}
	free(text);
	return 0;
}
