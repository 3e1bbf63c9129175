/*
 * tests/trace/test_guard.c - the importer's token guard (trace/parse.c):
 * the chunk guard, which measures only a chunk's first and last token, and
 * the exact guard, byte by byte, fed the same random bytes in the same
 * random chunks, end every chunk in the same state (in a string, after a
 * backslash, the open token's length) and refuse at the same chunk with
 * the same error.  The bytes are drawn from the ones the guard looks at
 * (quotes, backslashes, structure) in several mixes, with tokens from a
 * few bytes to past the 1 MiB limit.
 */
#include "config.h"

/* the guards are static: this test is compiled with the reader itself
 * (before cmocka.h, whose fail() macro would rename the reader's) */
#include "trace/parse.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static uint64_t x = 88172645463325252ull;

static unsigned draw(void)
{
	x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
	return (unsigned)(x >> 11);
}

static unsigned char byte_of(int mix)
{
	static const char any[] = "\"\\\"\\ab1,:{}[] \"\"\"";

	switch (mix) {
	case 0:
		return (unsigned char)any[draw() % (sizeof(any) - 1)];
	case 1: /* strings with escapes */
		return draw() % 50 == 0 ? '"' : draw() % 80 == 0 ? '\\' : 'a';
	case 2: /* long numbers */
		return draw() % 3000 == 0 ? '"' : draw() % 5 == 0 ? ',' : '7';
	default: /* tokens past the limit */
		return draw() % 200000 == 0 ? '"' : 'x';
	}
}

static void test_same_as_exact(void **state)
{
	static unsigned char buf[(1 << 21) + 16];
	struct lagom_error ea, eb;
	int refused = 0;

	(void)state;
	for (int it = 0; it < 6000; it++) {
		size_t n = 1 + draw() % (it < 5700 ? 4096 : (1u << 21));
		int mix = (int)(draw() % 4), ra = 0, rb = 0;
		struct parser a = { .err = &ea }, b = { .err = &eb };

		for (size_t i = 0; i < n; i++)
			buf[i] = byte_of(mix);
		for (size_t off = 0, c; off < n && !ra && !rb; off += c) {
			c = 1 + draw() % (it % 2 ? CHUNK : 64);
			if (c > n - off)
				c = n - off;
			ra = guard(&a, buf + off, c) < 0;
			rb = guard_exact(&b, buf + off, c, false) < 0;
			assert_int_equal(ra, rb);
			if (ra) {
				assert_int_equal(a.rc, b.rc);
				assert_string_equal(ea.text, eb.text);
				refused++;
				break;
			}
			assert_int_equal(a.in_string, b.in_string);
			assert_int_equal(a.escape, b.escape);
			assert_int_equal(a.token_len, b.token_len);
		}
	}
	assert_true(refused > 0); /* the limit was reached, and checked */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
