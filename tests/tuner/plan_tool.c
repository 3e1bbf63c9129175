/*
 * tests/tuner/plan_tool.c - drives the tuner's plan reader from the shell
 * tests: plan_tool FILE prints "ok" or the reader's one-line reason.
 * Exit status: 0 valid, 1 rejected, 2 usage or an unreadable file.
 */
#include "config.h"

#include <stdio.h>

#include "plan/plan.h"

int main(int argc, char **argv)
{
	static char text[LAGOM_PLAN_MAX_BYTES + 2];
	static struct lagom_plan_wire plan;
	struct lagom_error err = { 0 };
	size_t len;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: plan_tool FILE\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	if (lagom_plan_wire_decode(text, len, &plan, &err) != 0) {
		printf("%s\n", err.text);
		return 1;
	}
	printf("ok\n");
	return 0;
}
