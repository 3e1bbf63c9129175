/*
 * tests/planner/test_comment_text.c - the job comment's grammar
 * (planner/comment_text.h): every field the writer writes is read back as
 * written, field by field and all together; a value that fails its row's
 * check is left out; the text is cut to the caller's buffer as snprintf()
 * would.  The node's side against real plans is tests/spank/test_trust.c.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/text.h"
#include "planner/comment_text.h"
#include "planner/planner.h"

#define HEAD "lagom " PACKAGE_VERSION " plan=0123456789abcdef"

/* A value of each field as the planner writes it. */
static const char *const good[LAGOM_COMMENT_NFIELDS] = {
	[LAGOM_COMMENT_WORKLOAD] = "llama-3.1-8b:tp8,mb4",
	[LAGOM_COMMENT_CHANNELS] = "2-16",
	[LAGOM_COMMENT_CHUNK] = "512KiB",
	[LAGOM_COMMENT_ALGO] = "ring,tree",
	[LAGOM_COMMENT_SPEEDUP] = "1.13x",
	[LAGOM_COMMENT_CORRECTED] = "allreduce@1MiB:x1.83,+2",
	[LAGOM_COMMENT_FROM] = "77.0",
	[LAGOM_COMMENT_REVERTED] = "0.96x[0.94,0.98]/20",
	[LAGOM_COMMENT_FALLBACK] = LAGOM_PLANNER_FALLBACK_UNPRICED,
	[LAGOM_COMMENT_CALIBRATED] =
		"calibrated from 3 classes of 12 runs, 2026-11-28",
	/* node 0's own */
	[LAGOM_COMMENT_CONTAINER] = " container: plan files mounted (node 0)",
	[LAGOM_COMMENT_MODE] = "explain (not applied)",
	[LAGOM_COMMENT_ARM] = "control (NCCL's defaults, measured)",
	[LAGOM_COMMENT_SKIPPED] = "NCCL_ALGO,NCCL_PROTO",
};

/* The fields read back from srun's text: those before node 0's own. */
#define READ_FIELDS LAGOM_COMMENT_CONTAINER

/* A value each field refuses. */
static const char *const bad[LAGOM_COMMENT_NFIELDS] = {
	[LAGOM_COMMENT_WORKLOAD] = "phi-2:tp0",
	[LAGOM_COMMENT_CHANNELS] = "12345",
	[LAGOM_COMMENT_CHUNK] = "512MiB",
	[LAGOM_COMMENT_ALGO] = "ring,evil",
	[LAGOM_COMMENT_SPEEDUP] = "1.1x",
	[LAGOM_COMMENT_CORRECTED] = "allreduce@1MiB:x1.83,+2,+3",
	[LAGOM_COMMENT_FROM] = "77",
	[LAGOM_COMMENT_REVERTED] = "0.96x[0.98,0.94]/20",
	[LAGOM_COMMENT_FALLBACK] = "call 555",
	[LAGOM_COMMENT_CALIBRATED] = "calibrated from 3 classes, 2026-11-28",
};

static void write_text(const struct lagom_comment_text *c, char *out,
		       size_t len)
{
	size_t n = lagom_comment_text_write(c, "0123456789abcdef", out, len);

	assert_int_equal(n, strlen(out));
}

/* Each field alone, and all of them, come back as written. */
static void round_trip(void **state)
{
	struct lagom_comment_text all = { 0 }, back;
	char text[2048], again[2048];

	(void)state;
	for (size_t f = 0; f < READ_FIELDS; f++) {
		struct lagom_comment_text one = { 0 };

		one.value[f] = good[f];
		all.value[f] = good[f];
		write_text(&one, text, sizeof(text));
		lagom_comment_text_read(text, &back);
		for (size_t g = 0; g < LAGOM_COMMENT_NFIELDS; g++)
			if (g == f)
				assert_string_equal(back.value[g], good[f]);
			else
				assert_null(back.value[g]);
	}
	write_text(&all, text, sizeof(text));
	lagom_comment_text_read(text, &back);
	write_text(&back, again, sizeof(again));
	assert_string_equal(again, text);
	assert_string_equal(
		text, HEAD
		" workload=llama-3.1-8b:tp8,mb4 channels=2-16 "
		"chunk=512KiB algo=ring,tree speedup=1.13x "
		"corrected=allreduce@1MiB:x1.83,+2 from=77.0 "
		"reverted=0.96x[0.94,0.98]/20 fallback=" LAGOM_PLANNER_FALLBACK_UNPRICED
		"; calibrated from 3 classes of 12 runs, "
		"2026-11-28");
}

/* Node 0's own fields are written after srun's, and never taken from a
 * text: a user cannot claim a container's plan, explain mode or skipped
 * variables. */
static void node_fields(void **state)
{
	struct lagom_comment_text c = { 0 }, back;
	char text[2048];

	(void)state;
	for (size_t f = 0; f < LAGOM_COMMENT_NFIELDS; f++)
		c.value[f] = good[f];
	write_text(&c, text, sizeof(text));
	assert_non_null(strstr(
		text, "2026-11-28 container: plan files mounted (node 0) "
		      "mode=explain (not applied) "
		      "arm=control (NCCL's defaults, measured) "
		      "skipped=NCCL_ALGO,NCCL_PROTO"));
	lagom_comment_text_read(text, &back);
	for (size_t f = READ_FIELDS; f < LAGOM_COMMENT_NFIELDS; f++)
		assert_null(back.value[f]);
	lagom_comment_text_read("speedup=1.05x mode=explain arm=control "
				"skipped=X "
				"container: plan applied",
				&back);
	for (size_t f = 0; f < LAGOM_COMMENT_NFIELDS; f++)
		if (f == LAGOM_COMMENT_SPEEDUP)
			assert_string_equal(back.value[f], "1.05x");
		else
			assert_null(back.value[f]);
}

/* A value that fails its check is left out (the workload: "file"); the
 * fields around it stay. */
static void refused_fields(void **state)
{
	struct lagom_comment_text c, back;
	char text[2048];

	(void)state;
	for (size_t f = 0; f < READ_FIELDS; f++) {
		memset(&c, 0, sizeof(c));
		for (size_t g = 0; g < READ_FIELDS; g++)
			c.value[g] = g == f ? bad[g] : good[g];
		write_text(&c, text, sizeof(text));
		lagom_comment_text_read(text, &back);
		for (size_t g = 0; g < READ_FIELDS; g++) {
			if (g == LAGOM_COMMENT_FALLBACK &&
			    f == LAGOM_COMMENT_CALIBRATED)
				/* a tail that is not lagom's takes the
				 * phrase before it along */
				assert_null(back.value[g]);
			else if (g != f)
				assert_string_equal(back.value[g], good[g]);
			else if (g == LAGOM_COMMENT_WORKLOAD)
				assert_string_equal(back.value[g], "file");
			else if (back.value[g])
				fail_msg("field %zu: '%s' read back as '%s'", f,
					 bad[f], back.value[g]);
		}
	}
}

/* lagom's own spelling: catalog names as the catalog spells them, a
 * later valid word replaces an earlier one, an invalid one does not. */
static void spelling_and_repeats(void **state)
{
	struct lagom_comment_text c;
	char text[512];

	(void)state;
	lagom_comment_text_read("workload=LLAMA-3.1-8B:FSDP,BF16 channels=8 "
				"channels=9;x channels=<=4 speedup=1.05x "
				"plan=1111111111111111",
				&c);
	write_text(&c, text, sizeof(text));
	assert_string_equal(text, HEAD " workload=llama-3.1-8b:fsdp,bf16 "
				       "channels=<=4 speedup=1.05x");
	/* options the catalog refuses, or not in canonical digits */
	lagom_comment_text_read("workload=phi-2:tp08", &c);
	assert_string_equal(c.value[LAGOM_COMMENT_WORKLOAD], "file");
	lagom_comment_text_read("workload=phi-2:zz8", &c);
	assert_string_equal(c.value[LAGOM_COMMENT_WORKLOAD], "file");
	lagom_comment_text_read("workload=measured-12.3", &c);
	assert_string_equal(c.value[LAGOM_COMMENT_WORKLOAD], "measured-12.3");
}

/* Cut to the buffer, with the whole length returned. */
static void cut_to_fit(void **state)
{
	struct lagom_comment_text c = { 0 };
	char small[24];
	size_t whole, n;

	(void)state;
	c.value[LAGOM_COMMENT_WORKLOAD] = good[LAGOM_COMMENT_WORKLOAD];
	whole = lagom_comment_text_write(&c, "0123456789abcdef", NULL, 0);
	assert_int_equal(whole, strlen(HEAD " workload=") +
					strlen(good[LAGOM_COMMENT_WORKLOAD]));
	n = lagom_comment_text_write(&c, "0123456789abcdef", small,
				     sizeof(small));
	assert_int_equal(n, whole);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, HEAD, sizeof(small) - 1);
}

/* The strict numbers of common/text.h the checks use. */
static void strict_numbers(void **state)
{
	(void)state;
	assert_int_equal(lagom_text_digits("120x", 4), 3);
	assert_int_equal(lagom_text_digits("0", 4), 1);
	assert_int_equal(lagom_text_digits("012", 4), 0);
	assert_int_equal(lagom_text_digits("12345", 4), 0);
	assert_int_equal(lagom_text_digits("-1", 4), 0);
	assert_true(lagom_text_is_uint("42", 2));
	assert_false(lagom_text_is_uint("42 ", 2));
	assert_true(lagom_text_is_hundredths("1.05x", "x"));
	assert_false(lagom_text_is_hundredths("1.05", "x"));
	assert_false(lagom_text_is_hundredths("1.5x", "x"));
	assert_false(lagom_text_is_hundredths("01.50", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(refused_fields),
		cmocka_unit_test(node_fields),
		cmocka_unit_test(spelling_and_repeats),
		cmocka_unit_test(cut_to_fit),
		cmocka_unit_test(strict_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
